package aggregate

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func fptr(v float64) *float64 { return &v }
func bptr(v bool) *bool       { return &v }

var timeout = assay.Errorf(assay.ErrTimeout, "no answer after 30s")

// fixture: five results, hand-computed expectations in TestSummarize.
//
//	#  id  trial graded/pass  error  ndcg@10 mrr   latency  retrieved citations refused tags
//	1  q1  0     pass         -      1.0     1.0   10       3         1         no      lang=en
//	2  q1  1     fail         -      0.5     0.5   30       2         1         no      lang=en
//	3  q2  0     fail         timeout 0      0     -        0         0         no      lang=de
//	4  q3  0     ungraded     -      0.25    0.25  20       0         0         no      lang=de category=x
//	5  q4  0     pass         -      (unjudged)    40       1         1         yes     -
func fixture() []assay.CaseResult {
	return []assay.CaseResult{
		{ID: "q1", Trial: 0, Pass: bptr(true), Metrics: map[string]float64{"ndcg@10": 1, "mrr": 1},
			LatencyMs: fptr(10), Retrieved: 3, Citations: 1, Tags: map[string]string{"lang": "en"}},
		{ID: "q1", Trial: 1, Pass: bptr(false), Metrics: map[string]float64{"ndcg@10": 0.5, "mrr": 0.5},
			LatencyMs: fptr(30), Retrieved: 2, Citations: 1, Tags: map[string]string{"lang": "en"}},
		{ID: "q2", Trial: 0, Pass: bptr(false), Error: timeout, Metrics: map[string]float64{"ndcg@10": 0, "mrr": 0},
			Tags: map[string]string{"lang": "de"}},
		{ID: "q3", Trial: 0, Pass: nil, Metrics: map[string]float64{"ndcg@10": 0.25, "mrr": 0.25},
			LatencyMs: fptr(20), Tags: map[string]string{"lang": "de", "category": "x"}},
		{ID: "q4", Trial: 0, Pass: bptr(true), LatencyMs: fptr(40), Retrieved: 1, Citations: 1, Refused: true},
	}
}

var reportMetrics = []string{"ndcg@10", "recall@5", "mrr"}

func TestSummarize(t *testing.T) {
	got := Summarize(fixture(), reportMetrics)
	want := assay.Summary{
		Cases: 5, Graded: 4, Passed: 2, Failed: 2, Errors: 1,
		PassRate: fptr(0.5), // 2 passed / 4 graded; q3 is ungraded, q2 errored counts as failed
		Metrics: map[string]assay.MetricAgg{
			"ndcg@10": {Mean: 0.4375, N: 4}, // (1 + .5 + 0 + .25) / 4; recall@5 omitted (n = 0)
			"mrr":     {Mean: 0.4375, N: 4},
		},
		Rates: assay.Rates{
			NoHit:    fptr(0.25), // answered: 1,2,4,5; empty ranking: 4
			Refusal:  fptr(0.25), // refused: 5
			Grounded: fptr(0.5),  // not refused with a citation: 1, 2
			Error:    fptr(0.2),  // 1 errored / 5
		},
		// latencies 10 20 30 40: p50 rank ceil(2) = 2, p95 rank ceil(3.8) = 4
		LatencyMs: assay.Latency{P50: 20, P95: 40, P99: 40, Max: 40, N: 4},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("got %s\nwant %s", g, w)
	}
}

