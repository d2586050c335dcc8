package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/examples/http-knowlex/kb"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
)

const token = "test-token-8c1d2e"

// openTarget opens target.yaml pointed at srv instead of 127.0.0.1:3001.
func openTarget(t *testing.T, s *assay.Suite, srv *httptest.Server, tok string) assay.Target {
	t.Helper()
	src, err := os.ReadFile("target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.ReplaceAll(string(src), "http://127.0.0.1:3001", srv.URL))
	tg, err := target.ParseFile("target.yaml", src, target.Options{Suite: s, Getenv: func(k string) string {
		if k == "KB_TOKEN" {
			return tok
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close(tg) })
	return tg
}

// TestSuitePasses runs the example as its README does: the service, the
// target file with setup: ingesting the corpus, and the suite's gates.
func TestSuitePasses(t *testing.T) {
	srv := httptest.NewServer(kb.NewServer(token))
	defer srv.Close()
	s, err := suite.Load("suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gopts, err := grade.NewOptions(s)
	if err != nil {
		t.Fatal(err)
	}
	tg := openTarget(t, s, srv, token)
	res, err := runner.Run(context.Background(), tg, s.Cases, runner.Options{Grade: gopts})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete {
		t.Fatalf("run incomplete: %s", res.Stopped)
	}
	for _, r := range res.Results {
		if !r.Passed() {
			t.Errorf("case %s failed: error %v, checks %+v", r.ID, r.Error, r.Checks)
		}
	}
	if len(res.Results) != 10 {
		t.Errorf("%d results, want 10", len(res.Results))
	}
}

// TestWrongTokenStopsSetup: the service refuses a wrong token, so setup
// fails before any case, and the token is not in the message.
func TestWrongTokenStopsSetup(t *testing.T) {
	srv := httptest.NewServer(kb.NewServer(token))
	defer srv.Close()
	s, err := suite.Load("suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tg := openTarget(t, s, srv, "not-the-token")
	err = tg.(assay.Setupper).Setup(context.Background())
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized") || strings.Contains(err.Error(), "not-the-token") {
		t.Fatalf("setup with a wrong token: %v", err)
	}
}

func TestServiceRefusesAndNamesSources(t *testing.T) {
	srv := httptest.NewServer(kb.NewServer(""))
	defer srv.Close()
	post := func(path, body string) *http.Response {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	post("/api/kb/ingest", `{"title": "Tea & coffee", "content": "Green tea steeps for two minutes. Coffee steeps longer."}`).Body.Close()
	resp := post("/api/kb/ask", `{"question": "how long does green tea steep?", "k": 2}`)
	resp.Body.Close()
	if got := resp.Header.Get("x-knowlex-docs"); got != "Tea%20&%20coffee" {
		t.Errorf("x-knowlex-docs %q", got)
	}
	resp = post("/api/kb/ask", `{"question": "who painted the ceiling?"}`)
	resp.Body.Close()
	if got := resp.Header.Get("x-knowlex-docs"); got != "" {
		t.Errorf("off-corpus question names sources %q", got)
	}
}
