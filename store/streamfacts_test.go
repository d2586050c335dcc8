package store_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// factsOf is r cut to the fields StreamRunFacts reads, its checks to kind
// and pass, empty lists and maps as nil; its maps are copied (StreamRunFacts
// reuses them).
func factsOf(r assay.CaseResult) assay.CaseResult {
	f := assay.CaseResult{ID: r.ID, Trial: r.Trial, Pass: r.Pass, Error: r.Error, Metrics: maps.Clone(r.Metrics),
		LatencyMs: r.LatencyMs, Usage: r.Usage, Tags: maps.Clone(r.Tags), Retrieved: r.Retrieved,
		Citations: r.Citations, Refused: r.Refused, TopScore: r.TopScore, Hash: r.Hash}
	for _, p := range []**bool{&f.Pass} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	for _, p := range []**float64{&f.LatencyMs, &f.TopScore} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	for _, c := range r.Checks {
		f.Checks = append(f.Checks, assay.Check{Kind: c.Kind, Pass: c.Pass})
	}
	if len(f.Metrics) == 0 {
		f.Metrics = nil
	}
	if len(f.Tags) == 0 {
		f.Tags = nil
	}
	return f
}

// sameFactsAsLoadRun fails t unless StreamRunFacts of path gives LoadRun's
// head and the facts of its cases in order, or LoadRun's error. A record
// LoadRun refuses may be read when its fault is in a field not read
// (readAnyway).
func sameFactsAsLoadRun(t *testing.T, path string) (readAnyway bool) {
	t.Helper()
	want, werr := store.LoadRun(path)
	var cases []assay.CaseResult
	head, err := store.StreamRunFacts(path, func(r *assay.CaseResult) { cases = append(cases, factsOf(*r)) },
		func() { cases = nil })
	switch {
	case err != nil && (werr == nil || werr.Error() != err.Error()):
		t.Fatalf("StreamRunFacts error %v; LoadRun's %v", err, werr)
	case err != nil:
		return false
	case werr != nil:
		return true
	}
	wantCases := want.Cases
	want.Cases = nil
	if g, w := mustJSON(t, head), mustJSON(t, want); g != w {
		t.Errorf("head:\n%s\nwant\n%s", g, w)
	}
	for i := range wantCases {
		wantCases[i] = factsOf(wantCases[i])
	}
	if g, w := mustJSON(t, cases), mustJSON(t, wantCases); g != w && !(len(cases) == 0 && len(wantCases) == 0) {
		t.Errorf("cases:\n%s\nwant\n%s", g, w)
	}
	return false
}

func TestStreamRunFactsReadsWhatLoadRunReads(t *testing.T) {
	t.Parallel()
	full := `{"id": "a", "trial": 2, "pass": false, "error": null, "checks": [{"kind": "refusal", "pass": true, "detail": "d"}, {"kind": "retrieves", "pass": false}],
		"metrics": {"mrr": 0.5, "ndcg@10": 1}, "latency_ms": 12.5, "usage": {"input_tokens": 3, "output_tokens": 4, "cost_usd": 0.01},
		"tags": {"lang": "de", "topic": "x"}, "retrieved": 10, "citations": 1, "refused": true, "top_score": 0.25,
		"hash": "sha256:0000000000000000000000000000000000000000000000000000000000000000", "stages": {"llm": 3}, "source": "s.yaml:3"}`
	for _, tc := range []struct {
		name, cases string
		readAnyway  bool
	}{
		{name: "every field read", cases: full},
		{name: "nulls", cases: `{"id": "a", "trial": null, "pass": null, "checks": null, "metrics": null, "latency_ms": null, "usage": null, "tags": null, "refused": null, "top_score": null, "hash": null}`},
		{name: "empty lists and maps", cases: `{"id": "a", "checks": [], "metrics": {}, "tags": {}}`},
		{name: "nothing carried over", cases: `{"id": "a", "pass": true, "latency_ms": 1, "top_score": 2, "metrics": {"mrr": 1}, "tags": {"k": "v"}, "checks": [{"kind": "refusal", "pass": true}]}, {"id": "b", "pass": false, "latency_ms": 3, "metrics": {"map": 0}}`},
		{name: "an error", cases: `{"id": "a", "error": {"class": "timeout", "message": "slow"}}`},
		{name: "escaped id", cases: `{"id": "a\u00e9\n"}`},
		{name: "escaped check detail", cases: `{"id": "a", "checks": [{"kind": "answer_includes", "pass": false, "detail": "missing \"sha-256\" \u00e9"}]}`},
		{name: "invalid UTF-8 in a check detail", cases: "{\"id\": \"a\", \"checks\": [{\"kind\": \"x\", \"pass\": true, \"detail\": \"\xff\"}]}"},
		{name: "invalid UTF-8 in a tag", cases: "{\"id\": \"a\", \"tags\": {\"k\": \"\xff\"}}"},
		{name: "escaped metric name", cases: `{"id": "a", "metrics": {"m\u0072r": 1}}`},
		{name: "key in another case", cases: `{"ID": "a", "id": "b", "Pass": true}`},
		{name: "key in another case, later", cases: `{"id": "b", "ID": "a", "pass": true, "PASS": false}`},
		{name: "key in another case, in a check", cases: `{"id": "a", "checks": [{"Kind": "refusal", "pass": true}]}`},
		{name: "key given twice", cases: `{"id": "a", "trial": 1, "trial": 2, "pass": true, "pass": null}`},
		{name: "metric given twice", cases: `{"id": "a", "metrics": {"mrr": 1, "mrr": 0.5}}`},
		{name: "null in a map", cases: `{"id": "a", "tags": {"k": null}}`},
		{name: "null check", cases: `{"id": "a", "checks": [null]}`},
		{name: "case not an object", cases: `{"id": "a"}, 5`},
		{name: "number out of range", cases: `{"id": "a", "metrics": {"mrr": 1e400}}`},
		{name: "trial not an integer", cases: `{"id": "a", "trial": 1.5}`},
		{name: "trial a string", cases: `{"id": "a", "trial": "1"}`},
		{name: "pass a number", cases: `{"id": "a", "pass": 1}`},
		{name: "usage badly typed", cases: `{"id": "a", "usage": {"input_tokens": "3"}}`},
		{name: "tag value a number", cases: `{"id": "a", "tags": {"k": 1}}`},
		{name: "check kind a number", cases: `{"id": "a", "checks": [{"kind": 1, "pass": true}]}`},
		{name: "check detail a number", cases: `{"id": "a", "checks": [{"kind": "x", "pass": true, "detail": 1}]}`},
		{name: "case without id", cases: `{"trial": 1}`},
		{name: "case twice", cases: `{"id": "a"}, {"id": "a"}`},
		{name: "field not read badly typed", cases: `{"id": "a", "stages": "x"}`, readAnyway: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			doc := `{` + streamHead + `, "cases": [` + tc.cases + `]}`
			if err := os.WriteFile(filepath.Join(dir, store.RunFile), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := sameFactsAsLoadRun(t, dir); got != tc.readAnyway {
				t.Errorf("read a record LoadRun refuses = %v, want %v", got, tc.readAnyway)
			}
		})
	}
}

