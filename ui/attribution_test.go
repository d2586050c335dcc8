package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
	"github.com/chromedp/chromedp"
)

const attribSuite = `assay: 1
name: attrib
cases:
  - id: en
    query: how are invitation tokens stored
    expect: {answer_includes: [SHA-256]}
`

const attribTrace = `{"case": "en", "trial": 0, "retrieved": [{"id": "sec", "text": "Invitation tokens are hashed with SHA-256 before they are stored."}, {"id": "exp", "text": "An invitation expires after seven days."}], "answer": "Invitation tokens are hashed with SHA-256 [1]. Tokens never expire [2]. Ask an admin.", "refused": null, "error": null}
`

// attribStore is a store with one run whose answer has a supported, an
// unsupported and an uncited sentence.
func attribStore(t *testing.T) (store.Store, string) {
	t.Helper()
	dir := t.TempDir()
	suite, trace := filepath.Join(dir, "suite.yaml"), filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(suite, []byte(attribSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte(attribTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := harness.Run(context.Background(), opened(harness.Plan{SuitePath: suite, Target: "replay:" + trace, StoreDir: filepath.Join(dir, "store"), Trials: 1, Concurrency: 1, Timeout: time.Minute}))
	if res == nil {
		t.Fatal(err)
	}
	id := res.Runs[0].RunID
	res.Close()
	st, err := store.Open(filepath.Join(dir, "store"), store.OpenOptions{ForReading: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, id
}

// TestCasePageMarksSentences: the case page lists each answer sentence
// marked with its attribution label and what it cites.
func TestCasePageMarksSentences(t *testing.T) {
	t.Parallel()
	st, id := attribStore(t)
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + serverLinks{}.Case(id, "en"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	for _, want := range []string{
		`<h3>Sentences (3)</h3>`,
		`<li class="sentence supported"><span class="label">supported</span> <span class="wrap">Invitation tokens are hashed with SHA-256.</span> <span class="small muted">cites <span class="mono">sec</span></span> <span class="small">· supported by <span class="mono">sec</span></span> <span class="small muted">(overlap)</span></li>`,
		`<li class="sentence unsupported"><span class="label">unsupported</span> <span class="wrap">Tokens never expire.</span> <span class="small muted">cites <span class="mono">exp</span></span></li>`,
		`<li class="sentence uncited"><span class="label">uncited</span> <span class="wrap">Ask an admin.</span></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("case page lacks %s", want)
		}
	}
}

// TestBrowserCaseSentences: in a browser, the case page shows the three
// sentences, each styled by its label.
func TestBrowserCaseSentences(t *testing.T) {
	st, id := attribStore(t)
	ctx, _ := browser(t)
	ts := httptest.NewServer(New(st, Options{}))
	defer ts.Close()
	do(t, ctx, chromedp.Navigate(ts.URL+serverLinks{}.Case(id, "en")))
	for label, want := range map[string]string{"supported": "Invitation tokens are hashed with SHA-256.", "unsupported": "Tokens never expire.", "uncited": "Ask an admin."} {
		got := run(t, ctx, chromedp.Text(chromedp.CSS("li.sentence."+label+" .wrap")))
		if got != want {
			t.Errorf("%s sentence %q, want %q", label, got, want)
		}
		bg := run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("li.sentence.`+label+`")).backgroundColor`))
		if bg == "" || bg == "rgba(0, 0, 0, 0)" {
			t.Errorf("%s sentence is not marked (background %q)", label, bg)
		}
	}
}
