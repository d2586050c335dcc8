// Package propose picks, from observations imported from production
// traces (package traces), the turns worth adding to a golden set, and
// makes each a candidate case for a person to review (assay propose;
// docs/traces.md#propose).
//
// A turn is picked for every reason that holds (the case's tags.reason
// lists them, comma-separated, in this order):
//
//   - negative_feedback: the user's feedback is thumbs_down, or its score
//     is below FeedbackBelow;
//   - low_judge_score: an evaluation the trace carried
//     (gen_ai.evaluation.result), or a judge score in the optional run,
//     is below JudgeBelow;
//   - failed: the optional run graded the case and it did not pass;
//   - refusal: the observation refused (its refused field, else the
//     answer holds one of assay's English refusal markers);
//   - empty_ranking: the turn retrieved nothing;
//   - tool_error: a tool call ended in error;
//   - error: the trace's root span ended in error;
//   - slow: the latency is above SlowMs.
//
// Sample more turns that no reason picked, stratified by StratifyBy
// (the service, or a tag of the trace's metadata): strata in name order
// take turns, each giving its next turn in a fixed pseudo-random order
// (SHA-256 of Seed and the case id), until Sample turns are taken;
// reason "sample".
//
// Near-duplicates go: the key of a turn is the SHA-256 of its normalised
// query (lower case, Unicode letters and digits kept, everything else a
// single space) after the PII rule. Of the candidates sharing a key the
// earliest is kept, with the reasons of all and their number in
// provenance.duplicates; a candidate whose key is that of a case of
// Existing (the golden set) is dropped. Both counts are reported.
//
// Every text written (the query) goes through the secret list (Secrets)
// and the PII rule of package redact, whose kinds Options.PII configures.
// A candidate case has the observation's case id (so the import's replay
// file answers it), the query, tags (reason, service, the trace's tags),
// review: pending, and provenance: trace_id, span_id, service, time,
// session, feedback (label, score), comment, reason and duplicates. It
// states no expectation: the person reviewing it adds them and removes
// review.
package propose

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// Defaults of the thresholds (an Options field left 0 takes them).
const (
	DefaultFeedbackBelow = 0.5
	DefaultJudgeBelow    = 0.5
	DefaultSlowMs        = 10000
	DefaultStratifyBy    = "service"
)

// Reasons are the reasons a turn is picked for, in the order tags.reason
// lists them.
var Reasons = []string{"negative_feedback", "low_judge_score", "failed", "refusal", "empty_ranking", "tool_error", "error", "slow", "sample"}

// Options configure Propose. The zero value picks by every reason with the
// default thresholds, samples nothing, and applies the whole PII rule.
type Options struct {
	// Only, when not empty, keeps these reasons (of Reasons, without
	// "sample", which Sample controls).
	Only []string
	// FeedbackBelow: a feedback score below it is negative (0: 0.5).
	FeedbackBelow float64
	// JudgeBelow: an evaluation or judge score below it is low (0: 0.5).
	JudgeBelow float64
	// SlowMs: a latency above it is slow (0: 10000).
	SlowMs float64
	// Sample is how many more turns to take by stratified sample.
	Sample int
	// StratifyBy is "service" or a tag name (empty: "service").
	StratifyBy string
	// Seed fixes the sample's order.
	Seed uint64
	// Existing are the cases of the golden set: a candidate equal to one
	// (by key) is dropped.
	Existing []assay.Case
	// Run, when set, is a run of these observations: failed cases and low
	// judge scores are reasons.
	Run *assay.Run
	// PII is the personal-data rule applied to the query.
	PII redact.PII
	// Secrets are secret values to take out of every text (nil: none).
	Secrets *redact.Redactor
}

// Result is what Propose made.
type Result struct {
	Cases []assay.Case `json:"-"`
	// Observations is the number of observations read.
	Observations int `json:"observations"`
	// Picked counts the turns picked, by reason (a turn may count under
	// several reasons).
	Picked map[string]int `json:"picked"`
	// Duplicates is the number of candidates dropped as near-duplicates
	// of an earlier candidate; Existing those equal to a case of the
	// golden set; NoQuery those without a query to ask.
	Duplicates int `json:"duplicates"`
	Existing   int `json:"existing"`
	NoQuery    int `json:"no_query"`
	// Candidates is len(Cases).
	Candidates int `json:"candidates"`
}

