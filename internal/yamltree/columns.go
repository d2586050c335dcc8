package yamltree

import (
	"strings"

	"github.com/goccy/go-yaml/token"
)

// fixPlainColumns corrects the column goccy/go-yaml's lexer gives a plain
// scalar that ends its line with trailing spaces: it counts the spaces into
// the column ("k: ten  " puts "ten" at column 6, not 4), so an error about
// the value pointed past it (and differently on a JSONL line). src is the
// text tks were lexed from; the fix runs before any position is shifted.
func fixPlainColumns(tks token.Tokens, src string) {
	var lines []string // split on first need
	// the runes of one line, converted once for all its tokens (a
	// one-line JSON or flow document has them all on one line)
	var line []rune
	lineNo := 0
	for _, tk := range tks {
		if tk == nil || tk.Position == nil || tk.Value == "" || !plainScalar(tk.Type) {
			continue
		}
		if lines == nil {
			lines = strings.Split(src, "\n")
		}
		if tk.Position.Line < 1 || tk.Position.Line > len(lines) {
			continue
		}
		if tk.Position.Line != lineNo {
			line, lineNo = []rune(lines[tk.Position.Line-1]), tk.Position.Line
		}
		val := []rune(tk.Value)
		col := tk.Position.Column - 1 // 0-based, in runes
		if col < 0 || col > len(line) || hasRunesAt(line, col, val) {
			continue
		}
		for p := min(col, len(line)-len(val)); p >= 0; p-- {
			if hasRunesAt(line, p, val) {
				if strings.TrimRight(string(line[p+len(val):]), " ") == "" {
					tk.Position.Column = p + 1
				}
				break
			}
		}
	}
}

func plainScalar(t token.Type) bool {
	switch t {
	case token.StringType, token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType,
		token.FloatType, token.BoolType, token.NullType, token.InfinityType, token.NanType:
		return true
	}
	return false
}

func hasRunesAt(line []rune, at int, val []rune) bool {
	if at < 0 || at+len(val) > len(line) {
		return false
	}
	for i, r := range val {
		if line[at+i] != r {
			return false
		}
	}
	return true
}