// FuzzStreamRunFacts: StreamRunFacts gives LoadRun's head and the facts
// of its cases, or LoadRun's error, for any bytes in run.json; never a
// panic.
func FuzzStreamRunFacts(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte(`{` + streamHead + `, "cases": [{"id": "a", "trial": 1, "pass": true, "checks": [{"kind": "refusal", "pass": true}], "metrics": {"mrr": 0.5}, "tags": {"lang": "de"}, "latency_ms": 3, "usage": {"input_tokens": 1, "output_tokens": 2}, "hash": "x"}, {"id": "b", "error": {"class": "http"}}]}`))
	f.Add([]byte(`{` + streamHead + `, "cases": [{"ID": "a", "id": "b", "metrics": {"m\u0072r": 1e400}}]}`))
	f.Add([]byte(strings.Replace(goodRun, `"q1"`, "\"q\xff\"", 1)))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), store.RunFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		sameFactsAsLoadRun(t, path)
	})
}

// benchRecord writes a run.json of n cases shaped as a retrieval run's
// (the form bench/compare10k writes), laid out as the store writes it (a
// case a line), and returns its path.
func benchRecord(b *testing.B, n int) string {
	var sb strings.Builder
	sb.WriteString("{\n  " + streamHead + ",\n  \"cases\": [\n")
	for i := range n {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, `    {"id":"q%06d","trial":0,"pass":%t,"error":null,"checks":[{"kind":"retrieves","pass":%t}],"metrics":{"hit@5":1,"map":0.2441552050762031,"mrr":0.3333333333333333,"ndcg@10":0.27128356119578123,"recall@10":1,"recall@5":1},"latency_ms":87.82429062220707,"retrieved":10,"citations":1,"refused":false,"tags":{"lang":"de"}}`, i, i%3 != 0, i%3 != 0)
	}
	sb.WriteString("\n  ]\n}\n")
	path := filepath.Join(b.TempDir(), store.RunFile)
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkStreamRun100k and BenchmarkStreamRunFacts100k read the same
// 100,000-case record: every case decoded whole, and only the fields a
// comparison reads.
func BenchmarkStreamRun100k(b *testing.B)      { benchStream(b, store.StreamRun) }
func BenchmarkStreamRunFacts100k(b *testing.B) { benchStream(b, store.StreamRunFacts) }

func benchStream(b *testing.B, read func(string, func(*assay.CaseResult), func()) (*assay.Run, error)) {
	path := benchRecord(b, 100_000)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := read(path, func(*assay.CaseResult) { n++ }, func() {}); err != nil || n != 100_000 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkReadRunCaseFacts100k reads the cases of the same record as
// StreamRunFacts, a line at a time.
func BenchmarkReadRunCaseFacts100k(b *testing.B) {
	path := benchRecord(b, 100_000)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := store.ReadRunCaseFacts(path, func(*assay.CaseResult) error { n++; return nil }); err != nil || n != 100_000 {
			b.Fatal(n, err)
		}
	}
}
