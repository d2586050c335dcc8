package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// runIn runs the CLI in-process and returns its exit code and outputs.
func runIn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	return code, stdout.String(), stderr.String()
}

// A run streams its results through a spill file unless something needs
// them all in memory (here a gate on flaky_cases). Both ways must give the
// same summary, segments, cases, failing-case list and report files, and
// the spill file must be gone afterwards.
func TestStreamedRunEqualsARunThatKeepsItsCases(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	suitePath := filepath.Join("..", "..", "examples", "quickstart", "suite.yaml")
	trace := filepath.Join(dir, "t.jsonl")
	// A recorded trace makes both runs see the same latencies.
	if code, _, stderr := runIn(t, "run", suitePath, "--no-store", "--record", trace); code != 0 {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	type out struct {
		doc          map[string]any
		text, md, ju string
	}
	runWith := func(name string, extra ...string) out {
		js, md, ju := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".md"), filepath.Join(dir, name+".xml")
		args := append([]string{"run", suitePath, "--no-store", "--target", "replay:" + trace, "--json", js, "--markdown", md, "--junit", ju, "--max-failures", "0"}, extra...)
		code, stdout, stderr := runIn(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		var o out
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &o.doc); err != nil {
			t.Fatal(err)
		}
		mdb, _ := os.ReadFile(md)
		jub, _ := os.ReadFile(ju)
		o.text, o.md, o.ju = stdout, string(mdb), string(jub)
		return o
	}
	streamed := runWith("streamed")
	kept := runWith("kept", "--gate", "flaky_cases <= 0")

	for _, k := range []string{"summary", "segments", "cases", "trials"} {
		if !reflect.DeepEqual(streamed.doc[k], kept.doc[k]) {
			t.Errorf("%s differs:\nstreamed %v\nkept     %v", k, streamed.doc[k], kept.doc[k])
		}
	}
	if cases, _ := streamed.doc["cases"].([]any); len(cases) != 24 {
		t.Errorf("the streamed run's JSON has %d cases, want 24", len(cases))
	}
	// The text differs only in the extra gate; the failing cases (with
	// their queries) are the same.
	failing := regexp.MustCompile(`(?s)failing cases.*`)
	if s, k := failing.FindString(streamed.text), failing.FindString(kept.text); s == "" || s != k {
		t.Errorf("failing cases differ:\nstreamed %q\nkept     %q", s, k)
	}
	if !regexp.MustCompile(`(?m)^  attachment-size  ".+"$`).MatchString(streamed.text) {
		t.Errorf("the failing case is listed without its query:\n%s", streamed.text)
	}
	// ... and the markdown beyond the run's id, time and the extra gate
	runLine := regexp.MustCompile("(?m)^run `.*\n")
	gateLine := regexp.MustCompile(`(?m)^.*flaky_cases.*\n`)
	if s, k := runLine.ReplaceAllString(streamed.md, ""), runLine.ReplaceAllString(gateLine.ReplaceAllString(kept.md, ""), ""); s != k {
		t.Errorf("markdown differs beyond the gate:\nstreamed %s\nkept     %s", s, k)
	}
	if !strings.Contains(streamed.ju, "<testcase") || strings.Count(streamed.ju, "<testcase") != strings.Count(kept.ju, "<testcase")-1 {
		t.Errorf("JUnit test cases: streamed %d, kept %d (one more: the gate)", strings.Count(streamed.ju, "<testcase"), strings.Count(kept.ju, "<testcase"))
	}
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// A JSONL suite file that changes while the run reads it stops the run
// early: it is reported and stored as incomplete with what it observed
// (exit 2), and the case added meanwhile is never sent. The line is added
// at the tenth request of 300 (each case is a request to the server), while
// the run is still at its first cases.
func TestRunStopsWhenTheSuiteChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.jsonl")
	var b strings.Builder
	b.WriteString(`{"assay": 1, "name": "s"}` + "\n")
	for i := range 300 {
		fmt.Fprintf(&b, `{"id": "c%04d", "query": "q%d", "expect": {"answer_includes": ["ok"]}}`+"\n", i, i)
	}
	if err := os.WriteFile(suitePath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	sawExtra := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n++
		if n == 10 {
			f, err := os.OpenFile(suitePath, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				f.WriteString(`{"id": "extra", "query": "extra"}` + "\n")
				f.Close()
			}
		}
		if strings.Contains(string(body), `"extra"`) {
			sawExtra = true
		}
		mu.Unlock()
		io.WriteString(w, `{"answer": "ok"}`)
	}))
	defer srv.Close()
	store := filepath.Join(dir, "st")
	code, stdout, stderr := runIn(t, "run", suitePath, "--target", srv.URL, "--store", store, "-j", "1")
	if code != 2 {
		t.Fatalf("exit %d, want 2\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "warning: run stopped early: "+suitePath+": changed while the run was reading it") || !strings.Contains(stdout, "run incomplete") {
		t.Errorf("want the early stop reported:\n%s", stdout)
	}
	if sawExtra {
		t.Error("the case added during the run was sent")
	}
	code, list, _ := runIn(t, "runs", "--store", store)
	if code != 0 || !strings.Contains(list, "incomplete") {
		t.Errorf("runs: exit %d\n%s", code, list)
	}
}

