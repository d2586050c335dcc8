package corpus

import (
	"slices"
	"testing"

	"github.com/assay-eval/assay"
)

func TestAnchored(t *testing.T) {
	x := NewNames([]assay.Document{
		{ID: "a", Text: "Fire the kiln slowly. Vent it well.\n\nCool it overnight."},
		{ID: "b", Text: "Cool it overnight."},
		{ID: "quote:Vent", Text: "an id that reads like an anchor"},
	})
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		{"quote:kiln   slowly. Vent", []string{"a"}},
		{"quote:Kiln slowly", nil}, // case-sensitive
		{"quote:Cool it overnight", []string{"a", "b"}},
		{"quote:Vent", nil}, // an id is that document, not an anchor
		{"quote:   ", nil},
		{PassageHash("Vent it well."), []string{"a"}},                       // a sentence
		{PassageHash(" Cool it\novernight. "), []string{"a", "b"}},          // a paragraph, squeezed
		{PassageHash("Fire the kiln slowly. Vent it well."), []string{"a"}}, // a paragraph
		{PassageHash("Vent it"), nil},                                       // not a whole passage
		{"sha256:abc", nil},                                                 // not 64 hex digits
		{"a", nil},
	} {
		if got := x.Anchored(tc.ref); !slices.Equal(got, tc.want) {
			t.Errorf("Anchored(%q) = %v, want %v", tc.ref, got, tc.want)
		}
	}
	// sha256sum of the squeezed text, computed outside Go.
	if h := PassageHash("  Cool it\tovernight before opening.\n"); h != "sha256:d71b8dac3c28678954f959706bb6b68d7857845d9411e05483781f537a5f8419" {
		t.Errorf("PassageHash = %q", h)
	}
}
