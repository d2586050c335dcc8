package metric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kinds of per-case measures.
const (
	KindNDCG      = "ndcg"      // nDCG, cut at K when K > 0
	KindRecall    = "recall"    // recall@K
	KindPrecision = "precision" // precision@K
	KindMRR       = "mrr"       // reciprocal rank of the first relevant document
	KindMAP       = "map"       // average precision
	KindHit       = "hit"       // 1 if a relevant document is in the top K
	KindRPrec     = "rprec"     // R-precision
)

// Spec is a parsed per-case metric name.
type Spec struct {
	Name string // canonical name: "ndcg@10", "ndcg", "recall@5", "precision@5", "mrr", "map", "hit@5", "rprec"
	Kind string // one of the Kind constants
	K    int    // cutoff; 0 for measures without one
}

// Known is the list of accepted metric forms, as shown in error messages.
const Known = "ndcg@K, ndcg, recall@K, precision@K, mrr, map, hit@K, rprec"

// aliases maps lowercased spellings (without the @K part) to a kind and
// whether a cutoff is required (true), forbidden (false) or optional (nil
// via the optional map).
var aliases = map[string]string{
	"ndcg": KindNDCG, "ndcg_cut": KindNDCG,
	"recall": KindRecall, "r": KindRecall,
	"precision": KindPrecision, "p": KindPrecision,
	"mrr": KindMRR, "rr": KindMRR, "recip_rank": KindMRR,
	"map": KindMAP, "ap": KindMAP,
	"hit": KindHit, "success": KindHit,
	"rprec": KindRPrec, "r-prec": KindRPrec,
}

// Parse accepts a metric name case-insensitively, in assay's spelling or the
// ir_measures one: ndcg@K (nDCG@10), ndcg (no cut), recall@K (R@K),
// precision@K (P@K), mrr (RR, recip_rank), map (AP), hit@K (Success@K),
// rprec (Rprec, R-prec). trec_eval's own names with a cutoff also work
// (P_5, recall_10, ndcg_cut_10, success_5). K must be an integer >= 1.
func Parse(name string) (Spec, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	base, cut, hasCut := strings.Cut(s, "@")
	if !hasCut {
		// trec_eval spelling: P_5, recall_10, ndcg_cut_10, success_5.
		if i := strings.LastIndexByte(s, '_'); i > 0 {
			if _, err := strconv.Atoi(s[i+1:]); err == nil {
				if kind, ok := aliases[s[:i]]; ok && kind != KindMRR && kind != KindMAP && kind != KindRPrec {
					base, cut, hasCut = s[:i], s[i+1:], true
				}
			}
		}
	}
	kind, ok := aliases[base]
	if !ok {
		return Spec{}, fmt.Errorf("unknown metric %q (known: %s)", name, Known)
	}
	k := 0
	if hasCut {
		v, err := strconv.Atoi(cut)
		if err != nil || v < 1 {
			return Spec{}, fmt.Errorf("metric %q: cutoff must be an integer >= 1", name)
		}
		k = v
	}
	switch kind {
	case KindRecall, KindPrecision, KindHit:
		if !hasCut {
			return Spec{}, fmt.Errorf("metric %q needs a cutoff, e.g. %s@10", name, kind)
		}
	case KindMRR, KindMAP, KindRPrec:
		if hasCut {
			return Spec{}, fmt.Errorf("metric %q takes no cutoff (known: %s)", name, Known)
		}
	}
	sp := Spec{Name: kind, Kind: kind, K: k}
	if k > 0 {
		sp.Name = kind + "@" + strconv.Itoa(k)
	}
	return sp, nil
}

// String returns the canonical name.
func (s Spec) String() string { return s.Name }

// Options change how Eval scores.
type Options struct {
	Exponential bool // nDCG gain 2^grade-1 instead of the grade (trec_eval uses the grade)
	RelLevel    int  // relevance threshold: a document is relevant iff grade >= RelLevel; 0 means 1
}

// Eval computes the measure for one case. ranking holds document ids in rank
// order, already de-duplicated (the caller keeps the first position of a
// repeated id). judgments maps a document id to its grade: 0 is judged
// non-relevant, a negative grade is "pooled but unjudged" as in trec_eval.
// A document without a judgment is non-relevant. See the package
// documentation for each definition.
func (s Spec) Eval(ranking []string, judgments map[string]int, o Options) float64 {
	var t Topic
	t.set(ranking, judgments, o)
	return t.eval(s, o)
}

// EvalAll computes several measures for one case, labelling the ranking
// once; out[i] is specs[i].Eval(ranking, judgments, o). out is reused when
// it has room.
func EvalAll(specs []Spec, ranking []string, judgments map[string]int, o Options, out []float64) []float64 {
	var t Topic
	t.set(ranking, judgments, o)
	out = out[:0]
	for _, s := range specs {
		out = append(out, t.eval(s, o))
	}
	return out
}

// set labels a ranking from judgments (see Eval) and prepares the topic.
func (t *Topic) set(ranking []string, judgments map[string]int, o Options) {
	t.Threshold = o.RelLevel
	if t.Threshold <= 0 {
		t.Threshold = 1
	}
	t.Labels = make([]int, len(ranking))
	for i, id := range ranking {
		g, ok := judgments[id]
		switch {
		case !ok:
			t.Labels[i] = -1
		case g < 0:
			t.Labels[i] = -2
		default:
			t.Labels[i] = g
		}
	}
	t.Judgments = make([]int, 0, len(judgments))
	for _, g := range judgments {
		t.Judgments = append(t.Judgments, g)
	}
	t.Prepare()
}

func (t *Topic) eval(s Spec, o Options) float64 {
	switch s.Kind {
	case KindNDCG:
		var gain func(int) float64
		if o.Exponential {
			gain = exponential
		}
		k := s.K
		if k <= 0 {
			k = math.MaxInt
		}
		return t.NDCGCut(k, gain)
	case KindRecall:
		return t.Recall(s.K)
	case KindPrecision:
		return t.P(s.K)
	case KindMRR:
		return t.RecipRank()
	case KindMAP:
		return t.AP()
	case KindHit:
		return t.Success(s.K)
	case KindRPrec:
		return t.RPrec()
	}
	return 0
}

func exponential(g int) float64 { return math.Exp2(float64(g)) - 1 }

// Graded reports whether the measure uses relevance grades (nDCG) rather
// than relevant/non-relevant.
func (s Spec) Graded() bool { return s.Kind == KindNDCG }

// BinaryJudgments returns the judgments the binary measures use when a case
// names its relevant documents apart from its grades (GNO's relevantDocs):
// each document of relevant has grade 1, every other judged document grade
// 0 (a negative, unjudged grade stays). With relevant empty it returns
// judgments unchanged. Graded measures keep the original judgments.
func BinaryJudgments(judgments map[string]int, relevant []string) map[string]int {
	if len(relevant) == 0 {
		return judgments
	}
	out := make(map[string]int, len(judgments)+len(relevant))
	for id, g := range judgments {
		if g > 0 {
			g = 0
		}
		out[id] = g
	}
	for _, id := range relevant {
		out[id] = 1
	}
	return out
}