func TestSummarizeEdges(t *testing.T) {
	tests := []struct {
		name    string
		results []assay.CaseResult
		metrics []string
		want    assay.Summary
	}{
		{"empty: every rate undefined", nil, reportMetrics, assay.Summary{Metrics: map[string]assay.MetricAgg{}}},
		{"judgments only: pass rate null", []assay.CaseResult{
			{ID: "a", Metrics: map[string]float64{"map": 0.5}, Retrieved: 2},
			{ID: "b", Metrics: map[string]float64{"map": 0.25}, Retrieved: 1},
		}, []string{"map"}, assay.Summary{Cases: 2, Metrics: map[string]assay.MetricAgg{"map": {Mean: 0.375, N: 2}}, Rates: rates(0, 0, 0, 0)}},
		{"all errored: answered rates undefined, no latency", []assay.CaseResult{
			{ID: "a", Pass: bptr(false), Error: timeout},
			{ID: "b", Pass: bptr(false), Error: timeout},
		}, nil, assay.Summary{Cases: 2, Graded: 2, Failed: 2, Errors: 2, PassRate: fptr(0),
			Metrics: map[string]assay.MetricAgg{}, Rates: assay.Rates{Error: fptr(1)}}},
		{"all errored with latencies: latency undefined", []assay.CaseResult{
			{ID: "a", Pass: bptr(false), Error: timeout, LatencyMs: fptr(1)},
			{ID: "b", Pass: bptr(false), Error: timeout, LatencyMs: fptr(2)},
		}, nil, assay.Summary{Cases: 2, Graded: 2, Failed: 2, Errors: 2, PassRate: fptr(0),
			Metrics: map[string]assay.MetricAgg{}, Rates: assay.Rates{Error: fptr(1)}}},
		{"errored observation with a latency counts in latency", []assay.CaseResult{
			{ID: "a", Pass: bptr(false), Error: timeout, LatencyMs: fptr(30000)},
			{ID: "b", Pass: bptr(true), LatencyMs: fptr(5), Retrieved: 1},
		}, nil, assay.Summary{Cases: 2, Graded: 2, Passed: 1, Failed: 1, Errors: 1, PassRate: fptr(0.5),
			Metrics: map[string]assay.MetricAgg{}, Rates: rates(0, 0, 0, 0.5),
			LatencyMs: assay.Latency{P50: 5, P95: 30000, P99: 30000, Max: 30000, N: 2}}},
		{"trials count one each", []assay.CaseResult{
			{ID: "a", Trial: 0, Pass: bptr(true), Retrieved: 1},
			{ID: "a", Trial: 1, Pass: bptr(true), Retrieved: 1},
			{ID: "a", Trial: 2, Pass: bptr(false), Retrieved: 0},
		}, nil, assay.Summary{Cases: 3, Graded: 3, Passed: 2, Failed: 1, PassRate: fptr(2.0 / 3),
			Metrics: map[string]assay.MetricAgg{}, Rates: rates(1.0/3, 0, 0, 0)}},
		{"duplicate metric name reported once", []assay.CaseResult{
			{ID: "a", Metrics: map[string]float64{"mrr": 1}, Retrieved: 1},
		}, []string{"mrr", "mrr"}, assay.Summary{Cases: 1, Metrics: map[string]assay.MetricAgg{"mrr": {Mean: 1, N: 1}}, Rates: rates(0, 0, 0, 0)}},
		{"metric not in the report list is left out", []assay.CaseResult{
			{ID: "a", Metrics: map[string]float64{"mrr": 1, "map": 1}, Retrieved: 1},
		}, []string{"map"}, assay.Summary{Cases: 1, Metrics: map[string]assay.MetricAgg{"map": {Mean: 1, N: 1}}, Rates: rates(0, 0, 0, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.results, tt.metrics)
			if !reflect.DeepEqual(got, tt.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tt.want)
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func TestSegments(t *testing.T) {
	got := Segments(fixture(), reportMetrics)
	want := map[string]assay.Summary{
		"lang=en": {Cases: 2, Graded: 2, Passed: 1, Failed: 1, PassRate: fptr(0.5),
			Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.75, N: 2}, "mrr": {Mean: 0.75, N: 2}},
			Rates:   rates(0, 0, 1, 0),
			// latencies 10 30: p50 rank 1, p95 rank ceil(1.9) = 2
			LatencyMs: assay.Latency{P50: 10, P95: 30, P99: 30, Max: 30, N: 2}},
		"lang=de": {Cases: 2, Graded: 1, Failed: 1, Errors: 1, PassRate: fptr(0),
			Metrics:   map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.125, N: 2}, "mrr": {Mean: 0.125, N: 2}},
			Rates:     rates(1, 0, 0, 0.5),
			LatencyMs: assay.Latency{P50: 20, P95: 20, P99: 20, Max: 20, N: 1}},
		"category=x": {Cases: 1,
			Metrics:   map[string]assay.MetricAgg{"ndcg@10": {Mean: 0.25, N: 1}, "mrr": {Mean: 0.25, N: 1}},
			Rates:     rates(1, 0, 0, 0),
			LatencyMs: assay.Latency{P50: 20, P95: 20, P99: 20, Max: 20, N: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("got %s\nwant %s", g, w)
	}
	if len(Segments(nil, nil)) != 0 {
		t.Error("segments of nothing are not empty")
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		sorted []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 50, 7},
		{[]float64{7}, 99, 7},
		{[]float64{1, 2, 3}, 50, 2},    // ceil(1.5) = 2
		{[]float64{1, 2, 3}, 95, 3},    // ceil(2.85) = 3
		{[]float64{1, 2, 3, 4}, 50, 2}, // ceil(2) = 2, not 3
		{seq(20), 95, 19},              // ceil(19) = 19 exactly
		{seq(20), 50, 10},
		{seq(20), 99, 20}, // ceil(19.8)
		{seq(100), 95, 95},
		{seq(100), 99, 99},
		{seq(1000), 99.9, 999},
		{seq(10), 100, 10},
		{seq(10), 0, 1},
		{seq(10), -5, 1},
		{seq(10), 250, 10},
		{seq(10), math.NaN(), 1},
	}
	for _, tt := range tests {
		if got := Percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("Percentile(n=%d, %v) = %v, want %v", len(tt.sorted), tt.p, got, tt.want)
		}
	}
}

