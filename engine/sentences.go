package engine

import (
	"strings"

	"github.com/assay-eval/assay/sentence"
)

// SplitSentences splits text into sentences for the answerer. It reads
// markdown: fenced code blocks are skipped, headings are dropped, every list
// item and table row is its own unit, and blank lines end paragraphs.
// Inside a unit a sentence ends at '.', '!' or '?' followed by a space and a
// character that is not a lower-case letter, unless the word before the
// period is a known abbreviation (e.g., Dr., Fig.) or a single letter (an
// initial); decimals (3.5) never split because no space follows the point.
// CJK full stops (。！？) always end a sentence.
func SplitSentences(text string) []string {
	var out []string
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, splitUnit(strings.Join(para, " "))...)
			para = para[:0]
		}
	}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			fence = "```"
		case strings.HasPrefix(trimmed, "~~~"):
			flush()
			fence = "~~~"
		case trimmed == "":
			flush()
		case isHeading(trimmed):
			flush()
		case strings.HasPrefix(trimmed, "|"):
			flush()
			row := strings.Trim(trimmed, "| ")
			if strings.Trim(row, "|-: ") != "" {
				out = append(out, splitUnit(row)...)
			}
		case isRule(trimmed):
			flush()
		default:
			if item, ok := listItem(trimmed); ok {
				flush()
				trimmed = item
			} else if strings.HasPrefix(trimmed, ">") {
				trimmed = strings.TrimSpace(strings.TrimLeft(trimmed, "> "))
			}
			if trimmed != "" {
				para = append(para, trimmed)
			}
		}
	}
	flush()
	return out
}

func isHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ')
}

func isRule(s string) bool {
	return len(s) >= 3 && (strings.Trim(s, "- ") == "" || strings.Trim(s, "* ") == "" || strings.Trim(s, "_ ") == "")
}

// listItem strips a list marker ("- ", "* ", "+ ", "1. ", "2) ").
func listItem(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ' {
		return strings.TrimSpace(s[2:]), true
	}
	i := 0
	for i < len(s) && i < 4 && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return strings.TrimSpace(s[i+2:]), true
	}
	return s, false
}

// splitUnit splits one paragraph, list item or row into sentences by
// package sentence's rule.
func splitUnit(u string) []string {
	return sentence.Strings(u)
}
