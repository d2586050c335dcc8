package suite

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/yamltree"
)

// JSONL suites (package doc, "JSONL"): a .jsonl suite file is a header
// object on its first line and one case object on each other line; a
// native suite may instead name such a file of cases (`cases: cases.jsonl`),
// every line of which is a case. Each line is read on its own into the
// same positioned tree the YAML reader builds (yamltree.ParseJSONLine:
// encoding/json checks it, gjson walks it), and decoded by the same decoder as a whole document,
// so that messages and positions are those of a native suite, no line
// goes through the YAML parser, and memory holds one line at a time. A
// plain case line skips the tree: it is read straight into the case
// (direct.go), to the same case, and any line it cannot take goes through
// the tree.

// isJSONLName reports whether name is that of a JSONL file (.jsonl).
func isJSONLName(name string) bool { return strings.EqualFold(filepath.Ext(name), ".jsonl") }

// isJSONLSuite reports whether path names a JSONL suite: a .jsonl file
// whose first line is a JSON object (the header: decodeJSONL says when it
// lacks "assay").
func isJSONLSuite(path string) bool {
	if !isJSONLName(path) {
		return false
	}
	f, err := boundedfile.Open(path, boundedfile.Suite)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := boundedfile.ReadLine(bufio.NewReaderSize(f, 64<<10), maxJSONLLine)
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	line = bytes.TrimLeft(bytes.TrimPrefix(line, []byte("\ufeff")), " \t")
	return len(line) > 0 && line[0] == '{'

}

// maxJSONLLine is the longest line of a JSONL suite or cases file: the
// pre-scan refuses any string longer than 1 MiB anyway, so a line of 64 MiB
// is a case with very many judgments or expectations.
const maxJSONLLine = boundedfile.MaxLine

// jsonlLines reads the lines of a JSONL file one at a time.
type jsonlLines struct {
	file string
	br   *bufio.Reader
	n    int // number of the last line read
	// sums, when set, gets the lineSum of each case line jsonlItems reads
	// (the header line is not one).
	sums *[]uint64
}

// lineSeed keys lineSum: a file cannot be written to collide with what
// one process kept of it.
var lineSeed = maphash.MakeSeed()

// lineSum is what the validating pass of a streamed suite keeps of each
// case line: a hash of its bytes and its number, so that the run's pass
// knows a line is the one that was validated (the same bytes at the same
// line, hence the same case at the same position) before it decodes it,
// without keeping the case. 8 bytes a case.
func lineSum(line []byte, n int) uint64 {
	return maphash.Bytes(lineSeed, line) ^ uint64(n)*0x9e3779b97f4a7c15
}

func newJSONLLines(file string, r io.Reader) *jsonlLines {
	return &jsonlLines{file: file, br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line that is not blank, without its line break,
// and its number; io.EOF at the end. The line is valid until the next call.
func (l *jsonlLines) next() ([]byte, int, error) {
	for {
		line, err := boundedfile.ReadLine(l.br, maxJSONLLine)
		if err != nil && !errors.Is(err, io.EOF) {
			var tl *boundedfile.TooLargeError
			if errors.As(err, &tl) {
				return nil, l.n + 1, Errorf(l.file, l.n+1, 0, "%v", err)
			}
			return nil, l.n + 1, fmt.Errorf("%s: %v", l.file, unwrapFSError(boundedfile.Reason(err)))
		}
		if len(line) == 0 && err != nil {
			return nil, l.n, io.EOF
		}
		l.n++
		if l.n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			return line, l.n, nil
		}
		if err != nil {
			return nil, l.n, io.EOF
		}
	}
}

// parseJSONLLine reads line n of file, which must hold one JSON object,
// with encoding/json into its positioned tree (package yamltree).
func parseJSONLLine(file string, n int, line []byte) (*ynode, error) {
	start := bytes.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '\t' })
	if start < 0 || line[start] != '{' {
		start = max(start, 0)
		return nil, Errorf(file, n, start+1, "want a JSON object on each line of a JSONL suite, got %q", firstBytes(line[start:], 20))
	}
	// A case is two levels deep in a suite (the suite mapping, the cases
	// list): a line is held to the same depth as a case of a YAML suite.
	if e := nesting.YAMLBelow(line, 2); e != nil {
		return nil, Errorf(file, n, e.Col, "%s", e.Msg)
	}
	node, err := yamltree.ParseJSONLine(line, n)
	if err != nil {
		var se *yamltree.SyntaxError
		if errors.As(err, &se) {
			return nil, Errorf(file, se.Line, se.Col, "%s", se.Msg)
		}
		return nil, Errorf(file, n, 1, "%v", err)
	}
	return node, nil
}

