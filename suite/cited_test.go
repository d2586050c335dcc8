package suite

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCitedFields: cited and cited_any load into the expectation, an empty
// item in them is an error like in every list, and lint checks their
// references against the corpus as it does for cites and cites_any.
func TestCitedFields(t *testing.T) {
	dir := writeFiles(t, map[string]string{"s.yaml": `assay: 1
corpus:
  - {id: pricing, title: Pricing FAQ, text: "Plans cost money."}
  - {id: security, text: "Tokens are hashed."}
cases:
  - id: ok
    query: how much?
    expect: {cited: [pricing], cited_any: [security, Pricing FAQ]}
  - id: missing
    query: how safe?
    expect: {cited: [nope], cited_any: [gone, security]}
  - id: all-missing
    query: how?
    expect: {cited_any: [gone, lost], no_citations: true}
`})
	s, err := Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e := s.Cases[0].Expect
	if !reflect.DeepEqual(e.Cited, []string{"pricing"}) || !reflect.DeepEqual(e.CitedAny, []string{"security", "Pricing FAQ"}) || e.Empty() {
		t.Errorf("expect = %+v", e)
	}
	got := lintText(t, filepath.Join(dir, "s.yaml"))
	for _, want := range []string{
		`s.yaml:11: error: case "missing": cited: no document "nope" in the corpus (matched by id, path or title)`,
		`s.yaml:11: warning: case "missing": cited_any: no document "gone" in the corpus (matched by id, path or title)`,
		`s.yaml:14: error: case "all-missing": cited_any: no document "gone", "lost" in the corpus (matched by id, path or title)`,
		`case "all-missing": no_citations contradicts cited/cited_any`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lint lacks %q; got:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"ok"`) {
		t.Errorf("lint flags the valid case:\n%s", got)
	}

	dir = writeFiles(t, map[string]string{"s.yaml": "assay: 1\ncases:\n  - id: a\n    query: q\n    expect: {cited: [\"\"]}\n"})
	if _, err := Load(filepath.Join(dir, "s.yaml")); err == nil || !strings.Contains(err.Error(), "cited") {
		t.Errorf("an empty cited item loads: %v", err)
	}
}
