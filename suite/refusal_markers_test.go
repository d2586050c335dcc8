package suite

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// TestRefusalMarkersField: refusal_markers names a built-in set (a scalar
// "de"), or lists markers (a list, even of one name, is literal); left out
// it stays nil, so each case is judged by its tags.lang's set.
func TestRefusalMarkersField(t *testing.T) {
	de, _ := assay.RefusalMarkerSet("de")
	for name, tc := range map[string]struct {
		field string
		want  []string
	}{
		"named set":             {"refusal_markers: de\n", de},
		"named set, upper case": {"refusal_markers: DE\n", de},
		"list":                  {"refusal_markers: [de]\n", []string{"de"}},
		"custom list":           {"refusal_markers: [keine ahnung]\n", []string{"keine ahnung"}},
		"left out":              {"", nil},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"s.yaml": "assay: 1\n" + tc.field + "cases:\n  - {id: a, query: q, expect: {refusal: true}}\n"})
			s, err := Load(filepath.Join(dir, "s.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.RefusalMarkers, tc.want) {
				t.Errorf("RefusalMarkers = %q, want %q", s.RefusalMarkers, tc.want)
			}
		})
	}
}

// TestLintRefusalLanguage: lint warns when a case tagged with another
// language expects a refusal that the English markers judge.
func TestLintRefusalLanguage(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"auto.yaml": "assay: 1\ncases:\n" +
			"  - {id: ko, query: q, tags: {lang: ko}, expect: {refusal: true}}\n" +
			"  - {id: de, query: q, tags: {lang: de}, expect: {refusal: true}}\n" +
			"  - {id: en, query: q, tags: {lang: en-GB}, expect: {refusal: true}}\n",
		"english.yaml": "assay: 1\nrefusal_markers: en\ncases:\n" +
			"  - {id: de, query: q, tags: {lang: de}, expect: {refusal: true}}\n" +
			"  - {id: fr, query: q, tags: {lang: fr}, expect: {refusal: false}}\n",
		"german.yaml": "assay: 1\nrefusal_markers: de\ncases:\n" +
			"  - {id: de, query: q, tags: {lang: de}, expect: {refusal: true}}\n",
	})
	for file, want := range map[string][]string{
		"auto.yaml":    {`case "ko" is tagged lang=ko but its refusal is judged by the English refusal markers`},
		"english.yaml": {`case "de" is tagged lang=de but its refusal is judged by the English refusal markers`},
		"german.yaml":  nil,
	} {
		fs, err := Lint(filepath.Join(dir, file), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fs {
			if strings.Contains(f.Message, "refusal markers") {
				got = append(got, f.Message)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: findings %q, want %d like %q", file, got, len(want), want)
			continue
		}
		for i := range want {
			if !strings.HasPrefix(got[i], want[i]) {
				t.Errorf("%s: finding %q, want %q...", file, got[i], want[i])
			}
		}
	}
}
