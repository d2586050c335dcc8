package corpus_test

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay/corpus"
)

func ExampleReadJSONL() {
	docs, err := corpus.ReadJSONL("corpus.jsonl", strings.NewReader(
		`{"_id": "b", "title": "Billing", "text": "The free tier allows three projects."}
{"_id": "a", "title": "Security", "text": "Tokens are hashed with SHA-256."}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range docs {
		fmt.Println(d.ID, d.Title)
	}
	fmt.Println(corpus.Fingerprint(docs)[:15])
	// Output:
	// a Security
	// b Billing
	// sha256:a84fc624
}