type cand struct {
	o       assay.Observation
	query   string
	key     string
	reasons []string
	dups    int
}

// Propose picks the candidate cases of obs (see the package doc).
func Propose(obs []assay.Observation, o Options) (*Result, error) {
	if err := o.PII.Check(); err != nil {
		return nil, err
	}
	for _, r := range o.Only {
		if !slices.Contains(Reasons, r) || r == "sample" {
			return nil, fmt.Errorf("unknown reason %q (known: %s)", r, strings.Join(Reasons[:len(Reasons)-1], ", "))
		}
	}
	if o.Sample < 0 {
		return nil, fmt.Errorf("sample must be >= 0, got %d", o.Sample)
	}
	fb := cmp.Or(o.FeedbackBelow, DefaultFeedbackBelow)
	jb := cmp.Or(o.JudgeBelow, DefaultJudgeBelow)
	slow := cmp.Or(o.SlowMs, DefaultSlowMs)
	strat := cmp.Or(o.StratifyBy, DefaultStratifyBy)
	results := map[string][]assay.CaseResult{}
	if o.Run != nil {
		for _, c := range o.Run.Cases {
			results[c.ID] = append(results[c.ID], c)
		}
	}
	res := &Result{Observations: len(obs), Picked: map[string]int{}}
	existing := map[string]bool{}
	for _, c := range o.Existing {
		existing[key(o.clean(c.Query))] = true
	}
	var picked, rest []*cand
	for _, ob := range obs {
		c := &cand{o: ob}
		if ob.Provenance != nil {
			c.query = o.clean(ob.Provenance.Query)
		}
		c.key = key(c.query)
		c.reasons = reasons(ob, results[ob.Case], fb, jb, slow)
		if len(o.Only) > 0 {
			c.reasons = slices.DeleteFunc(c.reasons, func(r string) bool { return !slices.Contains(o.Only, r) })
		}
		if strings.TrimSpace(c.query) == "" {
			if len(c.reasons) > 0 {
				res.NoQuery++
			}
			continue
		}
		if len(c.reasons) > 0 {
			picked = append(picked, c)
		} else {
			rest = append(rest, c)
		}
	}
	picked = append(picked, sample(rest, o.Sample, strat, o.Seed)...)
	// De-duplicate: the earliest of a key stays, with every reason.
	byKey := map[string]*cand{}
	var kept []*cand
	for _, c := range picked {
		for _, r := range c.reasons {
			res.Picked[r]++
		}
		if existing[c.key] {
			res.Existing++
			continue
		}
		if first, ok := byKey[c.key]; ok {
			res.Duplicates++
			first.dups++
			for _, r := range c.reasons {
				if !slices.Contains(first.reasons, r) {
					first.reasons = append(first.reasons, r)
				}
			}
			continue
		}
		byKey[c.key] = c
		kept = append(kept, c)
	}
	for _, c := range kept {
		slices.SortFunc(c.reasons, func(a, b string) int { return slices.Index(Reasons, a) - slices.Index(Reasons, b) })
		res.Cases = append(res.Cases, o.caseOf(c))
	}
	res.Candidates = len(res.Cases)
	return res, nil
}

// clean is s with the secrets and the personal data taken out.
func (o Options) clean(s string) string {
	if o.Secrets != nil {
		s = o.Secrets.String(s)
	}
	return o.PII.String(s)
}

