package grade_test

import (
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

func ExampleCase() {
	s := &assay.Suite{Metrics: []string{"hit@1", "mrr"}}
	opts, err := grade.NewOptions(s)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := assay.Case{
		ID:        "q001",
		Judgments: map[string]int{"security.md": 1},
		Expect: assay.Expect{
			AnswerIncludes: []string{"sha-256"},
			Cites:          []string{"security.md", "d9"},
		},
	}
	obs := assay.Observation{
		Retrieved: []assay.Hit{{ID: "intro.md"}, {ID: "security.md"}},
		Answer:    "Tokens are hashed with SHA-256.",
		Citations: []assay.Citation{{ID: "security.md"}, {ID: "d9"}},
	}
	r := grade.Case(c, obs, opts)
	fmt.Println("pass:", *r.Pass)
	for _, ch := range r.Checks {
		if ch.Pass {
			fmt.Println(ch.Kind, "pass")
		} else {
			fmt.Println(ch.Kind, "fail:", ch.Detail)
		}
	}
	fmt.Println("hit@1:", r.Metrics["hit@1"], "mrr:", r.Metrics["mrr"])
	// Output:
	// pass: false
	// answer_includes pass
	// cites fail: unsurfaced d9
	// hit@1: 0 mrr: 0.5
}

func ExampleRetrieves() {
	obs := assay.Observation{Retrieved: []assay.Hit{{ID: "a"}, {ID: "a"}, {ID: "b"}, {ID: "c", Path: "docs/c.md"}}}
	fmt.Println(grade.Retrieves(obs, []string{"b"}, 2))
	fmt.Println(grade.Retrieves(obs, []string{"docs/c.md", "z"}, 2))
	// Output:
	// {retrieves true }
	// {retrieves false missing docs/c.md from top 2 (rank 3); missing z from top 2}
}

// MatchNugget decides how far a text supports a nugget: here the answer
// states one of the two parts, so the nugget is partially supported.
func ExampleMatchNugget() {
	n := assay.Nugget{Text: "tokens are salted and hashed with SHA-256", Parts: [][]string{{"sha-256", "sha256"}, {"salted"}}}
	m := grade.MatchNugget("Tokens are hashed with SHA256.", n, false)
	fmt.Println(m.Assignment, m.Matched, m.At, m.Missing)
	// Output: partial_support [sha256] 23 [salted]
}

func ExampleAttribute() {
	obs := assay.Observation{
		Retrieved: []assay.Hit{
			{ID: "sec", Text: "Invitation tokens are hashed with SHA-256 before they are stored."},
			{ID: "exp", Text: "An invitation expires after seven days."},
		},
		Answer: "Tokens are hashed with SHA-256 [1]. They never expire [2]. Ask an admin.",
	}
	a, m := grade.Attribute(obs, "en", nil)
	for _, s := range a.Sentences {
		fmt.Printf("%-11s %s %v\n", s.Label, s.Text, s.Cites)
	}
	fmt.Printf("support_rate %.2f, citation_precision %.2f, citation_recall %.2f\n",
		m[assay.MetricSupportRate], m[assay.MetricCitationPrecision], m[assay.MetricCitationRecall])
	// Output:
	// supported   Tokens are hashed with SHA-256. [sec]
	// unsupported They never expire. [exp]
	// uncited     Ask an admin. []
	// support_rate 0.50, citation_precision 0.50, citation_recall 0.33
}
