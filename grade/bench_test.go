package grade

import (
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// BenchmarkCase grades one observation with 20 hits, 3 citations, a tool
// call and every expectation kind stated, with the six default metrics.
func BenchmarkCase(b *testing.B) {
	o, err := NewOptions(&assay.Suite{})
	if err != nil {
		b.Fatal(err)
	}
	if err := o.Schemas.Add("inline.json", []byte(`{"type": "string"}`)); err != nil {
		b.Fatal(err)
	}
	c := kitchenSink()
	c.Judgments = map[string]int{}
	obs := assay.Observation{
		Answer:    `"Tokens are hashed with SHA-256 and a salt; see the security guide for the rotation policy."`,
		Citations: []assay.Citation{{ID: "d3"}, {ID: "d7"}, {Path: "docs/d11.md"}},
		Tools:     []assay.ToolCall{{Name: "search"}},
		Outcome:   "completed", LatencyMs: ptr(42.0),
	}
	for i := range 20 {
		id := "d" + strconv.Itoa(i)
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: id, Path: "docs/" + id + ".md", Title: "Doc " + id})
		if i%4 == 0 {
			c.Judgments[id] = i%3 + 1
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Case(c, obs, o)
	}
}

// BenchmarkAnswerIncludesLong runs the three case-insensitive substring
// checks over a 64 KiB answer with 20 expected strings: the cost of
// folding the answer once per check.
func BenchmarkAnswerIncludesLong(b *testing.B) {
	answer := strings.Repeat("Tokens are hashed with SHA-256 and a salt. Straße, ΣΊΣΥΦΟΣ. ", 64<<10/64)
	want := make([]string, 20)
	for i := range want {
		want[i] = "absent phrase " + strconv.Itoa(i)
	}
	b.SetBytes(int64(len(answer)))
	b.ReportAllocs()
	for b.Loop() {
		AnswerIncludes(answer, want, false)
		AnswerIncludesAny(answer, want, false)
		AnswerExcludes(answer, want, false)
	}
}

// BenchmarkCaseHash hashes the kitchen-sink case: the cost every result
// pays for compare's pairing.
func BenchmarkCaseHash(b *testing.B) {
	o, err := NewOptions(&assay.Suite{})
	if err != nil {
		b.Fatal(err)
	}
	c := kitchenSink()
	b.ReportAllocs()
	for b.Loop() {
		CaseHash(c, o)
	}
}

// BenchmarkAttribute: a ten-sentence answer citing the ranking by markers,
// English passages of a few hundred words.
func BenchmarkAttribute(b *testing.B) {
	passage := strings.Repeat("Invitation tokens are hashed with SHA-256 before they are stored in the database. ", 20)
	obs := assay.Observation{}
	for i := 0; i < 10; i++ {
		obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: "d" + strconv.Itoa(i), Text: passage})
	}
	var ans strings.Builder
	for i := 0; i < 10; i++ {
		ans.WriteString("Tokens are hashed with SHA-256 before storage [" + strconv.Itoa(i+1) + "]. ")
	}
	obs.Answer = ans.String()
	b.ReportAllocs()
	for b.Loop() {
		Attribute(obs, "en", nil)
	}
}
