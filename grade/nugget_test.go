package grade_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/internal/pyoracle"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/suite"
)

func TestMatchNugget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		n          assay.Nugget
		cs         bool
		want       string
		at         int
	}{
		{"own text found", "Tokens use SHA-256 hashing.", assay.Nugget{Text: "sha-256"}, false, assay.NuggetSupport, 11},
		{"own text absent", "Tokens are hashed.", assay.Nugget{Text: "sha-256"}, false, assay.NuggetNotSupport, -1},
		{"alternative found", "hashed with sha256", assay.Nugget{Text: "SHA-256 hashing", Match: []string{"sha-256", "sha256"}}, false, assay.NuggetSupport, 12},
		{"regex", "hashed with Sha 256", assay.Nugget{Text: "x", Regex: `(?i)sha.?256`}, false, assay.NuggetSupport, 12},
		{"case-sensitive miss", "hashed with sha-256", assay.Nugget{Text: "SHA-256"}, true, assay.NuggetNotSupport, -1},
		{"folded German", "Die STRASSE ist gesperrt", assay.Nugget{Text: "straße"}, false, assay.NuggetSupport, 4},
		{"folded Greek final sigma", "Ο ΣΊΣΥΦΟΣ έσπρωχνε", assay.Nugget{Text: "σίσυφος"}, false, assay.NuggetSupport, 3},
		{"offset after non-ASCII", "Ünïcödé then SHA-256", assay.Nugget{Text: "sha-256"}, false, assay.NuggetSupport, len("Ünïcödé then ")},
		{"CJK", "令牌使用SHA-256进行哈希。密钥每天轮换。", assay.Nugget{Text: "密钥每天轮换"}, false, assay.NuggetSupport, len("令牌使用SHA-256进行哈希。")},
		{"all parts", "salted and hashed with sha-256", assay.Nugget{Text: "x", Parts: [][]string{{"sha-256", "sha256"}, {"salted"}}}, false, assay.NuggetSupport, 0},
		{"some parts", "hashed with sha256", assay.Nugget{Text: "x", Parts: [][]string{{"sha-256", "sha256"}, {"salted"}}}, false, assay.NuggetPartialSupport, 12},
		{"no part", "hashed", assay.Nugget{Text: "x", Parts: [][]string{{"sha-256"}, {"salted"}}}, false, assay.NuggetNotSupport, -1},
		{"match beats parts", "SHA-256", assay.Nugget{Text: "x", Match: []string{"sha-256"}, Parts: [][]string{{"sha-256"}, {"salted"}}}, false, assay.NuggetSupport, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := grade.MatchNugget(tc.text, tc.n, tc.cs)
			if m.Assignment != tc.want || m.At != tc.at {
				t.Errorf("MatchNugget(%q) = %s at %d (%q), want %s at %d", tc.text, m.Assignment, m.At, m.Matched, tc.want, tc.at)
			}
		})
	}
}