// Normalize is the form of a query two near-duplicates share: lower case,
// letters and digits kept, every other run of characters one space.
func Normalize(q string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(q) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

func key(q string) string {
	sum := sha256.Sum256([]byte(Normalize(q)))
	return hex.EncodeToString(sum[:])
}

func reasons(ob assay.Observation, rs []assay.CaseResult, fbBelow, judgeBelow, slowMs float64) []string {
	var out []string
	p := ob.Provenance
	if p == nil {
		p = &assay.Provenance{}
	}
	if f := p.Feedback; f != nil && (f.Label == "thumbs_down" || (f.Score != nil && *f.Score < fbBelow)) {
		out = append(out, "negative_feedback")
	}
	low := false
	for _, e := range p.Evaluations {
		if e.Score != nil && *e.Score < judgeBelow {
			low = true
		}
	}
	failed := false
	for _, r := range rs {
		if r.Graded() && !r.Passed() {
			failed = true
		}
		if r.Judge != nil {
			for _, s := range r.Judge.Scores {
				if s.Score < judgeBelow {
					low = true
				}
			}
		}
	}
	if low {
		out = append(out, "low_judge_score")
	}
	if failed {
		out = append(out, "failed")
	}
	if ob.Error == nil && refused(ob) {
		out = append(out, "refusal")
	}
	if ob.Error == nil && len(ob.Retrieved) == 0 {
		out = append(out, "empty_ranking")
	}
	for _, t := range ob.Tools {
		if t.Error != "" {
			out = append(out, "tool_error")
			break
		}
	}
	if p.Status == "error" || ob.Error != nil {
		out = append(out, "error")
	}
	if ob.LatencyMs != nil && *ob.LatencyMs > slowMs {
		out = append(out, "slow")
	}
	return out
}

// refused is the refusal rule of grading with the English markers: the
// observation's refused when reported, else a marker in the answer.
func refused(ob assay.Observation) bool {
	if ob.Refused != nil {
		return *ob.Refused
	}
	a := strings.ToLower(ob.Answer)
	for _, m := range assay.DefaultRefusalMarkers {
		if strings.Contains(a, strings.ToLower(m)) {
			return true
		}
	}
	return false
}

// sample takes n of rest, stratified (see the package doc).
func sample(rest []*cand, n int, by string, seed uint64) []*cand {
	if n <= 0 || len(rest) == 0 {
		return nil
	}
	strata := map[string][]*cand{}
	for _, c := range rest {
		s := stratum(c.o, by)
		strata[s] = append(strata[s], c)
	}
	names := make([]string, 0, len(strata))
	for s, cs := range strata {
		names = append(names, s)
		slices.SortFunc(cs, func(a, b *cand) int {
			return cmp.Or(cmp.Compare(order(seed, a.o.Case), order(seed, b.o.Case)), cmp.Compare(a.o.Case, b.o.Case))
		})
	}
	slices.Sort(names)
	var out []*cand
	for i := 0; len(out) < n; i++ {
		took := false
		for _, s := range names {
			if i < len(strata[s]) && len(out) < n {
				c := strata[s][i]
				c.reasons = []string{"sample"}
				out = append(out, c)
				took = true
			}
		}
		if !took {
			break
		}
	}
	return out
}

func stratum(o assay.Observation, by string) string {
	if o.Provenance == nil {
		return ""
	}
	if by == "service" {
		return o.Provenance.Service
	}
	return o.Provenance.Tags[by]
}

func order(seed uint64, id string) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	sum := sha256.Sum256(append(b[:], id...))
	return binary.BigEndian.Uint64(sum[:8])
}

// caseOf is the candidate case of c.
func (o Options) caseOf(c *cand) assay.Case {
	ob := c.o
	tags := map[string]string{}
	prov := map[string]string{"reason": strings.Join(c.reasons, ",")}
	if p := ob.Provenance; p != nil {
		for k, v := range p.Tags {
			tags[k] = o.clean(v)
		}
		if p.Service != "" {
			tags["service"] = p.Service
		}
		set := func(k, v string) {
			if v != "" {
				prov[k] = o.clean(v)
			}
		}
		set("trace_id", p.TraceID)
		set("span_id", p.SpanID)
		set("service", p.Service)
		set("time", p.Time)
		set("session", p.Session)
		set("source", p.Source)
		if f := p.Feedback; f != nil {
			set("feedback", f.Label)
			if f.Score != nil {
				set("feedback_score", strconv.FormatFloat(*f.Score, 'g', -1, 64))
			}
			set("comment", f.Comment)
		}
	}
	if c.dups > 0 {
		prov["duplicates"] = strconv.Itoa(c.dups)
	}
	tags["reason"] = prov["reason"]
	return assay.Case{ID: ob.Case, Query: c.query, Tags: tags, Review: assay.ReviewPending, Provenance: prov}
}
