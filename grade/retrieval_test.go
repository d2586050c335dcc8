package grade

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/assay-eval/assay"
)

func hits(ids ...string) []assay.Hit {
	out := make([]assay.Hit, len(ids))
	for i, id := range ids {
		out[i] = assay.Hit{ID: id}
	}
	return out
}

func cits(ids ...string) []assay.Citation {
	out := make([]assay.Citation, len(ids))
	for i, id := range ids {
		out[i] = assay.Citation{ID: id}
	}
	return out
}

func TestRetrieves(t *testing.T) {
	t.Parallel()
	sec := assay.Hit{ID: "d1", Title: "Security", Path: "docs/security.md"}
	tests := []struct {
		name   string
		hits   []assay.Hit
		want   []string
		k      int
		pass   bool
		detail string
	}{
		{"by id in top k", hits("a", "b", "c"), []string{"b"}, 2, true, ""},
		{"by path", []assay.Hit{{ID: "x"}, sec}, []string{"docs/security.md"}, 10, true, ""},
		{"by title", []assay.Hit{sec}, []string{"Security"}, 1, true, ""},
		{"below cutoff names rank", hits("a", "b", "c", "d", "e"), []string{"e"}, 3, false, "missing e from top 3 (rank 5)"},
		{"not retrieved", hits("a"), []string{"security.md"}, 10, false, "missing security.md from top 10"},
		{"empty ranking", nil, []string{"a"}, 5, false, "missing a from top 5"},
		{"title with space quoted", nil, []string{"Getting Started"}, 5, false, `missing "Getting Started" from top 5`},
		// a repeated id keeps its first position: c is at rank 3, not 4
		{"duplicates collapse", hits("a", "a", "b", "c"), []string{"c"}, 3, true, ""},
		{"duplicate still beyond", hits("a", "b", "a", "c"), []string{"c"}, 2, false, "missing c from top 2 (rank 3)"},
		{"k zero means default 10", hits("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"), []string{"10"}, 0, true, ""},
		{"k zero default excludes 11", hits("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"), []string{"11"}, 0, false, "missing 11 from top 10 (rank 11)"},
		{"two facts", hits("a"), []string{"a", "b", "c"}, 1, false, "missing b from top 1; missing c from top 1"},
		// hits without an id are ranked by path (else title), never dropped as
		// repeats of the first id-less hit
		{"id-less hits keep their rank", []assay.Hit{{Path: "a.md"}, {Path: "b.md"}, {Title: "C"}}, []string{"b.md", "C"}, 3, true, ""},
		{"id-less repeat by path collapses", []assay.Hit{{Path: "a.md"}, {ID: "a.md"}, {Path: "b.md"}}, []string{"b.md"}, 2, true, ""},
		{"hit with nothing keeps a rank", []assay.Hit{{}, {}, {ID: "c"}}, []string{"c"}, 2, false, "missing c from top 2 (rank 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := assay.Observation{Retrieved: tt.hits}
			checkEq(t, Retrieves(obs, tt.want, tt.k), "retrieves", tt.pass, tt.detail)
		})
	}
}

