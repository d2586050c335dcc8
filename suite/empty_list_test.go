package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyExpectationListIsAnError: an expectation list given as [] is a
// positioned load error, whichever list it is and whether or not the case
// states other expectations; a null list is no expectation, as before.
func TestEmptyExpectationListIsAnError(t *testing.T) {
	for _, key := range []string{"answer_includes", "answer_includes_any", "answer_excludes", "retrieves", "cites", "cites_any", "cited", "cited_any", "calls_tool", "never_calls"} {
		t.Run(key, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.yaml": "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      answer_matches: x\n      " + key + ": []\n"})
			_, err := Load(filepath.Join(dir, "s.yaml"))
			want := "s.yaml:7:"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), key+": an empty list checks nothing: give at least one value, or remove "+key) {
				t.Errorf("Load = %v, want a %s error at %s", err, key, want)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"s.json": `{"assay": 1, "cases": [{"id": "a", "query": "q", "expect": {"answer_includes_any": []}}]}`})
		if _, err := Load(filepath.Join(dir, "s.json")); err == nil || !strings.Contains(err.Error(), "answer_includes_any: an empty list checks nothing") {
			t.Errorf("Load = %v, want the empty-list error", err)
		}
	})
	t.Run("null is no expectation", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"s.yaml": "assay: 1\ncases:\n  - id: a\n    query: q\n    expect: {answer_matches: x, cites_any: null}\n"})
		s, err := Load(filepath.Join(dir, "s.yaml"))
		if err != nil || s.Cases[0].Expect.CitesAny != nil {
			t.Errorf("Load = %v, %v", s, err)
		}
	})
}
