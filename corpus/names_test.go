package corpus

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestNamesObservationResolvesTitlesAndPaths(t *testing.T) {
	x := NewNames([]assay.Document{
		{ID: "kiln.md", Path: "docs/kiln.md", Title: "Kiln firing"},
		{ID: "glaze.md", Title: "Glaze"},
		{ID: "glaze2.md", Title: "Glaze"},
		{ID: "Clay", Title: "Wedging"}, // an id that is no other's title
	})
	hits := []assay.Hit{{ID: "Kiln firing"}, {ID: "docs/kiln.md"}, {ID: "Clay"}, {ID: "elsewhere"}}
	obs := assay.Observation{Retrieved: hits, Citations: []assay.Citation{{ID: "Kiln firing"}}}
	got, err := x.Observation(&obs)
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].ID != "Kiln firing" {
		t.Error("the caller's slice was changed")
	}
	ids := []string{}
	for _, h := range obs.Retrieved {
		ids = append(ids, h.ID)
	}
	if strings.Join(ids, " ") != "kiln.md kiln.md Clay elsewhere" {
		t.Errorf("ranking %v", ids)
	}
	if h := obs.Retrieved[0]; h.Title != "Kiln firing" || h.Path != "docs/kiln.md" {
		t.Errorf("a resolved hit gains the document's names: %+v", h)
	}
	if c := obs.Citations[0]; c.ID != "kiln.md" || c.Title != "Kiln firing" {
		t.Errorf("citation %+v", c)
	}
	if len(got) != 2 || got[0] != (Resolved{"Kiln firing", "kiln.md"}) || got[1] != (Resolved{"docs/kiln.md", "kiln.md"}) {
		t.Errorf("resolved %+v", got)
	}

	amb := assay.Observation{Retrieved: []assay.Hit{{ID: "kiln.md"}, {ID: "Glaze"}}}
	_, err = x.Observation(&amb)
	if err == nil || err.Error() != `retrieved document 2: "Glaze" names 2 documents of the corpus ("glaze.md", "glaze2.md")` {
		t.Errorf("ambiguous: %v", err)
	}
	if amb.Retrieved[0].ID != "kiln.md" || amb.Retrieved[1].ID != "Glaze" {
		t.Errorf("an error leaves the observation as it was: %+v", amb.Retrieved)
	}
	var none *Names
	if r, err := none.Observation(&amb); r != nil || err != nil {
		t.Errorf("nil Names: %v %v", r, err)
	}
}
