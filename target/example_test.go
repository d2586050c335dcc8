package target_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/target"
	"github.com/assay-eval/assay/target/targettest"
)

// A target file drives an HTTP service: a templated body, a token from the
// environment, and a map from the response to the observation. The token
// never appears in the description.
func ExampleParseFile() {
	s := targettest.Suite()
	srv := httptest.NewServer(targettest.Handler(s))
	defer srv.Close()

	src := `http:
  url: ` + srv.URL + `/ask
  headers: {Authorization: "Bearer ${KB_TOKEN}"}
  body: {query: "{{.Query}}", k: "{{.K}}"}
  map: {answer: answer, retrieved: retrieved.#.id}
`
	getenv := func(string) string { return "tok-123456" }
	tg, err := target.ParseFile("target.yaml", []byte(src), target.Options{Suite: s, Getenv: getenv})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer target.Close(tg)

	o, err := tg.Observe(context.Background(), s.Cases[0])
	fmt.Println(o.Ranking(), err)
	cfg := tg.(assay.Describer).Describe().Config["http"].(map[string]any)
	fmt.Println(cfg["headers"])
	// Output:
	// [kettle.md] <nil>
	// map[Authorization:Bearer ${KB_TOKEN}]
}

// Failures are data: a service that is down gives an observation whose
// error has a class, and the run goes on.
func ExampleOpen_errorsAsData() {
	tg, _ := target.Open("http://127.0.0.1:9/ask", target.Options{})
	defer target.Close(tg)
	_, err := tg.Observe(context.Background(), assay.Case{ID: "q1", Query: "anything"})
	fmt.Println(assay.AsError(err).Class)
	// Output:
	// transport
}