func TestRanking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		hits []assay.Hit
		want []string
	}{
		{"empty", nil, []string{}},
		{"ids, repeat keeps first position", hits("a", "b", "a", "c"), []string{"a", "b", "c"}},
		{"id, else path, else title", []assay.Hit{{ID: "a", Path: "p"}, {Path: "q.md", Title: "Q"}, {Title: "R"}}, []string{"a", "q.md", "R"}},
		{"path repeat of an id", []assay.Hit{{ID: "a.md"}, {Path: "a.md"}, {Path: "b.md"}}, []string{"a.md", "b.md"}},
		{"hits with nothing are never repeats", []assay.Hit{{}, {ID: "x"}, {}}, []string{"", "x", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Ranking(assay.Observation{Retrieved: tt.hits})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Ranking = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSurfaced(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{Retrieved: []assay.Hit{{ID: "a.md", Path: "docs/a.md", Title: "Alpha"}, {ID: "b.md"}, {Path: "docs/c.md"}}}
	tests := []struct {
		c    assay.Citation
		want bool
	}{
		{assay.Citation{ID: "a.md"}, true},
		{assay.Citation{Path: "docs/a.md"}, true},
		{assay.Citation{Title: "Alpha"}, true},
		{assay.Citation{Path: "a.md"}, true}, // without an id, fields cross: path against id
		// with an id, only the id: another document's title or path
		// never surfaces it (it was never retrieved)
		{assay.Citation{ID: "zz", Title: "Alpha"}, false},
		{assay.Citation{ID: "zz", Path: "docs/a.md"}, false},
		{assay.Citation{ID: "docs/a.md"}, false}, // an id is not a path
		{assay.Citation{ID: "docs/c.md"}, true},  // the id of a hit with only a path is its path (HitID)
		{assay.Citation{ID: "b.md"}, true},
		{assay.Citation{ID: "c.md"}, false},
		{assay.Citation{}, false}, // empty fields match nothing, even an empty title
	}
	for _, tt := range tests {
		if got := Surfaced(obs, tt.c); got != tt.want {
			t.Errorf("Surfaced(%+v) = %v, want %v", tt.c, got, tt.want)
		}
	}
}

func TestCites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    assay.Observation
		want   []string
		pass   bool
		detail string
	}{
		{"cited and surfaced", assay.Observation{Retrieved: hits("d1"), Citations: cits("d1")}, []string{"d1"}, true, ""},
		{"match by citation title", assay.Observation{
			Retrieved: []assay.Hit{{ID: "d1", Title: "Security"}},
			Citations: []assay.Citation{{ID: "d1", Title: "Security"}},
		}, []string{"Security"}, true, ""},
		{"match by citation path", assay.Observation{
			Retrieved: []assay.Hit{{ID: "d1", Path: "docs/s.md"}},
			Citations: []assay.Citation{{Path: "docs/s.md"}},
		}, []string{"docs/s.md"}, true, ""},
		{"cited not surfaced", assay.Observation{Retrieved: hits("d1"), Citations: cits("d1", "d9")}, []string{"d9"}, false, "unsurfaced d9"},
		{"not cited", assay.Observation{Retrieved: hits("d1"), Citations: cits("d1")}, []string{"d3", "d4"}, false, "not cited d3, d4"},
		{"both facts", assay.Observation{Retrieved: hits("d1"), Citations: cits("d9")}, []string{"d1", "d9", "d3"}, false, "unsurfaced d9; not cited d1, d3"},
		{"one of two matching citations surfaced", assay.Observation{
			Retrieved: []assay.Hit{{ID: "d2", Title: "T"}},
			Citations: []assay.Citation{{ID: "x", Title: "T"}, {ID: "d2", Title: "T"}},
		}, []string{"T"}, true, ""},
		{"no citations", assay.Observation{Retrieved: hits("d1")}, []string{"d1"}, false, "not cited d1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, Cites(tt.obs, tt.want), "cites", tt.pass, tt.detail)
		})
	}
}

func TestCitesAny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    assay.Observation
		want   []string
		pass   bool
		detail string
	}{
		{"one surfaced", assay.Observation{Retrieved: hits("b"), Citations: cits("b")}, []string{"a", "b"}, true, ""},
		{"none cited", assay.Observation{Retrieved: hits("a"), Citations: cits("c")}, []string{"a", "b"}, false, "none of a, b cited"},
		{"cited but unsurfaced", assay.Observation{Retrieved: hits("x"), Citations: cits("b")}, []string{"a", "b"}, false, "none of a, b cited and surfaced (unsurfaced b)"},
		{"empty list passes", assay.Observation{}, nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, CitesAny(tt.obs, tt.want), "cites_any", tt.pass, tt.detail)
		})
	}
}

