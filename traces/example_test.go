package traces_test

import (
	"fmt"

	"github.com/assay-eval/assay/traces"
)

func ExampleImport() {
	res, err := traces.Import([]string{"testdata/genai.jsonl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Observations {
		fmt.Println(o.Case, o.Ranking(), o.Answer)
		fmt.Println(o.Provenance.Service, o.Provenance.Query)
	}
	for _, s := range res.Skipped {
		fmt.Println("skipped", s.Name+":", s.Reason)
	}
	// Output:
	// 8f3d6271e5047f9b12cd3e4f50617283 [export.md gdpr.md] Yes: Settings > Export writes a ZIP of your data.
	// support-agent Can I export my data? My api_key=${http.request.header.authorization}
	// skipped embeddings: no retrieval and no answer in the 1 span(s) under this root
}
