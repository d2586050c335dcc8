package suite_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay/suite"
)

// Load recognises a foreign golden set by its shape and resolves it like a
// native suite: here a Knowlex golden_qa.json with an inline corpus and
// thresholds.
func ExampleLoad_knowlex() {
	s, err := suite.Load(filepath.Join("testdata", "formats", "knowlex", "golden.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Format, len(s.Cases), "cases,", len(s.Corpus), "documents from", s.CorpusSource)
	for _, g := range s.Gates {
		fmt.Println("gate:", g.Expr)
	}
	c := s.Cases[0]
	fmt.Println(c.ID, c.Tags["category"], c.Expect.AnswerIncludes, c.Expect.Retrieves)
	// Output:
	// knowlex 3 cases, 2 documents from inline
	// gate: pass_rate >= 0.5
	// gate: p95_latency_ms <= 2500
	// s01 factual [21] [Studio hours]
}

// A BEIR directory is a suite of its judged test queries, with k 1000 and
// recall at depth 100 and 1000.
func ExampleLoadWith_beir() {
	s, err := suite.LoadWith(filepath.Join("testdata", "formats", "beir"), suite.LoadOptions{Split: "test"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Format, "k", s.Defaults.K, s.Metrics[len(s.Metrics)-2:])
	for _, c := range s.Cases {
		fmt.Println(c.ID, c.Query, c.Judgments)
	}
	// Output:
	// beir beir k 1000 [recall@100 recall@1000]
	// q1 pots reduced in sawdust after leaving the kiln map[d1:1]
	// q3 vapour glazing with salt map[d1:0 d3:2]
}

// WriteNative prints the native equivalent of a loaded suite.
func ExampleWriteNative() {
	s, err := suite.LoadFormat(suite.FormatKebab, filepath.Join("testdata", "formats", "kebab", "golden.yaml"), suite.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.Cases = s.Cases[:1]
	if err := suite.WriteNative(os.Stdout, s, suite.ExportOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// assay: 1
	// name: golden
	// cases:
	//   - id: p1
	//     query: How do I wedge clay?
	//     tags: {difficulty: easy, group: wedging, lang: en}
	//     relevant: [wedging.md]
	//     expect:
	//       answer_includes: ["Ram's head", spiral]
	//       answer_excludes: [microwave]
	//       case_sensitive: true
}

// A CSV golden set with the columns named by a mapping (the --map of
// `assay import csv`): multi-valued cells are split on ";".
func ExampleLoadFormat_csv() {
	m, err := suite.ParseMap("query=question,expect.answer_includes=answer,tags.category=category")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := suite.LoadFormat(suite.FormatCSV, filepath.Join("testdata", "import", "golden.csv"), suite.LoadOptions{Map: m})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Cases {
		fmt.Println(c.ID, c.Tags["category"], c.Expect.AnswerIncludes, c.Source)
	}
	// Output:
	// vault-hash security [SHA-256 salt] testdata/import/golden.csv:2
	// billing-owner org [team-billing] testdata/import/golden.csv:3
}
