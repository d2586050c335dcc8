package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/aggregate"
)

// streamed is run with its cases given by CaseStream (Cases nil), the way
// a run whose results were spilled to disk reaches the renderers. Each
// call yields fresh copies, in order.
func streamed(run *assay.Run) *assay.Run {
	cases := run.Cases
	s := *run
	s.Cases = nil
	s.CaseStream = func(yield func(assay.CaseResult) error) error {
		for _, c := range cases {
			if err := yield(c); err != nil {
				return err
			}
		}
		return nil
	}
	return &s
}

var errSpill = errors.New("spill: read cases.jsonl: input/output error")

// brokenStream is run with a CaseStream that yields the first n cases and
// then fails.
func brokenStream(run *assay.Run, n int) *assay.Run {
	cases := run.Cases
	s := *run
	s.Cases = nil
	s.CaseStream = func(yield func(assay.CaseResult) error) error {
		for _, c := range cases[:n] {
			if err := yield(c); err != nil {
				return err
			}
		}
		return errSpill
	}
	return &s
}

// caseless is run with no cases at all.
func caseless(run *assay.Run) *assay.Run {
	s := *run
	s.Cases = nil
	return &s
}

// manyFailing is a single-trial run of n cases (sampleRun's, repeated), so
// more fail than Markdown lists.
func manyFailing(n int) *assay.Run {
	run := sampleRun()
	base := run.Cases
	run.Cases = make([]assay.CaseResult, 0, n)
	for i := 0; i < n; i++ {
		c := base[i%len(base)]
		c.ID = fmt.Sprintf("%s-%03d", c.ID, i/len(base))
		run.Cases = append(run.Cases, c)
	}
	return run
}

type renderer struct {
	name string
	// multiTrial: the renderer also reads runs of several trials from the
	// stream (the others take trial statistics from Cases, which runs of
	// several trials keep).
	multiTrial bool
	render     func(w io.Writer, run *assay.Run) error
}

func renderers(t *testing.T) []renderer {
	return []renderer{
		{"JSON", true, JSON},
		{"Text", false, func(w io.Writer, run *assay.Run) error {
			return Text(w, run, TextOptions{Queries: map[string]string{"q2": "How are invitation tokens hashed?"}})
		}},
		{"Text capped", false, func(w io.Writer, run *assay.Run) error { return Text(w, run, TextOptions{MaxFailures: 1}) }},
		{"Markdown", false, func(w io.Writer, run *assay.Run) error { return Markdown(w, run, sampleComparison()) }},
		{"JUnit", true, JUnit},
		{"MatrixJSON", true, func(w io.Writer, run *assay.Run) error {
			other := sampleRun()
			other.Variant = map[string]string{"mode": "b"}
			return MatrixJSON(w, "g1", []*assay.Run{run, other}, gate.Verdict{Pass: true})
		}},
		{"JUnitMatrix", true, func(w io.Writer, run *assay.Run) error {
			v := *run
			v.Variant = map[string]string{"mode": "a"}
			return JUnitMatrix(w, []*assay.Run{&v}, gate.Verdict{})
		}},
		{"WriteReportDir", false, func(w io.Writer, run *assay.Run) error {
			dir := t.TempDir()
			v := gate.Verdict{Results: run.Gates}
			paths, err := WriteReportDir(dir, run, sampleComparison(), v, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				return err
			}
			for _, p := range paths {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "== %s\n%s", filepath.Base(p), b)
			}
			return nil
		}},
	}
}

// TestRenderersReadCasesThroughEachCase: every renderer that shows cases
// writes the same bytes for a run given by Cases and for the same run given
// by CaseStream (Cases nil). A renderer that ranged over run.Cases would
// show no case of the streamed run; the caseless check makes sure each
// fixture's output does depend on its cases.
func TestRenderersReadCasesThroughEachCase(t *testing.T) {
	t.Parallel()
	runs := map[string]*assay.Run{
		"sample":       sampleRun(),
		"many failing": manyFailing(230),
		"trials":       ciRun(),
	}
	for _, r := range renderers(t) {
		for name, run := range runs {
			if run.Options.Trials > 1 && !r.multiTrial {
				continue
			}
			t.Run(r.name+"/"+name, func(t *testing.T) {
				var want, got, none bytes.Buffer
				if err := r.render(&want, run); err != nil {
					t.Fatal(err)
				}
				if err := r.render(&got, streamed(run)); err != nil {
					t.Fatal(err)
				}
				if want.String() != got.String() {
					t.Errorf("the streamed run renders differently (-cases +stream):\n%s", lineDiff(want.String(), got.String()))
				}
				if err := r.render(&none, caseless(run)); err != nil {
					t.Fatal(err)
				}
				if none.String() == want.String() {
					t.Error("the output does not depend on the cases: the test would not see a renderer that skips the stream")
				}
			})
		}
	}
}

