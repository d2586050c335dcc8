package gate

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay"
)

func summaryRun(id string, passRate, ndcg float64) *assay.Run {
	return &assay.Run{RunID: id, Status: assay.StatusComplete, Summary: assay.Summary{
		Cases: 10, Graded: 10, PassRate: &passRate,
		Metrics: map[string]assay.MetricAgg{"ndcg@10": {Mean: ndcg, N: 10}, "mrr": {Mean: 0, N: 0}},
	}}
}

func TestRatchetRisesTwiceNeverFalls(t *testing.T) {
	t.Parallel()
	f := NewFloors()
	day := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	runs := []*assay.Run{
		summaryRun("r1", 0.6, 0.5),
		summaryRun("r2", 0.7, 0.55),
		summaryRun("r3", 0.8, 0.61234),
		summaryRun("r4", 0.75, 0.58), // falls
	}
	var nChanges []int
	for i, run := range runs {
		v := f.Check(run, "assay.floors.json")
		if i < 3 && !v.Pass {
			t.Fatalf("run %s should hold its floors: %+v", run.RunID, v.Results)
		}
		if i == 3 {
			if v.Pass {
				t.Fatalf("falling run %s should fail its floors", run.RunID)
			}
			if len(v.Failed()) != 2 {
				t.Errorf("want both floors to fail, got %+v", v.Failed())
			}
			continue // a failing run is not ratcheted
		}
		ch, err := f.Ratchet(run, RatchetOptions{Now: day.Add(time.Duration(i) * time.Hour), Comment: "nightly"})
		if err != nil {
			t.Fatal(err)
		}
		nChanges = append(nChanges, len(ch))
	}
	if got := f.Floors["pass_rate"]; got != 0.8 {
		t.Errorf("pass_rate floor = %v, want 0.8", got)
	}
	if got := f.Floors["ndcg@10"]; got != 0.6123 {
		t.Errorf("ndcg@10 floor = %v, want 0.6123 (rounded down)", got)
	}
	if _, ok := f.Floors["mrr"]; ok {
		t.Errorf("mrr (n=0) should not get a floor")
	}
	if len(nChanges) != 3 || nChanges[0] != 2 || nChanges[1] != 2 || nChanges[2] != 2 {
		t.Errorf("changes per ratchet = %v, want [2 2 2]", nChanges)
	}
	if len(f.Log) != 6 {
		t.Fatalf("log has %d entries, want 6", len(f.Log))
	}
	last := f.Log[5]
	if last.RunID != "r3" || last.Metric != "pass_rate" || *last.Old != 0.7 || last.New != 0.8 || last.Comment != "nightly" || last.Date != "2026-11-30T11:00:00Z" {
		t.Errorf("last log entry = %+v", last)
	}
	if f.Log[0].Old != nil {
		t.Errorf("first entry should have no old value: %+v", f.Log[0])
	}
	// A lower run ratcheted anyway never lowers a floor.
	ch, err := f.Ratchet(summaryRun("r5", 0.1, 0.1), RatchetOptions{Now: day})
	if err != nil || len(ch) != 0 || f.Floors["pass_rate"] != 0.8 {
		t.Errorf("ratchet of a lower run changed %v (err %v), floors %v", ch, err, f.Floors)
	}
}

