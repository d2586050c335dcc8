package suite_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/assay-eval/assay/suite"
)

func ExampleLoad() {
	s, err := suite.Load(filepath.Join("testdata", "kb", "suite.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Name, s.Format, len(s.Corpus), "documents")
	fmt.Println(s.Defaults.K, s.Metrics, s.Gain)
	for _, c := range s.Cases {
		fmt.Println(c.ID, c.Judgments)
	}
	// Output:
	// kb native 3 documents
	// 5 [ndcg@10 recall@5 mrr] exponential
	// tokens map[billing.md:0 security.md:1]
	// free-tier map[billing.md:2]
	// setup-json map[]
}

func ExampleLint() {
	dir, _ := os.MkdirTemp("", "lint")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "kb.yaml")
	os.WriteFile(p, []byte(`assay: 1
corpus:
  - {id: a.md, title: Tokens, text: Tokens are hashed with SHA-256.}
cases:
  - id: q1
    query: How are tokens hashed?
    relevant: [a.md, b.md]
  - id: q2
    query: Nothing to check here
`), 0o644)
	findings, err := suite.Lint(p, suite.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		_, line := filepath.Split(f.Source)
		fmt.Println(line, f.Severity, f.Message)
	}
	// Output:
	// kb.yaml:7 error case "q1": judgments: no document "b.md" in the corpus
	// kb.yaml:8 error case "q2" has nothing to check: add expectations under "expect:" or judgments
}
