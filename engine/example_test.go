package engine_test

import (
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/engine"
)

func Example() {
	docs := []assay.Document{
		{ID: "adr-0054", Title: "DEC-0054 token hashing", Text: "Invitation tokens are hashed with SHA-256. The raw token is never stored."},
		{ID: "deploy", Title: "Deployment", Text: "The database is hosted in Singapore."},
	}
	ix, err := engine.Build(docs, engine.DefaultOptions())
	if err != nil {
		panic(err)
	}
	q := engine.Query{Text: "How are invitation tokens hashed?", K: 2}
	res := ix.Search(q)
	fmt.Printf("%s %.3f\n", res[0].ID, res[0].Score)
	a := ix.Answer(q, res)
	fmt.Println(a.Text)
	fmt.Println(ix.Doc(a.Docs()[0]).ID, a.Refused)

	off := engine.Query{Text: "What is the capital of France?"}
	fmt.Println(ix.Answer(off, ix.Search(off)).Refused)
	// Output:
	// adr-0054 1.314
	// Invitation tokens are hashed with SHA-256. The raw token is never stored.
	// adr-0054 false
	// true
}