// TestRenderersOnEmptyStream: a stream that yields nothing renders as a run
// without cases.
func TestRenderersOnEmptyStream(t *testing.T) {
	t.Parallel()
	run := caseless(sampleRun())
	for _, r := range renderers(t) {
		t.Run(r.name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := r.render(&want, run); err != nil {
				t.Fatal(err)
			}
			if err := r.render(&got, streamed(run)); err != nil {
				t.Fatal(err)
			}
			if want.String() != got.String() {
				t.Errorf("(-no cases +empty stream):\n%s", lineDiff(want.String(), got.String()))
			}
		})
	}
}

// TestRenderersReturnStreamErrors: an error from the run's CaseStream,
// before the first case or after some, is returned, not swallowed.
func TestRenderersReturnStreamErrors(t *testing.T) {
	t.Parallel()
	for _, r := range renderers(t) {
		for _, n := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/after %d", r.name, n), func(t *testing.T) {
				err := r.render(io.Discard, brokenStream(sampleRun(), n))
				if !errors.Is(err, errSpill) {
					t.Fatalf("err = %v, want the stream's error", err)
				}
			})
		}
	}
}

// TestWriteReportDirStreamErrorReplacesNothing: when the stream fails, the
// files of the previous report stay as they were and no temporary file is
// left behind.
func TestWriteReportDirStreamErrorReplacesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := WriteReportDir(dir, sampleRun(), nil, gate.Verdict{}, day); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, dir)
	next := brokenStream(sampleRun(), 2)
	next.RunID = "second"
	if _, err := WriteReportDir(dir, next, nil, gate.Verdict{}, day); !errors.Is(err, errSpill) {
		t.Fatalf("err = %v, want the stream's error", err)
	}
	if after := readDir(t, dir); !equalMaps(before, after) {
		t.Errorf("a failed report changed the directory:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestJSONMatchesWholeDocument: JSON and MatrixJSON, which splice the cases
// in one at a time, write the bytes of encoding the whole document at once
// (as they did before they streamed), for runs given either way.
func TestJSONMatchesWholeDocument(t *testing.T) {
	t.Parallel()
	encode := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	hostile := sampleRun()
	hostile.Cases[1].Checks[0].Detail = `<b>"cases": []</b> & "\n  \"cases\": []"`
	hostile.Warnings = append(hostile.Warnings, "\n  \"cases\": []")
	trials := ciRun()
	st := aggregate.Trials(trials.Cases)
	trials.Trials = &st
	for name, run := range map[string]*assay.Run{"sample": sampleRun(), "hostile": hostile, "trials": trials, "empty": {}} {
		for form, r := range map[string]*assay.Run{"cases": run, "stream": streamed(run)} {
			t.Run(name+"/"+form, func(t *testing.T) {
				var b bytes.Buffer
				if err := JSON(&b, r); err != nil {
					t.Fatal(err)
				}
				if want := encode(RunDocument(run)); b.String() != want {
					t.Errorf("JSON (-whole +streamed):\n%s", lineDiff(want, b.String()))
				}
				b.Reset()
				if err := MatrixJSON(&b, "g", []*assay.Run{r, r}, gate.Verdict{}); err != nil {
					t.Fatal(err)
				}
				want := encode(struct {
					Schema    string             `json:"schema"`
					Group     string             `json:"group"`
					Pass      bool               `json:"pass"`
					Runs      []*assay.Run       `json:"runs"`
					Orderings []assay.GateResult `json:"orderings"`
				}{MatrixSchema, "g", false, []*assay.Run{RunDocument(run), RunDocument(run)}, []assay.GateResult{}})
				if b.String() != want {
					t.Errorf("MatrixJSON (-whole +streamed):\n%s", lineDiff(want, b.String()))
				}
			})
		}
	}
}

// TestRunDocumentReadsTheStream: RunDocument lists a streamed run's cases.
func TestRunDocumentReadsTheStream(t *testing.T) {
	t.Parallel()
	doc := RunDocument(streamed(sampleRun()))
	var ids []string
	for _, c := range doc.Cases {
		ids = append(ids, c.ID)
		if c.Observation != nil {
			t.Errorf("case %s keeps its observation", c.ID)
		}
	}
	if strings.Join(ids, " ") != "q1 q2 q3 q4" || doc.CaseStream != nil {
		t.Errorf("cases %v, stream kept %v", ids, doc.CaseStream != nil)
	}
}