// TestNuggetScoresHandMade is a hand-made set with known assignments:
// vital and okay, partial support, folded and CJK matches.
func TestNuggetScoresHandMade(t *testing.T) {
	t.Parallel()
	c := assay.Case{ID: "q1", Expect: assay.Expect{Nuggets: []assay.Nugget{
		{Text: "SHA-256", Importance: assay.NuggetVital},                                           // support
		{Text: "salted", Importance: assay.NuggetVital, Parts: [][]string{{"salted"}, {"pepper"}}}, // partial
		{Text: "rotated daily", Importance: assay.NuggetVital, Match: []string{"每天轮换", "daily"}},   // support (CJK)
		{Text: "Straße", Importance: assay.NuggetOkay},                                             // support (folded)
		{Text: "md5 banned", Importance: assay.NuggetOkay},                                         // not
		{Text: "recorded", Importance: assay.NuggetOkay, Assignment: assay.NuggetPartialSupport},   // record
	}}}
	obs := assay.Observation{Answer: "Tokens: sha-256, salted. 密钥每天轮换。 Die STRASSE."}
	o, err := grade.NewOptions(&assay.Suite{Cases: []assay.Case{c}})
	if err != nil {
		t.Fatal(err)
	}
	r := grade.Case(c, obs, o)
	wantA := []string{"support", "partial_support", "support", "support", "not_support", "partial_support"}
	wantBy := []string{"rule", "rule", "rule", "rule", "rule", "record"}
	for i, n := range r.Nuggets {
		if n.Assignment != wantA[i] || n.By != wantBy[i] {
			t.Errorf("nugget %d (%s) = %s by %s, want %s by %s", i, n.Text, n.Assignment, n.By, wantA[i], wantBy[i])
		}
	}
	want := map[string]float64{
		assay.MetricNuggetStrictVital: 2.0 / 3, assay.MetricNuggetVital: 2.5 / 3,
		assay.MetricNuggetStrictAll: 3.0 / 6, assay.MetricNuggetAll: 4.0 / 6,
	}
	for k, v := range want {
		if got, ok := r.Metrics[k]; !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, v)
		}
	}
	// An errored observation supports no nugget but the recorded one.
	r = grade.Case(c, assay.Observation{Error: &assay.Error{Class: assay.ErrTimeout, Message: "slow"}}, o)
	if r.Metrics[assay.MetricNuggetAll] != 0.5/6 || r.Pass != nil {
		t.Errorf("errored: nugget_all = %v pass %v, want %v and not graded", r.Metrics[assay.MetricNuggetAll], r.Pass, 0.5/6)
	}
}

func TestNuggetScoresNoVital(t *testing.T) {
	t.Parallel()
	rs := []assay.NuggetResult{{Importance: "okay", Assignment: "support"}, {Importance: "okay", Assignment: "partial_support"}}
	got := grade.NuggetScores(rs, false)
	if _, ok := got[assay.MetricNuggetVital]; ok || len(got) != 2 || got[assay.MetricNuggetAll] != 0.75 {
		t.Errorf("undefined reading: %v, want only the two all scores", got)
	}
	got = grade.NuggetScores(rs, true)
	if v, ok := got[assay.MetricNuggetStrictVital]; !ok || v != 0 || len(got) != 4 {
		t.Errorf("nuggetizer reading: %v, want the vital scores 0", got)
	}
	if grade.NuggetScores(nil, true) != nil {
		t.Error("no nugget: want no metric")
	}
}

// TestNuggetizerConformance reads nuggetizer's assignments with the
// importer and checks the four scores, per case and in the mean, against
// what nuggetizer's own metrics.py computed (expected_metrics.jsonl).
func TestNuggetizerConformance(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(shareddata.Dir(t), "reference", "nuggetizer")
	s, err := suite.LoadFormat(suite.FormatNuggets, filepath.Join(dir, "assignments.jsonl"), suite.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := grade.NewOptions(s)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]assay.CaseResult{}
	var all []assay.CaseResult
	for _, c := range s.Cases {
		r := grade.Case(c, assay.Observation{Case: c.ID}, o)
		results[c.ID] = r
		all = append(all, r)
	}
	sum := runner.Summarize(all, assay.NuggetMetrics)
	f, err := os.Open(filepath.Join(dir, "expected_metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]string{
		"strict_vital_score": assay.MetricNuggetStrictVital, "strict_all_score": assay.MetricNuggetStrictAll,
		"vital_score": assay.MetricNuggetVital, "all_score": assay.MetricNuggetAll,
	}
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var want map[string]any
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		lines++
		qid := want["qid"].(string)
		for key, name := range names {
			w := want[key].(float64)
			var got float64
			if qid == "all" {
				agg, ok := sum.Metrics[name]
				if !ok || agg.N != len(s.Cases) {
					t.Fatalf("mean %s: %+v, want n = %d", name, agg, len(s.Cases))
				}
				got = agg.Mean
			} else {
				r, ok := results[qid]
				if !ok {
					t.Fatalf("qid %s: not imported", qid)
				}
				got = r.Metrics[name]
			}
			if math.Abs(got-w) > 0.00005 {
				t.Errorf("%s %s = %.6f, nuggetizer %.6f", qid, name, got, w)
			}
		}
	}
	if lines != len(s.Cases)+1 {
		t.Errorf("expected_metrics.jsonl has %d lines, want %d cases and the mean", lines, len(s.Cases))
	}
}

