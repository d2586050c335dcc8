package grade

import (
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// FuzzCase grades arbitrary answers, patterns, rankings and citations: it
// must never panic, must be deterministic, and Pass must agree with the
// checks.
func FuzzCase(f *testing.F) {
	f.Add(`{"a": 1}`, `(?i)sha-?256`, "a,b,a,c", "a,zz", 12.5)
	f.Add("I cannot answer that", `(`, "", "", -1.0)
	f.Add("", `^$`, ",,", ",", 0.0)
	o, err := NewOptions(&assay.Suite{Metrics: []string{"ndcg@3", "mrr", "recall@2"}})
	if err != nil {
		f.Fatal(err)
	}
	if err := o.Schemas.Add("s.json", []byte(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`)); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, answer, pattern, hitIDs, citeIDs string, latency float64) {
		obs := assay.Observation{Answer: answer, LatencyMs: &latency}
		for _, id := range strings.Split(hitIDs, ",") {
			obs.Retrieved = append(obs.Retrieved, assay.Hit{ID: id, Title: strings.ToUpper(id)})
		}
		for _, id := range strings.Split(citeIDs, ",") {
			obs.Citations = append(obs.Citations, assay.Citation{ID: id})
		}
		c := assay.Case{ID: "f", K: 2, Judgments: map[string]int{"a": 1, "c": 2}, Expect: assay.Expect{
			AnswerIncludes: []string{answer}, AnswerIncludesAny: []string{pattern}, AnswerExcludes: []string{hitIDs},
			AnswerMatches: pattern, Retrieves: strings.Split(citeIDs, ","), Cites: strings.Split(hitIDs, ","),
			CitesAny: []string{citeIDs}, CitesOnlySurfaced: true, NoCitations: true, Refusal: new(bool),
			JSONSchema: "s.json", MaxLatencyMs: &latency,
		}}
		r := Case(c, obs, o)
		if !reflect.DeepEqual(r, Case(c, obs, o)) {
			t.Fatal("not deterministic")
		}
		all := true
		for _, ch := range r.Checks {
			all = all && ch.Pass
			if !ch.Pass && ch.Detail == "" {
				t.Fatalf("failed check without detail: %+v", ch)
			}
		}
		if r.Pass == nil || *r.Pass != all {
			t.Fatalf("pass %v disagrees with checks %+v", r.Pass, r.Checks)
		}
		if !r.Checks[0].Pass { // an answer always includes itself
			t.Fatalf("answer_includes of the answer itself failed: %+v", r.Checks[0])
		}
		for name, v := range r.Metrics {
			if v < 0 || v > 1 || v != v {
				t.Fatalf("%s = %v out of [0, 1]", name, v)
			}
		}
	})
}