func TestRatchetMarginAndExistingKeysOnly(t *testing.T) {
	t.Parallel()
	f := NewFloors()
	f.Floors["ndcg@10"] = 0.4
	ch, err := f.Ratchet(summaryRun("r1", 0.9, 0.5), RatchetOptions{Margin: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 1 || f.Floors["ndcg@10"] != 0.48 {
		t.Errorf("changes %v floors %v, want ndcg@10 0.48 only", ch, f.Floors)
	}
	if _, ok := f.Floors["pass_rate"]; ok {
		t.Errorf("a file with floors only raises the floors it has")
	}
	// Within the margin: no raise.
	ch, _ = f.Ratchet(summaryRun("r2", 0.9, 0.495), RatchetOptions{Margin: 0.02})
	if len(ch) != 0 {
		t.Errorf("raised within margin: %v", ch)
	}
}

func TestRatchetRefusesIncomplete(t *testing.T) {
	t.Parallel()
	f := NewFloors()
	run := summaryRun("r1", 0.9, 0.5)
	run.Status = assay.StatusIncomplete
	if _, err := f.Ratchet(run, RatchetOptions{}); err != ErrIncomplete {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
	if len(f.Floors) != 0 || len(f.Log) != 0 {
		t.Errorf("incomplete run changed floors: %+v", f)
	}
	if _, err := f.Ratchet(summaryRun("r", 1, 1), RatchetOptions{Margin: -1}); err == nil {
		t.Errorf("negative margin accepted")
	}
}

func TestFloorsRoundTrip(t *testing.T) {
	t.Parallel()
	f := NewFloors()
	f.Floors["[lang=zh] recall@10"] = 0.47
	if _, err := f.Ratchet(summaryRun("r1", 0.5, 0.25), RatchetOptions{Now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFloors(&buf, "f.json")
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	g.Write(&again)
	f.Write(&buf)
	if again.String() != buf.String() {
		t.Errorf("round trip differs:\n%s\n%s", again.String(), buf.String())
	}
	if !strings.Contains(buf.String(), `"schema": "assay.floors/v1"`) {
		t.Errorf("no schema in %s", buf.String())
	}
}

func TestReadFloorsRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"schema": "assay.floors/v1", "floors": {"pass_rat": 0.5}}`, `f.json: floor "pass_rat": unknown metric "pass_rat"`},
		{`{"floors": {"error_rate": 0.5}}`, `f.json: floor "error_rate": error_rate is not a metric where higher is better`},
		{`{"floors": {"delta(ndcg@10)": 0.5}}`, `f.json: floor "delta(ndcg@10)": want METRIC or [tag=value] METRIC`},
		{`{"schema": "x/v9"}`, `f.json: unknown schema "x/v9"`},
		{`{"floors": {}, "extra": 1}`, `f.json: unknown field "extra"`},
		{"{\n  \"floors\": {\"ndcg@10\": \"high\"}}", `f.json:2:`},
		{"{\n  \"floors\": ", `f.json:2:12: unexpected end of the file (truncated?)`},
		{"{\"floors\": {\"ndcg@10\": 0.5}}\n{}", `f.json:2:1: something follows the floors object`},
	}
	for _, tt := range tests {
		_, err := ReadFloors(strings.NewReader(tt.in), "f.json")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFloors(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	f, err := ReadFloors(strings.NewReader(" \n"), "f.json")
	if err != nil || len(f.Floors) != 0 {
		t.Errorf("empty file: %v %v", f, err)
	}
}

func FuzzReadFloors(f *testing.F) {
	f.Add(`{"schema":"assay.floors/v1","floors":{"ndcg@10":0.5},"log":[]}`)
	f.Add(`{"floors":{"[lang=zh] R@10":0.5}}`)
	f.Add(`{"floors":{"x":1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := ReadFloors(strings.NewReader(s), "f")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := fl.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFloors(&buf, "f"); err != nil {
			t.Fatalf("written floors do not read back: %v\n%s", err, buf.String())
		}
	})
}

// The runs of a matrix keep their own floors in one file: each variant's
// ratchet sets and raises "[variant=NAME] METRIC", never another's nor the
// unscoped floors, and each run is checked against its own floors only.
func TestRatchetKeysFloorsByVariant(t *testing.T) {
	t.Parallel()
	variant := func(id, name string, passRate, ndcg float64) *assay.Run {
		r := summaryRun(id, passRate, ndcg)
		r.Group, r.Variant = "g", map[string]string{"engine": name}
		return r
	}
	f := NewFloors()
	f.Floors["pass_rate"] = 0.5 // a floor every variant is checked against
	if _, err := f.Ratchet(variant("b1", "bm25", 0.9, 0.7), RatchetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Ratchet(variant("r1", "rm3", 0.8, 0.6), RatchetOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"pass_rate":                0.5,
		"[variant=bm25] pass_rate": 0.9,
		"[variant=bm25] ndcg@10":   0.7,
		"[variant=rm3] pass_rate":  0.8,
		"[variant=rm3] ndcg@10":    0.6,
	}
	if len(f.Floors) != len(want) {
		t.Fatalf("floors %v, want %v", f.Floors, want)
	}
	for k, v := range want {
		if f.Floors[k] != v {
			t.Errorf("floor %q = %v, want %v (all: %v)", k, f.Floors[k], v, f.Floors)
		}
	}
	// rm3 at its own level holds, though it is below bm25's floors.
	if v := f.Check(variant("r2", "rm3", 0.8, 0.6), "f"); !v.Pass || len(v.Results) != 3 {
		t.Errorf("rm3 against its floors: pass %v, %d results %+v; want pass, 3 (its 2 and the unscoped one)", v.Pass, len(v.Results), v.Results)
	}
	// A second bm25 ratchet raises bm25's floors only.
	ch, err := f.Ratchet(variant("b2", "bm25", 0.95, 0.75), RatchetOptions{})
	if err != nil || len(ch) != 2 || f.Floors["[variant=rm3] ndcg@10"] != 0.6 || f.Floors["pass_rate"] != 0.5 {
		t.Errorf("changes %v (err %v), floors %v", ch, err, f.Floors)
	}
}

// A floors file that gives one floor twice is refused at the repeat: the
// JSON decoder would keep the last value, lowering the first.
func TestReadFloorsDuplicateKeys(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"{\"floors\": {\"ndcg@10\": 0.6,\n  \"ndcg@10\": 0.1}}", `f.json:2:3: floor "ndcg@10" repeated (each floor once)`},
		{`{"floors": {"[lang=en] ndcg@10": 0.6, "[lang=en] nDCG@10": 0.1}}`, `f.json:1:39: floor "[lang=en] nDCG@10" repeats floor "[lang=en] ndcg@10" (each floor once)`},
		{`{"floors": {"mrr": 0.6}, "log": [], "floors": {}}`, `f.json:1:37: key "floors" repeated (each key once)`},
	}
	for _, tt := range tests {
		_, err := ReadFloors(strings.NewReader(tt.in), "f.json")
		if err == nil || err.Error() != tt.want {
			t.Errorf("ReadFloors(%s) = %v, want %s", tt.in, err, tt.want)
		}
	}
	f, err := ReadFloors(strings.NewReader(`{"floors": {"ndcg@10": 0.6, "[lang=en] ndcg@10": 0.5, "mrr": 0.1}, "log": []}`), "f.json")
	if err != nil || len(f.Floors) != 3 {
		t.Errorf("distinct floors: %v, %v", f, err)
	}
}

// Ratchet never sets or raises a floor from an undefined value: a nil
// rate, or one a record holds although every case errored.
func TestRatchetSkipsUndefined(t *testing.T) {
	t.Parallel()
	for name, rates := range map[string]assay.Rates{
		"nil":                  {Error: ptr(1.0)},
		"recorded, all errors": {Grounded: ptr(0.9), Error: ptr(1.0)},
	} {
		down := &assay.Run{RunID: "r", Status: assay.StatusComplete, Summary: assay.Summary{Cases: 2, Graded: 2, Failed: 2, Errors: 2, PassRate: ptr(0.0), Rates: rates}}
		f := &Floors{Floors: map[string]float64{"grounded_rate": 0.1, "pass_any_rate": 0}}
		changes, err := f.Ratchet(down, RatchetOptions{Now: time.Now()})
		if err != nil || len(changes) != 0 || f.Floors["grounded_rate"] != 0.1 {
			t.Errorf("%s: Ratchet = %v, %v; floors %v: want nothing raised", name, changes, err, f.Floors)
		}
	}
}
