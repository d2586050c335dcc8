package grade

import (
	"strconv"
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
