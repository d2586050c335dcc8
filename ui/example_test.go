package ui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/harness/opener"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/ui"
)

// A run is stored, served read-only, and written as a static report.
func Example() {
	tmp, _ := os.MkdirTemp("", "assay-ui-example-")
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "store")
	res, err := harness.Run(context.Background(), harness.Plan{
		SuitePath: "testdata/hostile/suite.yaml", Target: "replay:testdata/hostile/cand.jsonl",
		StoreDir: dir, Trials: 1, Concurrency: 1, Targets: opener.Targets{},
	})
	if res == nil {
		fmt.Println(err)
		return
	}
	id := res.Runs[0].RunID
	res.Close()

	st, err := store.Open(dir, store.OpenOptions{ForReading: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	// The server: GET /run/ID is the run page.
	rec := httptest.NewRecorder()
	ui.New(st, ui.Options{}).ServeHTTP(rec, httptest.NewRequest("GET", "/run/"+id, nil))
	fmt.Println(rec.Code, strings.Contains(rec.Body.String(), `<td id="pass-rate">33.3%</td>`))

	// The static report of the same run.
	files, err := ui.WriteStatic(context.Background(), filepath.Join(tmp, "out"), st, id, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Join(tmp, "out"), f)
		fmt.Println(filepath.ToSlash(rel))
	}
	// Output:
	// 200 true
	// index.html
	// cases/h1-33112ee14e.html
	// cases/h2-f998fe06af.html
	// cases/qb3-58a2f95771.html
}