// FuzzMatchNugget: the match never panics, its offset is a rune start
// inside the text where something was found, and the scores stay in [0, 1].
func FuzzMatchNugget(f *testing.F) {
	f.Add("Die STRASSE ist gesperrt", "straße", "x", "(?i)ge", false)
	f.Add("令牌使用SHA-256进行哈希。", "sha-256", "哈希", "(", true)
	f.Add("ΣΊΣΥΦΟΣ İstanbul e\u0301", "σίσυφος", "é", "", false)
	f.Fuzz(func(t *testing.T, text, alt, part, re string, cs bool) {
		n := assay.Nugget{Text: alt, Match: []string{alt}, Regex: re, Parts: [][]string{{part}, {alt, part}}}
		m := grade.MatchNugget(text, n, cs)
		switch m.Assignment {
		case assay.NuggetSupport, assay.NuggetPartialSupport, assay.NuggetNotSupport:
		default:
			t.Fatalf("assignment %q", m.Assignment)
		}
		if m.At < -1 || m.At > len(text) || (utf8.ValidString(text) && m.At >= 0 && m.At < len(text) && !utf8.RuneStart(text[m.At])) {
			t.Fatalf("offset %d in %q", m.At, text)
		}
		if (m.At >= 0) != (len(m.Matched) > 0) {
			t.Fatalf("offset %d with matched %q", m.At, m.Matched)
		}
		rs := []assay.NuggetResult{{Importance: "vital", Assignment: m.Assignment}, {Importance: "okay", Assignment: assay.NuggetPartialSupport}}
		for k, v := range grade.NuggetScores(rs, cs) {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s = %v", k, v)
			}
		}
	})
}

// TestNuggetScoresAgainstNuggetizer scores random assignments with
// nuggetizer's own metrics.py (its calculate_nugget_scores, run by the
// oracle's Python from ../shared) and with NuggetScores read as nuggetizer
// reads a response without a vital nugget.
func TestNuggetScoresAgainstNuggetizer(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "reference", "nuggetizer")
	rng := rand.New(rand.NewPCG(29, 1))
	type nug struct {
		Text       string `json:"text"`
		Importance string `json:"importance"`
		Assignment string `json:"assignment"`
	}
	type rec struct {
		QID     string `json:"qid"`
		Nuggets []nug  `json:"nuggets"`
	}
	imps := []string{"vital", "okay"}
	asg := []string{"support", "partial_support", "not_support"}
	var recs []rec
	for i := range 300 {
		r := rec{QID: fmt.Sprintf("q%d", i)}
		for j := range 1 + rng.IntN(12) {
			r.Nuggets = append(r.Nuggets, nug{Text: fmt.Sprintf("f%d.%d", i, j), Importance: imps[rng.IntN(2)], Assignment: asg[rng.IntN(3)]})
		}
		recs = append(recs, r)
	}
	script := `import json, sys
sys.dont_write_bytecode = True  # nothing is written into ../shared
sys.path.insert(0, ` + strconv.Quote(dir) + `)
from metrics import calculate_nugget_scores
out = []
for r in json.load(sys.stdin):
    m = calculate_nugget_scores(r["qid"], r["nuggets"])
    out.append([m.strict_vital_score, m.strict_all_score, m.vital_score, m.all_score])
print(json.dumps(out))`
	var want [][4]float64
	pyoracle.Run(t, script, recs, &want)
	if len(want) != len(recs) {
		t.Fatalf("oracle scored %d responses, want %d", len(want), len(recs))
	}
	for i, r := range recs {
		rs := make([]assay.NuggetResult, len(r.Nuggets))
		for j, n := range r.Nuggets {
			rs[j] = assay.NuggetResult{Importance: n.Importance, Assignment: n.Assignment}
		}
		got := grade.NuggetScores(rs, true)
		for k, name := range assay.NuggetMetrics {
			if math.Abs(got[name]-want[i][k]) > 1e-12 {
				t.Errorf("%s %s = %v, nuggetizer %v", r.QID, name, got[name], want[i][k])
			}
		}
	}
}
