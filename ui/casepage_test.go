package ui

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/report"
)

func ptr[T any](v T) *T { return &v }

// caseTrials is a case of three trials: the first and the third alike
// (failing a check, calling a forbidden tool, judged), the second passing.
func caseTrials() ([]report.CaseView, *assay.Case) {
	obs := func(answer string) *assay.Observation {
		return &assay.Observation{Answer: answer, Retrieved: []assay.Hit{{ID: "d1"}},
			Tools: []assay.ToolCall{{Name: "search"}, {Name: "delete_all"}},
			Spans: []assay.Span{{Name: "retrieve", StartMs: 0, EndMs: 100}, {Name: "tool", StartMs: 20, EndMs: 60}, {Name: "generate", StartMs: 200, EndMs: 300}}}
	}
	fail := assay.CaseResult{ID: "c1", Trial: 1, Pass: ptr(false), LatencyMs: ptr(10000.0), Tags: map[string]string{"lang": "de"},
		Checks:      []assay.Check{{Kind: "answer_includes", Pass: true}, {Kind: "never_calls", Pass: false, Detail: "called delete_all"}},
		Judge:       &assay.JudgeResult{Model: "m", Calls: 1, Scores: []assay.JudgeScore{{Criterion: "relevance", Score: 0.5, Reason: "half of it"}, {Criterion: "groundedness", Score: 1, Reason: "all cited"}}},
		Observation: obs("Die Antwort")}
	pass := fail
	pass.Trial, pass.Pass, pass.Observation = 2, ptr(true), obs("Eine andere Antwort")
	pass.Checks = []assay.Check{{Kind: "answer_includes", Pass: true}, {Kind: "never_calls", Pass: true}}
	again := fail
	again.Trial = 3
	sc := &assay.Case{ID: "c1", Expect: assay.Expect{NeverCalls: []string{"delete_all"}}}
	return []report.CaseView{{Result: fail}, {Result: pass}, {Result: again}}, sc
}

// TestCasePageWhyFirst: each trial starts with its failing checks, a
// trial like an earlier one is collapsed, a forbidden tool call is marked,
// each judge score carries its reasoning, and the answer its language.
func TestCasePageWhyFirst(t *testing.T) {
	views, sc := caseTrials()
	run := &assay.Run{RunID: "r1"}
	d := buildCase(run, "c1", views, sc, false)
	if d.Trials[0].SameAs != 0 || d.Trials[1].SameAs != 0 || d.Trials[2].SameAs != 1 {
		t.Errorf("same-as: %d %d %d, want 0 0 1", d.Trials[0].SameAs, d.Trials[1].SameAs, d.Trials[2].SameAs)
	}
	var buf bytes.Buffer
	if err := render(&buf, "case", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	trials := strings.Split(page, `<article class="trial"`)[1:]
	if len(trials) != 3 {
		t.Fatalf("%d trials rendered", len(trials))
	}
	first := trials[0]
	// The failing check comes before the passing one, and before the answer.
	fi, pi, ai := strings.Index(first, "never_calls"), strings.Index(first, "answer_includes"), strings.Index(first, "<h3>Answer")
	if fi < 0 || fi > pi || pi > ai {
		t.Errorf("trial 1: failing check at %d, passing at %d, answer at %d: the failing check is not first", fi, pi, ai)
	}
	if !strings.Contains(first, `class="tool wrap bad forbidden-tool">✗ forbidden: <span class="mono">delete_all</span>`) || strings.Contains(first, `forbidden-tool">✗ forbidden: <span class="mono">search`) {
		t.Errorf("trial 1: the forbidden tool call is not marked (or the allowed one is)")
	}
	for _, want := range []string{`judge-reason">half of it`, `judge-reason">all cited`, `<div class="answer wrap" lang="de">`} {
		if !strings.Contains(first, want) {
			t.Errorf("trial 1 lacks %q", want)
		}
	}
	if strings.Contains(trials[1], `<details class="same">`) || !strings.Contains(trials[2], `<details class="same"><summary>the same as trial 1`) {
		t.Errorf("trial 3 (like trial 1) is not collapsed, or trial 2 (unlike it) is")
	}
}

// TestWaterfallScaledToLatency: the spans of a 10 s case are drawn on a
// 0-10 s axis in a viewBox (not scaled to the last span), each bar with
// its duration, the span inside another indented, and the time no span
// covers shaded.
func TestWaterfallScaledToLatency(t *testing.T) {
	views, _ := caseTrials()
	r := views[0].Result
	wf := spanWaterfall(r.Observation.Spans, r.LatencyMs)
	if wf.Total != "10000" {
		t.Errorf("axis to %s ms, want the case's latency 10000", wf.Total)
	}
	axis := float64(waterW - waterLabel - waterRight)
	last := wf.Bars[2] // generate, 200-300 ms of 10000
	if got, want := last.X+last.W, waterLabel+axis*0.03; got > want+1 {
		t.Errorf("generate ends at x %.1f, want about %.1f (3%% of the axis)", got, want)
	}
	if wf.Bars[1].Depth != 1 || wf.Bars[0].Depth != 0 {
		t.Errorf("depths %d %d: the tool span inside retrieve is not nested", wf.Bars[0].Depth, wf.Bars[1].Depth)
	}
	var gaps []string
	for _, g := range wf.Gaps {
		gaps = append(gaps, g.Start+"-"+g.End)
	}
	if strings.Join(gaps, " ") != "100-200 300-10000" {
		t.Errorf("uncovered time %v, want 100-200 300-10000", gaps)
	}
	var buf bytes.Buffer
	d := buildCase(&assay.Run{RunID: "r1"}, "c1", views[:1], nil, false)
	if err := render(&buf, "case", serverLinks{}, d); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !regexp.MustCompile(`<svg viewBox="0 0 `+strconv.Itoa(waterW)+` \d+" class="waterfall">`).MatchString(page) || strings.Contains(page, `<svg width=`) {
		t.Errorf("the waterfall has no viewBox, or a fixed width")
	}
	for _, want := range []string{`>100 ms</text>`, `>40 ms</text>`, `class="gap"/>`, `└ tool`, `0 – 10000 ms · <span class="gap-key"></span> no span: 100–200, 300–10000 ms`} {
		if !strings.Contains(page, want) {
			t.Errorf("the waterfall lacks %q", want)
		}
	}
}
