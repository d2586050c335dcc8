package target

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/cputime"
)

// TestTargetFileDeepNesting: a target file nested deeper than 1000 levels
// is refused with its position before goccy/go-yaml parses it (60 KB of
// "[" took gigabytes there), in YAML and in JSON.
func TestTargetFileDeepNesting(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"yaml", "http:\n  url: http://127.0.0.1:1/\n  body: " + strings.Repeat("[", 60000) + "\n", "t.yaml:3:1007: nested more than 1000 levels deep (the limit)"},
		{"json", `{"http": {"url": "http://127.0.0.1:1/", "body": ` + strings.Repeat("{\"a\": ", 60000), "t.yaml:1:6037: nested more than 1000 levels deep (the limit)"},
		{"block", "http:\n" + indentedKeys(2, 1200), "t.yaml:1001:1002: nested more than 1000 levels deep (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTree("t.yaml", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, want %s", err, tc.want)
			}
		})
	}
}

func indentedKeys(from, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", from+i) + "k:\n")
	}
	return b.String()
}

// TestTargetFileLargeMapping: a mapping of 100,000 keys (headers here)
// is read in about a second: goccy/go-yaml's block mapping parse and the
// duplicate-key check were both quadratic in the number of keys. A
// repeated key is still found, with its position.
func TestTargetFileLargeMapping(t *testing.T) {
	for _, style := range []string{"block", "flow"} {
		t.Run(style, func(t *testing.T) {
			const keys = 100000
			var b strings.Builder
			b.WriteString("http:\n  url: http://127.0.0.1:1/\n  headers:")
			if style == "flow" {
				b.WriteString(" {")
			} else {
				b.WriteString("\n")
			}
			for i := range keys {
				if style == "flow" {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "X-H%d: v", i)
				} else {
					fmt.Fprintf(&b, "    X-H%d: v\n", i)
				}
			}
			if style == "flow" {
				b.WriteString("}\n")
			}
			start := cputime.Used()
			root, err := parseTree("t.yaml", []byte(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			if h := root.get("http").get("headers"); h == nil || len(h.keys) != keys {
				t.Fatalf("headers not read")
			}
			// 1 s; 6 s and more with either quadratic path
			d := cputime.Used() - start
			t.Logf("%v of CPU", d)
			if d > 3*time.Second && !raceEnabled {
				t.Fatalf("took %v of CPU", d)
			}
			// The repeated key is found by the same check that ran over
			// the 100,000 keys above, so 1,000 keys show it at a tenth of
			// the parse.
			cut, again := "    X-H1000:", "    X-H17: again\n"
			if style == "flow" {
				cut, again = ", X-H1000:", ", X-H17: again}\n"
			}
			dup := b.String()[:strings.Index(b.String(), cut)] + again
			if _, err := parseTree("t.yaml", []byte(dup)); err == nil || !strings.Contains(strings.ToLower(err.Error()), `"x-h17"`) {
				t.Fatalf("repeated key: %v", err)
			}
		})
	}
}

// TestDeepJSONInputs: a replay trace line and a mapped response nested
// deeper than 1000 levels are refused, with the position, before they are
// decoded.
func TestDeepJSONInputs(t *testing.T) {
	deep := strings.Repeat("[", 60000)
	path := t.TempDir() + "/trace.jsonl"
	if err := os.WriteFile(path, []byte("{\"case\": \"q1\"}\n{\"case\": \"q2\", \"answer\": "+deep+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReplay(path); err == nil || err.Error() != path+":2:1025: malformed trace line: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("replay: got %v", err)
	}
	var o assay.Observation
	resp := map[string]*response{"main": {body: []byte(`{"answer": ` + deep)}}
	err := applyMap(&o, []mapField{{name: "answer", path: "answer"}}, resp, "main", "response")
	if err == nil || !strings.Contains(err.Error(), "response JSON is nested more than 1000 levels deep (the limit), at line 1 column 1011") {
		t.Fatalf("mapped response: got %v", err)
	}
}