func BenchmarkSummarize(b *testing.B) {
	results := make([]assay.CaseResult, 10000)
	for i := range results {
		results[i] = assay.CaseResult{
			ID: "q", Pass: bptr(i%3 != 0), LatencyMs: fptr(float64(i % 977)), Retrieved: i % 5,
			Citations: i % 2, Tags: map[string]string{"lang": []string{"en", "de", "zh"}[i%3]},
			Metrics: map[string]float64{"ndcg@10": 0.5, "recall@5": 0.25, "recall@10": 0.5, "mrr": 1, "map": 0.3, "hit@5": 1},
		}
	}
	metrics := []string{"ndcg@10", "recall@5", "recall@10", "mrr", "map", "hit@5"}
	b.ReportAllocs()
	for b.Loop() {
		Summarize(results, metrics)
		Segments(results, metrics)
	}
}

// rates builds defined Rates.
func rates(noHit, refusal, grounded, errRate float64) assay.Rates {
	return assay.Rates{NoHit: fptr(noHit), Refusal: fptr(refusal), Grounded: fptr(grounded), Error: fptr(errRate)}
}

// TestSummarizeCountsRetried: results that needed more than one attempt are
// counted in the summary and in their segments, streamed like the rest;
// a first-try result (attempts 1) and one of a target that does not retry
// (attempts 0) are not.
func TestSummarizeCountsRetried(t *testing.T) {
	t.Parallel()
	rs := fixture()
	rs[0].Attempts = 1
	rs[1].Attempts = 3 // lang=en
	rs[2].Attempts = 2 // lang=de, errored after its retries
	a := NewAggregator(nil)
	for i := range rs {
		a.Add(&rs[i])
	}
	if got := a.Summary().Retried; got != 2 {
		t.Errorf("retried = %d, want 2", got)
	}
	segs := a.Segments()
	if segs["lang=en"].Retried != 1 || segs["lang=de"].Retried != 1 || segs["category=x"].Retried != 0 {
		t.Errorf("segments retried: en %d, de %d, category=x %d; want 1, 1, 0", segs["lang=en"].Retried, segs["lang=de"].Retried, segs["category=x"].Retried)
	}
	b, _ := json.Marshal(Summarize(fixture(), nil))
	if strings.Contains(string(b), `"retried"`) {
		t.Errorf("a run with no retried result carries retried: %s", b)
	}
}

func TestSummarizeStages(t *testing.T) {
	t.Parallel()
	results := []assay.CaseResult{
		{ID: "a", Stages: map[string]float64{"bm25": 3, "answer": 1}},
		{ID: "b", Stages: map[string]float64{"bm25": 1}},
		{ID: "c", Stages: map[string]float64{"bm25": 2, "answer": 9}},
		{ID: "d"}, // no span: in no stage
	}
	s := Summarize(results, nil)
	bm := s.Stages["bm25"]
	if bm.N != 3 || bm.P50 != 2 || bm.P95 != 3 || bm.Max != 3 {
		t.Fatalf("bm25 = %+v, want n=3 p50=2 p95=3 max=3", bm)
	}
	if an := s.Stages["answer"]; an.N != 2 || an.P50 != 1 || an.P95 != 9 {
		t.Fatalf("answer = %+v, want n=2 p50=1 p95=9", an)
	}
	if len(s.Stages) != 2 {
		t.Fatalf("stages %v, want bm25 and answer only", s.Stages)
	}
	// Re-summarized from the results alone (no observations), as a merge
	// of shards does: the same stages.
	for i := range results {
		results[i].Observation = nil
	}
	if again := Summarize(results, nil); !reflect.DeepEqual(again.Stages, s.Stages) {
		t.Fatalf("re-summarized stages %v, want %v", again.Stages, s.Stages)
	}
	if none := Summarize([]assay.CaseResult{{ID: "x"}}, nil); none.Stages != nil {
		t.Fatalf("no spans: stages %v, want nil (omitted)", none.Stages)
	}
}

func TestStageTimesKeptToTheMicrosecond(t *testing.T) {
	t.Parallel()
	s := Summarize([]assay.CaseResult{
		{ID: "a", Stages: map[string]float64{"embed": 0.015000000000000001, "x": -1, "y": math.NaN(), "z": 1e12}},
	}, nil)
	if got := s.Stages["embed"]; got.P50 != 0.015 || got.Max != 0.015 {
		t.Fatalf("embed = %+v, want 0.015 ms (rounded to the µs)", got)
	}
	if s.Stages["x"].P50 != 0 || s.Stages["y"].P50 != 0 {
		t.Fatalf("negative or NaN stage times: %+v %+v, want 0", s.Stages["x"], s.Stages["y"])
	}
	if z := s.Stages["z"].P50; z != float64(maxStageMicros)/1000 {
		t.Fatalf("a stage longer than the cap: %v ms, want the cap %v", z, float64(maxStageMicros)/1000)
	}
}
