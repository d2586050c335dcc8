package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// costSuite prices model m1 at $2.50 in and $10 out per million tokens;
// case b's model m9 has no price, so the run has no cost and says why.
const costSuite = `assay: 1
name: costui
prices:
  m1: {input: 2.5, output: 10}
cases:
  - {id: a, query: first, expect: {answer_includes: [ok]}}
  - {id: b, query: second, expect: {answer_includes: [ok]}}
  - {id: c, query: third, expect: {answer_includes: [ok]}}
`

const costTrace = `{"case":"a","trial":0,"answer":"ok","usage":{"model":"m1","input_tokens":100,"output_tokens":10,"cached_tokens":40}}
{"case":"b","trial":0,"answer":"ok","usage":{"model":"m9","input_tokens":100,"output_tokens":10}}
{"case":"c","trial":0,"answer":"ok","usage":{"model":"m1","input_tokens":100,"output_tokens":10}}
`

// TestCostPages compares the run page and case pages of two runs with
// usage with testdata/TestCostPages (-update rewrites them): a run with a
// case that has no price (its cost is undefined, with the reason), and
// one stopped by --max-cost (the cases past it are not run).
func TestCostPages(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"suite.yaml": costSuite, "trace.jsonl": costTrace, "priced.jsonl": strings.ReplaceAll(costTrace, "m9", "m1")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	storeDir := filepath.Join(dir, "store")
	runs := map[string]harness.Plan{
		"unpriced": {Target: "replay:" + filepath.Join(dir, "trace.jsonl")},
		// 0.00035 a case at most: 0.0005 holds one.
		"budget": {Target: "replay:" + filepath.Join(dir, "priced.jsonl"), MaxCost: 0.0005},
	}
	for _, name := range []string{"unpriced", "budget"} {
		p := runs[name]
		p.SuitePath, p.StoreDir, p.Trials, p.Concurrency = filepath.Join(dir, "suite.yaml"), storeDir, 1, 1
		res, err := harness.Run(context.Background(), opened(p))
		if res == nil {
			t.Fatal(err)
		}
		id := res.Runs[0].RunID
		res.Close()
		st, err := store.Open(storeDir, store.OpenOptions{ForReading: true})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if _, err := WriteStatic(context.Background(), out, st, id, ""); err != nil {
			t.Fatal(err)
		}
		st.Close()
		for _, page := range []string{"index.html", "a", "b", "c"} {
			file := page
			if page != "index.html" {
				file = "cases/" + fileName(page) + ".html"
				page = "case-" + page + ".html"
			}
			b, err := os.ReadFile(filepath.Join(out, file))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(normalize(string(b), id, id), dir, "DIR")
			g := filepath.Join("testdata", t.Name(), name+"-"+page)
			if *update {
				os.MkdirAll(filepath.Dir(g), 0o755)
				if err := os.WriteFile(g, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(g)
			if err != nil {
				t.Fatalf("%s: no golden file (run go test ./ui -run TestCostPages -update): %v", g, err)
			}
			if got != string(want) {
				t.Errorf("%s %s differs from %s (-update rewrites it):\n%s", name, page, g, lineDiff(string(want), got))
			}
		}
	}
}