// A run's memory does not grow with the number of cases of a JSONL suite
// (a YAML suite is parsed whole). The CLI runs as a process of its own (the
// test binary as assay), and its peak resident set is what is measured: a
// sample of the test process's heap counted what other tests and the
// collector's timing left there, and failed 1 run in 5. With GOGC=20 the
// peak follows what the run holds closely (what remains per case is 8
// bytes of latency, 8 of id hash while the suite is checked and 8 of line
// hash for the run's pass). The two runs are of smallCases and largeCases:
// the larger run is most of the test's CPU, so it is no larger than the
// bound needs. Keeping each result (about 0.5 KiB) or each case would add
// 10 MiB or more over the 20,000 more cases; the bound, growthMiB, catches
// 248 bytes kept per case (a 224-byte buffer and its slice header: 36 and
// 37 MiB against 30 and 29, where a run that keeps nothing grows 1 to 2
// MiB). A run of the larger suite past the bound is measured again (at
// most three times, the least peak counts): a starved consumer's reorder
// window only ever adds to a peak, memory kept per case is in every run's.
// docs/benchmarks.md has the figures and the 100,000-case ones.
func TestRunMemoryDoesNotGrowWithCases(t *testing.T) {
	if raceEnabled {
		t.Skip("runs 24,000 cases through a race-instrumented binary")
	}
	bin, err := exec.LookPath("assay") // the test binary as assay (testscript.Main)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(n int) string {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", n))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, `{"assay": 1, "name": "big", "corpus": [{"id": "kettle", "title": "Kettle", "text": "Descale the kettle every month."}, {"id": "oven", "title": "Oven", "text": "Clean the oven every week."}]}`+"\n")
		for i := range n {
			fmt.Fprintf(w, `{"id": "c%06d", "query": "how often is the kettle descaled %d", "relevant": ["kettle"], "expect": {"answer_includes": ["month"]}}`+"\n", i, i)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	peak := func(p string) int {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "run", p, "--no-store")
		cmd.Env = append(os.Environ(), "GOGC=20", "GOMEMLIMIT=off", "NO_COLOR=1")
		cmd.Stderr = &stderr
		m, err := runMeasured(cmd)
		if err != nil || m.code != 0 {
			t.Fatalf("%s: exit %d, %v: %s", p, m.code, err, stderr.Bytes())
		}
		return m.rssMiB
	}
	const smallCases, largeCases, growthMiB = 2000, 22000, 4
	s := peak(write(smallCases))
	large := write(largeCases)
	l := peak(large)
	for i := 1; i < 3 && l > s+growthMiB; i++ {
		l = min(l, peak(large))
	}
	t.Logf("peak RSS: %d MiB for %d cases, %d MiB for %d", s, smallCases, l, largeCases)
	if s == 0 {
		t.Skip("the peak resident set is not known on " + runtime.GOOS)
	}
	if l > s+growthMiB {
		t.Errorf("peak RSS grows with the cases: %d MiB for %d, %d MiB for %d", s, smallCases, l, largeCases)
	}
}

// The stored run.json and the --json output are one document: the
// same fields and values, [] and {} where a list or a map is empty, only
// the layout differs.
func TestStoredRunJSONIsTheJSONOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	st := filepath.Join(dir, "st")
	suitePath := filepath.Join("..", "..", "examples", "quickstart", "suite.yaml")
	if code, _, stderr := runIn(t, "run", suitePath, "--store", st, "--json", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	stored, err := filepath.Glob(filepath.Join(st, "runs", "*", "run.json"))
	if err != nil || len(stored) != 1 {
		t.Fatalf("stored runs: %v %v", stored, err)
	}
	var a, b any
	for _, f := range []struct {
		path string
		v    *any
	}{{out, &a}, {stored[0], &b}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, f.v); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("--json and run.json differ:\n--json   %s\nrun.json %s", ja, jb)
	}
}
