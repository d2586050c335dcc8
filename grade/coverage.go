package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"reflect"
	"slices"
	"strconv"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/metric"
)

// Version is the version of assay's grading rules, recorded in every run
// (assay.Run.GradingVersion). It is raised whenever a change to this
// package, to package metric or to the case hash (CaseHash) changes what
// the same case and observation score, so that compare can warn that two
// runs were graded by different rules (docs/metrics.md#changed-cases-are-not-paired).
// Version 1 is the first recorded.
const Version = 1

// coverage fills r.Unjudged and r.Upper for a judged case (see
// assay.CaseResult): unj@K for each cutoff K of the metrics (o.K for the
// metrics without one), and each metric's value with the unjudged
// documents counted relevant where it differs from r.Metrics.
func coverage(r *assay.CaseResult, ranking []string, binary, graded map[string]int, o Options, mo metric.Options) {
	r.Unjudged = make(map[string]float64, 2)
	var cuts [4]int
	seen := cuts[:0]
	for _, spec := range o.Metrics {
		k := spec.K
		if k <= 0 {
			k = o.K
		}
		if !slices.Contains(seen, k) {
			seen = append(seen, k)
			r.Unjudged[UnjudgedName(k)] = metric.Unjudged(ranking, binary, k)
		}
	}
	// Upper needs an unjudged document somewhere in the ranking (by the
	// graded judgments, which are the binary ones' keys unless a relevant
	// list adds some).
	if !slices.ContainsFunc(ranking, func(id string) bool {
		g, ok := graded[id]
		return !ok || g < 0
	}) {
		return
	}
	// Measures that read the same ranks of the same judgments share one
	// extended copy of them, labelled once (metric.EvalAll).
	type key struct {
		n      int
		graded bool
	}
	type group struct {
		judgments map[string]int
		specs     []metric.Spec
	}
	var keys []key
	groups := map[key]*group{}
	for _, spec := range o.Metrics {
		j := binary
		if spec.Graded() {
			j = graded
		}
		n := len(ranking)
		if spec.K > 0 {
			n = min(n, spec.K)
		}
		k := key{n, spec.Graded() && !sameMap(graded, binary)}
		g := groups[k]
		if g == nil {
			g = &group{judgments: j}
			groups[k] = g
			keys = append(keys, k)
		}
		g.specs = append(g.specs, spec)
	}
	var vals []float64
	for _, k := range keys {
		g := groups[k]
		ext, ok := metric.UnjudgedRelevant(ranking, g.judgments, k.n, mo)
		if !ok {
			continue
		}
		vals = metric.EvalAll(g.specs, ranking, ext, mo, vals)
		for i, spec := range g.specs {
			if v := vals[i]; v != r.Metrics[spec.Name] {
				if r.Upper == nil {
					r.Upper = map[string]float64{}
				}
				r.Upper[spec.Name] = v
			}
		}
	}
}

// sameMap reports whether a and b are the same map (BinaryJudgments
// returns its argument when a case has no relevant list).
func sameMap(a, b map[string]int) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// UnjudgedName is the name of the judged coverage at cutoff k: "unj@10".
func UnjudgedName(k int) string { return "unj@" + strconv.Itoa(k) }

// hashed is the canonical form CaseHash digests: what the case asks and
// everything its grading reads, with the suite defaults resolved.
type hashed struct {
	Query         string            `json:"query"`
	K             int               `json:"k"`
	CaseSensitive *bool             `json:"case_sensitive,omitempty"`
	Markers       []string          `json:"refusal_markers,omitempty"`
	Judgments     map[string]int    `json:"judgments,omitempty"`
	Relevant      []string          `json:"relevant,omitempty"`
	Expect        assay.Expect      `json:"expect"`
	Surface       string            `json:"surface,omitempty"`
	Vars          map[string]string `json:"vars,omitempty"`
	NoVitalZero   bool              `json:"nugget_no_vital_zero,omitempty"`
	Turns         []string          `json:"turns,omitempty"`
}

// CaseHash is the hash a case's results record (assay.CaseResult.Hash):
// "sha256:" and the hex SHA-256 of the JSON (one line, with its newline) of
// the case's query, its k (the suite default when it sets none), its judgments, its relevant set
// (sorted), its expectations, its surface and variables, and the suite
// settings its expectations read: the case sensitivity when it states a
// substring expectation, the refusal markers when it states refusal.
// encoding/json writes map keys sorted, so the hash does not depend on map
// order. The case id, tags, guards and source position are not part of it,
// nor are the suite's metrics and gain (the suite fingerprint covers
// them). A conversation adds the hash of each of its turns (each hashed as
// a case). A json_schema expectation enters by its path, not the schema's
// content. It is "" when the case cannot be encoded.
func CaseHash(c assay.Case, o Options) string {
	h := hashed{
		Query:     c.Query,
		K:         c.K,
		Judgments: c.Judgments,
		Expect:    c.Expect,
		Surface:   c.Surface,
		Vars:      c.Vars,
	}
	if h.K <= 0 {
		h.K = o.K
	}
	e := c.Expect
	if len(e.AnswerIncludes)+len(e.AnswerIncludesAny)+len(e.AnswerExcludes)+len(e.Nuggets) > 0 {
		cs := o.CaseSensitive
		if e.CaseSensitive != nil {
			cs = *e.CaseSensitive
		}
		h.CaseSensitive = &boolValues[0]
		if cs {
			h.CaseSensitive = &boolValues[1]
		}
	}
	h.Expect.CaseSensitive = nil
	h.NoVitalZero = len(e.Nuggets) > 0 && o.NuggetNoVitalZero
	if e.Refusal != nil {
		h.Markers = o.Markers(c)
	}
	if len(c.Relevant) > 0 {
		h.Relevant = slices.Clone(c.Relevant)
		slices.Sort(h.Relevant)
	}
	for i := range c.Turns {
		th := CaseHash(c.TurnCase(i, nil), o)
		if th == "" {
			return ""
		}
		h.Turns = append(h.Turns, th)
	}
	x := caseHashers.Get().(*caseHasher)
	x.d.Reset()
	var ok bool
	if x.buf, ok = appendHashed(x.buf[:0], &h); ok {
		x.d.Write(x.buf)
	} else {
		hh := h // declared here, only the fallback pays its move to the heap
		if err := x.enc.Encode(hh); err != nil {
			return "" // x is dropped: an encoder's write error would stay
		}
	}
	var out [len("sha256:") + 2*sha256.Size]byte
	hex.Encode(out[copy(out[:], "sha256:"):], x.d.Sum(x.sum[:0]))
	caseHashers.Put(x)
	return string(out[:])
}

// boolValues are false and true for a pointer that costs no allocation
// (CaseHash's resolved case sensitivity; never written through).
var boolValues = [2]bool{false, true}

// caseHasher is a SHA-256 digest, the JSON encoder that writes to it and
// the buffer of the encoding without reflection (appendHashed),
// reused from case to case (CaseHash runs once per case and trial).
type caseHasher struct {
	d   hash.Hash
	enc *json.Encoder
	buf []byte // appendHashed's line
	sum [sha256.Size]byte
}

var caseHashers = sync.Pool{New: func() any {
	d := sha256.New()
	return &caseHasher{d: d, enc: json.NewEncoder(d)}
}}