// firstBytes is s cut to at most n bytes.
func firstBytes(s []byte, n int) string {
	if len(s) > n {
		return string(s[:n]) + "..."
	}
	return string(s)
}

// jsonlItems is the caseSource of the remaining lines of l: each is handed
// over on its own, to be decoded (directly when it is plain, else through
// its tree: nativeDecoder.itemCase).
func jsonlItems(l *jsonlLines, count *int) caseSource {
	return func(yield func(caseItem) error) error {
		for {
			line, n, err := l.next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if l.sums != nil {
				*l.sums = append(*l.sums, lineSum(line, n))
			}
			*count++
			if err := yield(caseItem{line: line, n: n}); err != nil {
				return err
			}
		}
	}
}

// parseValidatedLine is the tree of line n of file, a line the validating
// pass accepted (parseJSONLLine), read again without its checks.
func parseValidatedLine(file string, n int, line []byte) (*ynode, error) {
	node, err := yamltree.ParseJSONLine(line, n)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %v", file, n, err)
	}
	return node, nil
}

// decodeJSONL reads the JSONL suite file (named path) from rd: the header
// line, then every case line, kept in the suite or, when onCase is set,
// handed to it (see nativeDecoder.onCase); onHeader, when set, is called
// once the header is read. When sums is set, it gets the lineSum of each
// case line read.
func decodeJSONL(path string, rd io.Reader, onHeader func(*parsed) error, onCase caseFunc, sums *[]uint64) (*parsed, error) {
	l := newJSONLLines(path, rd)
	l.sums = sums
	line, n, err := l.next()
	if errors.Is(err, io.EOF) {
		return nil, Errorf(path, 1, 1, "empty suite file: a JSONL suite starts with the header line {\"assay\": %d, ...}", NativeVersion)
	}
	if err != nil {
		return nil, err
	}
	header, err := parseJSONLLine(path, n, line)
	if err != nil {
		return nil, err
	}
	r := &nodeReader{file: path}
	count := 0
	d := &nativeDecoder{r: r, p: &parsed{suite: &assay.Suite{Format: "native"}, topLines: map[string]int{}},
		pieces: jsonlItems(l, &count), jsonl: true, onHeader: onHeader, onCase: onCase}
	if err := d.top(header); err != nil {
		return nil, err
	}
	if count == 0 {
		hl, hc := nodePos(header)
		d.p.probs = append(d.p.probs, problem{line: hl, col: hc, msg: "the suite has no cases: a JSONL suite has one case object on each line after its header"})
	}
	oneLineProblems(d.p.probs)
	return d.p, nil
}

// decodeCasesFile reads the cases of p (a native suite whose cases: names
// the JSONL file casesPath) from rd, kept in p's suite or handed to onCase;
// when sums is set, it gets the lineSum of each case line read.
func decodeCasesFile(p *parsed, casesPath string, rd io.Reader, onCase caseFunc, sums *[]uint64) error {
	r := &nodeReader{file: casesPath}
	count := 0
	d := &nativeDecoder{r: r, p: p, onCase: onCase, caseFile: casesPath}
	l := newJSONLLines(casesPath, rd)
	l.sums = sums
	if err := d.caseItems(jsonlItems(l, &count), 0); err != nil {
		return err
	}
	if count == 0 {
		p.probs = append(p.probs, problem{line: p.casesLine, col: p.casesCol, msg: fmt.Sprintf("the suite has no cases: %s has no case line", p.casesFile)})
	}
	oneLineProblems(p.probs)
	return nil
}

// openCasesFile opens the cases file p names, resolved against dir.
func openCasesFile(p *parsed, dir string) (string, *boundedfile.File, error) {
	full := resolvePath(dir, p.casesFile)
	f, err := boundedfile.Open(full, boundedfile.SuitePart)
	if err != nil {
		return full, nil, Errorf(p.suite.Path, p.casesLine, p.casesCol, "cases: cannot read %s: %v", p.casesFile, unwrapFSError(boundedfile.Reason(err)))
	}
	return full, f, nil
}