func TestCitesOnlySurfaced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		obs    assay.Observation
		pass   bool
		detail string
	}{
		{"all surfaced", assay.Observation{Retrieved: hits("a", "b"), Citations: cits("b", "a")}, true, ""},
		{"no citations", assay.Observation{Retrieved: hits("a")}, true, ""},
		{"one unsurfaced by path", assay.Observation{
			Retrieved: hits("a"),
			Citations: []assay.Citation{{ID: "a"}, {Path: "docs/x.md"}},
		}, false, "unsurfaced docs/x.md"},
		{"nothing retrieved", assay.Observation{Citations: cits("a", "b")}, false, "unsurfaced a, b"},
		{"empty citation named by position", assay.Observation{Retrieved: hits("a"), Citations: []assay.Citation{{ID: "a"}, {Quote: "q"}}}, false, "unsurfaced citation 2"},
		{"title with comma quoted", assay.Observation{Citations: []assay.Citation{{Title: "Hash, salt"}}}, false, `unsurfaced "Hash, salt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, CitesOnlySurfaced(tt.obs), "cites_only_surfaced", tt.pass, tt.detail)
		})
	}
}

func TestNoCitations(t *testing.T) {
	t.Parallel()
	checkEq(t, NoCitations(assay.Observation{Retrieved: hits("a")}), "no_citations", true, "")
	checkEq(t, NoCitations(assay.Observation{Citations: cits("a", "b")}), "no_citations", false, "cited a, b")
	checkEq(t, NoCitations(assay.Observation{Citations: []assay.Citation{{Title: "Intro"}}}), "no_citations", false, "cited Intro")
}

// BenchmarkCitesOnlySurfacedLarge: 20,000 citations against 200,000
// retrieved documents (the surfaced set is built once: linear, not
// quadratic).
func BenchmarkCitesOnlySurfacedLarge(b *testing.B) {
	obs := assay.Observation{}
	for i := range 200000 {
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: "d" + strconv.Itoa(i), Path: "p/" + strconv.Itoa(i)})
	}
	for i := range 20000 {
		obs.Citations = append(obs.Citations, assay.Citation{Path: "p/" + strconv.Itoa(i*10)})
	}
	for b.Loop() {
		if c := CitesOnlySurfaced(obs); !c.Pass {
			b.Fatal(c.Detail)
		}
	}
}

// A citation of a document that was never retrieved is not trusted because
// a retrieved document shares its title: with an id it is surfaced only by
// that id, for cites, cites_any and cites_only_surfaced alike.
func TestCitationByIDIsNotSurfacedBySharedTitle(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{
		Retrieved: []assay.Hit{{ID: "faq-2023.md", Title: "Pricing FAQ"}},
		Citations: []assay.Citation{{ID: "faq-2025.md", Title: "Pricing FAQ"}},
	}
	if c := Cites(obs, []string{"faq-2025.md"}); c.Pass || c.Detail != "unsurfaced faq-2025.md" {
		t.Errorf("cites = %+v, want unsurfaced faq-2025.md", c)
	}
	if c := CitesAny(obs, []string{"faq-2025.md"}); c.Pass {
		t.Errorf("cites_any = %+v, want a failure", c)
	}
	if c := CitesOnlySurfaced(obs); c.Pass || c.Detail != "unsurfaced faq-2025.md" {
		t.Errorf("cites_only_surfaced = %+v, want unsurfaced faq-2025.md", c)
	}
	// Cited by title alone, the citation is as good as its title.
	obs.Citations = []assay.Citation{{Title: "Pricing FAQ"}}
	if c := CitesOnlySurfaced(obs); !c.Pass {
		t.Errorf("title-only citation: %+v, want surfaced", c)
	}
}

// TestCitedDoesNotRequireSurfacing: cited and cited_any pass on a citation
// the ranking does not hold (where cites fails with "unsurfaced"), and fail
// only on what the answer does not cite.
func TestCitedDoesNotRequireSurfacing(t *testing.T) {
	t.Parallel()
	unsurfaced := assay.Observation{Retrieved: hits("x"), Citations: cits("d9")}
	noRanking := assay.Observation{Citations: []assay.Citation{{Title: "Pricing FAQ"}}}
	tests := []struct {
		name   string
		check  func() assay.Check
		kind   string
		pass   bool
		detail string
	}{
		{"cited unsurfaced passes", func() assay.Check { return Cited(unsurfaced, []string{"d9"}) }, "cited", true, ""},
		{"cites unsurfaced fails", func() assay.Check { return Cites(unsurfaced, []string{"d9"}) }, "cites", false, "unsurfaced d9"},
		{"cited without a ranking, by title", func() assay.Check { return Cited(noRanking, []string{"Pricing FAQ"}) }, "cited", true, ""},
		{"cited names what is not cited", func() assay.Check { return Cited(unsurfaced, []string{"d9", "d3", "d4"}) }, "cited", false, "not cited d3, d4"},
		{"cited with no citations", func() assay.Check { return Cited(assay.Observation{Retrieved: hits("d1")}, []string{"d1"}) }, "cited", false, "not cited d1"},
		{"cited_any unsurfaced passes", func() assay.Check { return CitedAny(unsurfaced, []string{"a", "d9"}) }, "cited_any", true, ""},
		{"cites_any unsurfaced fails", func() assay.Check { return CitesAny(unsurfaced, []string{"a", "d9"}) }, "cites_any", false, "none of a, d9 cited and surfaced (unsurfaced d9)"},
		{"cited_any none cited", func() assay.Check { return CitedAny(unsurfaced, []string{"a", "b"}) }, "cited_any", false, "none of a, b cited"},
		{"cited_any empty list passes", func() assay.Check { return CitedAny(assay.Observation{}, nil) }, "cited_any", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, tt.check(), tt.kind, tt.pass, tt.detail)
		})
	}
}
