package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// largeSuite writes a native suite of n cases without a corpus in one of
// four styles and returns its path: "flow" is what `targetstub -suite N`
// prints (one flow mapping per "- " item), "block" the usual multi-line
// block style, "json" an indented JSON file, "jsonl" a JSONL suite (a
// header line, then a case a line).
func largeSuite(tb testing.TB, n int, style string) string {
	tb.Helper()
	var b strings.Builder
	ext := ".yaml"
	switch style {
	case "flow":
		b.WriteString("assay: 1\nname: stub\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - {id: c%06d, query: how often is the kettle descaled %d, expect: {answer_includes: [month]}}\n", i, i)
		}
	case "block":
		b.WriteString("assay: 1\nname: stub\ncases:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - id: c%06d\n    query: how often is the kettle descaled %d\n    expect:\n      answer_includes:\n        - month\n", i, i)
		}
	case "json":
		ext = ".json"
		b.WriteString("{\n  \"assay\": 1,\n  \"name\": \"stub\",\n  \"cases\": [\n")
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, "    {\n      \"id\": \"c%06d\",\n      \"query\": \"how often is the kettle descaled %d\",\n      \"expect\": {\n        \"answer_includes\": [\n          \"month\"\n        ]\n      }\n    }", i, i)
		}
		b.WriteString("\n  ]\n}\n")
	case "jsonl":
		ext = ".jsonl"
		b.WriteString(`{"assay": 1, "name": "stub"}` + "\n")
		for i := range n {
			fmt.Fprintf(&b, `{"id": "c%06d", "query": "how often is the kettle descaled %d", "expect": {"answer_includes": ["month"]}}`+"\n", i, i)
		}
	default:
		tb.Fatalf("unknown style %q", style)
	}
	p := filepath.Join(tb.TempDir(), "large"+ext)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkLoadLarge loads a native suite of 1,000, 10,000 and 100,000
// cases in each style (10,000 cases are about 1 MB of YAML, 2 MB of JSON):
// the whole-document parse for YAML and JSON, line by line for JSONL.
func BenchmarkLoadLarge(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, style := range []string{"flow", "block", "json", "jsonl"} {
			b.Run(fmt.Sprintf("%s/%d", style, n), func(b *testing.B) {
				p := largeSuite(b, n, style)
				b.ReportAllocs()
				for b.Loop() {
					s, err := Load(p)
					if err != nil {
						b.Fatal(err)
					}
					if len(s.Cases) != n {
						b.Fatalf("%d cases", len(s.Cases))
					}
				}
			})
		}
	}
}

// TestLargeSuiteStyles checks that the four styles of the benchmark's
// suites load to the same cases (but for where each case is) and the same
// fingerprint.
func TestLargeSuiteStyles(t *testing.T) {
	var want *assay.Suite
	for _, style := range []string{"block", "flow", "json", "jsonl"} {
		s, err := Load(largeSuite(t, 300, style))
		if err != nil {
			t.Fatalf("%s: %v", style, err)
		}
		for i := range s.Cases {
			s.Cases[i].Source = ""
		}
		if want == nil {
			want = s
			continue
		}
		if !reflect.DeepEqual(s.Cases, want.Cases) || Fingerprint(s) != Fingerprint(want) {
			t.Errorf("%s: the cases differ from the block style's", style)
		}
	}
}

// BenchmarkJSONL10k reads a 10,000-case JSONL suite: Load (every case kept)
// and Stream with one Cases pass (what a run does: validate, then read
// the cases again as they run).
func BenchmarkJSONL10k(b *testing.B) {
	p := largeSuite(b, 10000, "jsonl")
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := Load(p)
			if err != nil || len(s.Cases) != 10000 {
				b.Fatalf("%v", err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st, err := Stream(p, LoadOptions{})
			if err != nil || st.Suite.Cases != nil {
				b.Fatalf("not streamed: %v", err)
			}
			n := 0
			if err := st.Cases(func(assay.Case) error { n++; return nil }); err != nil || n != 10000 {
				b.Fatalf("%d cases: %v", n, err)
			}
		}
	})
}
