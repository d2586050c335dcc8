package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// caseFactsLikeStream fails t unless ReadRunCaseFacts of path gives the
// facts StreamRunFacts gives of the same record, in order, whenever both
// read it; it reports whether ReadRunCaseFacts read it.
func caseFactsLikeStream(t *testing.T, path string) bool {
	t.Helper()
	var got, want []assay.CaseResult
	err := store.ReadRunCaseFacts(path, func(r *assay.CaseResult) error {
		got = append(got, factsOf(*r))
		return nil
	})
	if err != nil && !strings.HasPrefix(err.Error(), path) {
		t.Errorf("error does not name the file: %v", err)
	}
	_, serr := store.StreamRunFacts(path, func(r *assay.CaseResult) { want = append(want, factsOf(*r)) }, func() { want = nil })
	if err == nil && serr == nil {
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("cases:\n%s\nStreamRunFacts reads\n%s", g, w)
		}
	}
	return err == nil
}

func TestReadRunCaseFactsReadsWhatStreamRunFactsReads(t *testing.T) {
	t.Parallel()
	cases := []string{
		`{"id": "a", "trial": 2, "pass": false, "checks": [{"kind": "answer_includes", "pass": false, "detail": "missing \"x\""}], "metrics": {"mrr": 0.5}, "latency_ms": 12.5, "tags": {"lang": "de"}, "retrieved": 10}`,
		`{"id": "b", "error": {"class": "timeout", "message": "slow"}, "tags": {"lang": "en"}}`,
		`{"id": "c", "pass": true, "metrics": {"m\u0072r": 1}, "usage": {"input_tokens": 3, "cost_usd": 0.01}}`,
	}
	for name, doc := range map[string]string{
		// a case a line, as the store writes a run.json
		"store layout": "{\n  " + streamHead + ",\n  \"cases\": [\n    " + strings.Join(cases, ",\n    ") + "\n  ]\n}\n",
		// the indented output of --json, read with a decoder
		"indented": "{\n  " + streamHead + ",\n  \"cases\": [\n    {\n      \"id\": \"a\"\n    },\n" + strings.Join(cases, ",\n") + "\n  ]\n}\n",
	} {
		path := filepath.Join(t.TempDir(), store.RunFile)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if !caseFactsLikeStream(t, path) {
			t.Errorf("%s: not read", name)
		}
		n := 0
		if err := store.ReadRunCaseFacts(path, func(*assay.CaseResult) error { n++; return store.ErrStop }); err != nil || n != 1 {
			t.Errorf("%s: ErrStop: read %d cases, err %v", name, n, err)
		}
	}
	broken := "{\n  " + streamHead + ",\n  \"cases\": [\n    " + cases[0] + ",\n    {\"id\": \"b\", \"trial\": \"x\"}\n  ]\n}\n"
	path := filepath.Join(t.TempDir(), store.RunFile)
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	err := store.ReadRunCaseFacts(path, func(*assay.CaseResult) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), "case 2") {
		t.Errorf("a badly typed trial: err %v, want one naming the file and case 2", err)
	}
}

// FuzzReadRunCaseFacts: ReadRunCaseFacts gives StreamRunFacts' facts of
// any record both read, and an error naming the file otherwise; never a
// panic.
func FuzzReadRunCaseFacts(f *testing.F) {
	f.Add([]byte(goodRun))
	f.Add([]byte("{\n  " + streamHead + ",\n  \"cases\": [\n    {\"id\": \"a\", \"checks\": [{\"kind\": \"x\", \"pass\": false, \"detail\": \"m \\\"y\\\"\"}], \"tags\": {\"k\": \"v\"}},\n    {\"id\": \"b\", \"error\": {\"class\": \"http\"}}\n  ]\n}\n"))
	f.Add([]byte("{\n  \"cases\": [\n    {\"id\":\"a\"\n  ]\n}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, store.RunFile)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		caseFactsLikeStream(t, path)
	})
}
