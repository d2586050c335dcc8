package assay

import (
	"reflect"
	"testing"
)

func TestRankingKeepsFirstPositionAndKeysByIDPathTitle(t *testing.T) {
	o := Observation{Retrieved: []Hit{{ID: "a"}, {Path: "docs/b.md"}, {ID: "a"}, {Title: "C"}, {}, {}, {Path: "docs/b.md"}}}
	want := []string{"a", "docs/b.md", "C", "", ""}
	if got := o.Ranking(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Ranking() = %q, want %q", got, want)
	}
}
