package store_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// streamRunOf is what StreamRun gives for path: the head, the cases fn saw
// (after the last restart), whether it restarted, and the error.
func streamRunOf(path string) (head *assay.Run, cases []assay.CaseResult, restarted bool, err error) {
	head, err = store.StreamRun(path, func(r *assay.CaseResult) { cases = append(cases, *r) }, func() {
		cases, restarted = nil, true
	})
	return head, cases, restarted, err
}

// sameAsLoadRun fails t unless StreamRun of path gives LoadRun's error,
// or LoadRun's run: its head, then its cases in order.
func sameAsLoadRun(t *testing.T, path string) (restarted bool) {
	t.Helper()
	want, werr := store.LoadRun(path)
	head, cases, restarted, err := streamRunOf(path)
	if werr != nil || err != nil {
		if werr == nil || err == nil || werr.Error() != err.Error() {
			t.Fatalf("StreamRun error %v; LoadRun's %v", err, werr)
		}
		return restarted
	}
	if head.Cases != nil {
		t.Errorf("StreamRun's head holds %d cases", len(head.Cases))
	}
	wantCases := want.Cases
	want.Cases = nil
	if g, w := mustJSON(t, head), mustJSON(t, want); g != w {
		t.Errorf("head:\n%s\nwant\n%s", g, w)
	}
	for i := range wantCases {
		wantCases[i] = wantCases[i].WithoutObservation()
	}
	for i := range cases {
		cases[i] = cases[i].WithoutObservation()
	}
	if g, w := mustJSON(t, cases), mustJSON(t, wantCases); g != w && !(len(cases) == 0 && len(wantCases) == 0) {
		t.Errorf("cases:\n%s\nwant\n%s", g, w)
	}
	return restarted
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const streamHead = `"schema": "assay.run/v1", "run_id": "r1", "status": "complete", "suite": {"name": "kb"}`

func TestStreamRunReadsWhatLoadRunReads(t *testing.T) {
	t.Parallel()
	deep := func(levels int) string {
		return `{` + streamHead + `, "cases": [{"id": "a", "x": ` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}]}`
	}
	deepHead := func(levels int) string {
		return `{` + streamHead + `, "x": ` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `, "cases": []}`
	}
	for _, tc := range []struct {
		name, doc, casesJSONL string
		restart               bool
	}{
		{name: "good", doc: goodRun},
		{name: "cases first", doc: `{"cases": [{"id": "a", "trial": 1, "pass": true, "metrics": {"mrr": 0.5}, "tags": {"lang": "de"}}, {"id": "a"}], ` + streamHead + `}`},
		{name: "no cases", doc: `{` + streamHead + `}`},
		{name: "null cases", doc: `{` + streamHead + `, "cases": null}`},
		{name: "incomplete", doc: `{"schema": "assay.run/v1", "run_id": "r1", "status": "incomplete", "cases": []}`,
			casesJSONL: `{"id": "q1", "pass": true, "observation": {"answer": "x"}}` + "\n" + `{"id": "q2", "pass": fa`},
		{name: "incomplete bad line", doc: `{"schema": "assay.run/v1", "run_id": "r1", "status": "incomplete"}`,
			casesJSONL: "{\"id\": \"q1\"}\n{\"id\": 5}\n{\"id\": \"q3\"}\n"},
		{name: "Cases key", doc: `{` + streamHead + `, "Cases": [{"id": "a"}]}`, restart: true},
		{name: "cases twice", doc: `{` + streamHead + `, "cases": [{"id": "a"}], "cases": [{"id": "b"}]}`, restart: true},
		{name: "head key twice", doc: `{` + streamHead + `, "run_id": "r2", "cases": [{"id": "a"}]}`},
		{name: "case at the depth limit", doc: deep(997)},
		{name: "case too deep", doc: deep(998)},
		{name: "head at the depth limit", doc: deepHead(999)},
		{name: "head too deep", doc: deepHead(1000)},
		{name: "case without id", doc: `{` + streamHead + `, "cases": [{"id": "a"}, {"trial": 2}]}`},
		{name: "case twice", doc: `{` + streamHead + `, "cases": [{"id": "a"}, {"id": "a"}]}`},
		{name: "bad schema", doc: `{"schema": "x", "run_id": "r1", "status": "complete", "cases": [{"id": "a"}]}`},
		{name: "bad status", doc: `{"schema": "assay.run/v1", "run_id": "r1", "status": "odd"}`},
		{name: "no run id", doc: `{"schema": "assay.run/v1", "status": "complete"}`},
		{name: "bad case field", doc: `{` + streamHead + `, "cases": [{"id": "a", "metrics": {"mrr": "x"}}]}`},
		{name: "syntax error in a case", doc: "{" + streamHead + ",\n \"cases\": [{\"id\": \"a\"},\n {\"id\": \"b\",}]}"},
		{name: "trailing data", doc: goodRun + " {}"},
		{name: "truncated", doc: goodRun[:len(goodRun)/2]},
		{name: "empty", doc: "  "},
		{name: "array", doc: "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, store.RunFile)
			if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.casesJSONL != "" {
				if err := os.WriteFile(filepath.Join(dir, store.CasesFile), []byte(tc.casesJSONL), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := sameAsLoadRun(t, dir); got != tc.restart {
				t.Errorf("restarted = %v, want %v", got, tc.restart)
			}
		})
	}
}

// FuzzStreamRun: StreamRun gives exactly what LoadRun gives (the run, or
// the same error) for any bytes in run.json; never a panic.
func FuzzStreamRun(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte(`{"cases": [{"id": "a", "trial": 1}, {"id": "a"}], ` + streamHead + `}`))
	f.Add([]byte(`{` + streamHead + `, "CASES": [{"id": "a"}]}`))
	f.Add([]byte(`{"schema": "assay.run/v1", "run_id": "r", "status": "incomplete"}`))
	f.Add([]byte(`{"schema": "assay.run/v1", "run_id": "r", "status": "complete", "cases": [{"id": "a", "pass": null, "metrics": {"mrr": 1e400}}]}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), store.RunFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		sameAsLoadRun(t, path)
	})
}
