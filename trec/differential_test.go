package trec

// A differential test: random qrels/run pairs with random options and
// measure parameters, evaluated by Main and by refEval below, a plain
// re-implementation of ../shared/reference/trec_eval-semantics.md (and of
// the trec_eval v10.0 code paths the issue pins: the ideal walk over empty
// gain levels, ndcg_rel's correction, rbp's bounds starting at 0, -c's resets
// by bare name). refEval shares no code with the package: it parses with
// strings.Fields and strconv, sorts with sort.SliceStable, and computes each
// measure in one loop straight from its definition. Where trec_eval's code
// and the definition part ways (a negative -l; cutoff lists its sort leaves
// out of order), refEval follows the loops of trec_eval's source (commit
// dc0c991): the backward walks of iprec_at_recall and Rprec_mult, the one
// walk of the integer-cutoff measures (refCutWalk), glibc's merge sort with
// the truncating comparator (refMsort).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// refOpts is one command line of the differential test.
type refOpts struct {
	q, c, n, j bool
	l          int
	m          int // -M; 0: not given
	measures   []refMeasure
}

// refMeasure is one -m argument: a name and its parameter string ("" none).
type refMeasure struct{ name, params string }

func (o refOpts) args() string {
	var b []string
	if o.q {
		b = append(b, "-q")
	}
	if o.c {
		b = append(b, "-c")
	}
	if o.n {
		b = append(b, "-n")
	}
	if o.j {
		b = append(b, "-J")
	}
	if o.l != 1 {
		b = append(b, "-l", strconv.Itoa(o.l))
	}
	if o.m > 0 {
		b = append(b, "-M"+strconv.Itoa(o.m))
	}
	for _, m := range o.measures {
		a := m.name
		if m.params != "" {
			a += "." + m.params
		}
		b = append(b, "-m", a)
	}
	return strings.Join(b, " ")
}

// refOrder is trec_eval's print order for the measures refEval knows.
var refOrder = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
	"bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
	"Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "ndcg_cut", "map_cut",
	"relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
	"num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj"}

type refTopic struct {
	labels  []int // per rank
	grades  []int // every judgment
	missing bool
}

// refCol is one printed column of refEval.
type refCol struct {
	name  string
	kind  string // "mean", "sum", "geo", "only", "str"
	int   bool
	reset bool // forced to 0/'' on a -c topic missing from the run
	f     func(t refTopic, l int) float64
	s     func(t refTopic) string
}

func refPairs(ps string) (p float64, pairs [][2]float64, levels []bool) {
	p = 0.9
	if ps == "" {
		return
	}
	for _, it := range strings.Split(ps, ",") {
		k, v, _ := strings.Cut(it, "=")
		x, _ := strconv.ParseFloat(v, 64)
		if k == "p" {
			p = x
			continue
		}
		lv, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		pairs = append(pairs, [2]float64{float64(lv), x})
	}
	return
}

type refGain struct {
	level int
	gain  float64
	count int
}

// refTable is trec_eval's setup_gains: custom pairs, then levels 0..max
// grade not among them, sorted by glibc's merge sort with the truncating
// comparator.
func refTable(t refTopic, pairs [][2]float64) []refGain {
	var tab []refGain
	for _, p := range pairs {
		tab = append(tab, refGain{level: int(p[0]), gain: p[1]})
	}
	levels := 0
	for _, g := range t.grades {
		if g+1 > levels {
			levels = g + 1
		}
	}
	for v := 0; v < levels; v++ {
		cnt := 0
		for _, g := range t.grades {
			if g == v {
				cnt++
			}
		}
		found := false
		for i := range tab {
			if tab[i].level == v {
				tab[i].count = cnt
				found = true
				break
			}
		}
		if !found {
			tab = append(tab, refGain{level: v, gain: float64(v), count: cnt})
		}
	}
	var msort func(a []refGain) []refGain
	msort = func(a []refGain) []refGain {
		if len(a) <= 1 {
			return a
		}
		x := msort(append([]refGain(nil), a[:len(a)/2]...))
		y := msort(append([]refGain(nil), a[len(a)/2:]...))
		var out []refGain
		for len(x) > 0 && len(y) > 0 {
			if int(x[0].gain-y[0].gain) <= 0 {
				out, x = append(out, x[0]), x[1:]
			} else {
				out, y = append(out, y[0]), y[1:]
			}
		}
		return append(append(out, x...), y...)
	}
	return msort(tab)
}

func refGetGain(tab []refGain, label int) (float64, bool) {
	for _, e := range tab {
		if e.level == label {
			return e.gain, true
		}
	}
	return 0, false
}

// refIdeal walks the table from its top: empty levels are passed over, the
// first non-empty level with gain <= 0 ends the list.
func refIdeal(tab []refGain) []float64 {
	var out []float64
	if len(tab) == 0 || tab[len(tab)-1].gain <= 0 {
		return nil
	}
	for i := len(tab) - 1; i >= 0; i-- {
		if tab[i].count == 0 {
			continue
		}
		if tab[i].gain <= 0 {
			break
		}
		for range tab[i].count {
			out = append(out, tab[i].gain)
		}
	}
	return out
}

func lg(i int) float64 { return math.Log2(float64(i + 2)) }

// refIprec is iprec_at_recall at x, walked as m_iprec_at_recall.c walks
// it (with v10's rounding c = round(x·R)): from rank n up, with a count
// that starts at RR and drops at each rank whose label is >= l, keeping the
// best count/rank seen; the value is that best when the count equals c at a
// relevant rank, or where the walk ends (count 0 or rank 1). 0 when c > RR;
// 0/0 on an empty ranking. Under a negative l, RR leaves out the unjudged
// ranks the per-rank test counts, so the count runs out early.
func refIprec(t refTopic, l int, x float64) float64 {
	n, r, rr, _, _, _ := refStats(t, l)
	c := int(math.Round(x * float64(r)))
	if c > rr {
		return 0
	}
	best := float64(rr) / float64(n)
	left := rr
	for i := n; i > 0 && left > 0; i-- {
		best = max(best, float64(left)/float64(i))
		if t.labels[i-1] >= l {
			if left == c {
				return best
			}
			left--
		}
	}
	return best
}

// refStats are the counts of one topic under threshold l.
func refStats(t refTopic, l int) (n, r, rr, nonpool, unj, nnonrel int) {
	n = len(t.labels)
	for _, g := range t.grades {
		if g >= l && g >= 0 {
			r++
		} else if g >= 0 {
			nnonrel++
		}
	}
	for _, x := range t.labels {
		switch {
		case x == -1:
			nonpool++
		case x < 0:
			unj++
		case x >= l:
			rr++
		}
	}
	return
}

func relsAt(t refTopic, l, k int) int {
	c := 0
	for i := 0; i < k && i < len(t.labels); i++ {
		if t.labels[i] >= l {
			c++
		}
	}
	return c
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// refMsort sorts integer cutoffs as trec_eval does: qsort, which in glibc
// 2.36 is a merge sort (split at n/2, merge taking the left element while
// the comparator says <= 0), with meas_init.c's comp_long, which returns
// the long difference as an int (its low 32 bits).
func refMsort(a []int) []int {
	if len(a) < 2 {
		return a
	}
	h := len(a) / 2
	left := refMsort(append([]int(nil), a[:h]...))
	right := refMsort(append([]int(nil), a[h:]...))
	out := make([]int, 0, len(a))
	for len(left) > 0 && len(right) > 0 {
		if int32(left[0]-right[0]) <= 0 {
			out, left = append(out, left[0]), left[1:]
		} else {
			out, right = append(out, right[0]), right[1:]
		}
	}
	return append(append(out, left...), right...)
}

// refCutWalk is an integer-cutoff measure at every cutoff of the list, in
// list order, as m_P.c and its siblings compute it: one walk down the
// ranking that records the next cutoff's value when the rank index equals
// it, then the end-of-ranking value for every cutoff not reached. ndcg_cut
// walks the ideal list the same way, on its own.
func refCutWalk(t refTopic, l int, name string, cuts []int) []float64 {
	n, r, _, _, _, _ := refStats(t, l)
	vals := make([]float64, len(cuts))
	if r == 0 && (name == "recall" || name == "map_cut" || name == "relative_P") {
		return vals
	}
	rel, unj, sum, dcg := 0, 0, 0.0, 0.0
	at := func(c int) float64 {
		switch name {
		case "P":
			return float64(rel) / float64(c)
		case "recall":
			return float64(rel) / float64(r)
		case "map_cut":
			return sum / float64(r)
		case "relative_P":
			d := c
			if c > r {
				d = r
			}
			return float64(rel) / float64(d)
		case "success":
			if rel > 0 {
				return 1
			}
			return 0
		case "unj":
			return float64(unj) / float64(c)
		}
		return dcg
	}
	ci := 0
	for i := 0; i < n && ci < len(cuts); i++ {
		if i == cuts[ci] {
			vals[ci] = at(cuts[ci])
			ci++
			if ci == len(cuts) {
				break
			}
		}
		x := t.labels[i]
		if x >= l {
			rel++
			sum += float64(rel) / float64(i+1)
		}
		if x < 0 {
			unj++
		}
		if x > 0 {
			dcg += float64(x) / lg(i)
		}
	}
	for ; ci < len(cuts); ci++ {
		vals[ci] = at(cuts[ci])
	}
	if name != "ndcg_cut" {
		return vals
	}
	var id []int
	for _, g := range t.grades {
		if g > 0 {
			id = append(id, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(id)))
	idcg := make([]float64, len(cuts))
	s, ci := 0.0, 0
	for i := 0; i < len(id) && ci < len(cuts); i++ {
		if i == cuts[ci] {
			idcg[ci] = s
			ci++
			if ci == len(cuts) {
				break
			}
		}
		s += float64(id[i]) / lg(i)
	}
	for ; ci < len(cuts); ci++ {
		idcg[ci] = s
	}
	for j := range vals {
		if idcg[j] > 0 {
			vals[j] /= idcg[j]
		}
	}
	return vals
}

// refColumns builds the columns of a measure list.
func refColumns(ms []refMeasure, numDocs int) []refCol {
	params := map[string]string{}
	marked := map[string]bool{}
	for _, m := range ms {
		if _, ok := params[m.name]; !ok && m.params != "" {
			params[m.name] = m.params
		}
		marked[m.name] = true
	}
	var cols []refCol
	for _, name := range refOrder {
		if !marked[name] {
			continue
		}
		ps, given := params[name]
		intCuts := func(def string) []int {
			if !given {
				ps = def
			}
			var cs []int
			for _, f := range strings.Split(ps, ",") {
				v, _ := strconv.Atoi(f)
				cs = append(cs, v)
			}
			return refMsort(cs)
		}
		floats := func(def string) []float64 {
			if !given {
				ps = def
			}
			var xs []float64
			for _, f := range strings.Split(ps, ",") {
				v, _ := strconv.ParseFloat(f, 64)
				xs = append(xs, v)
			}
			return xs
		}
		pname := name
		if given {
			pname = name + "_" + ps
		}
		add := func(c refCol) { cols = append(cols, c) }
		mean := func(nm string, f func(t refTopic, l int) float64) refCol {
			return refCol{name: nm, kind: "mean", f: f}
		}
		switch name {
		case "runid":
			add(refCol{name: name, kind: "only"})
		case "num_q":
			add(refCol{name: name, kind: "only", int: true})
		case "num_ret":
			add(refCol{name: name, kind: "sum", int: true, reset: true, f: func(t refTopic, l int) float64 { return float64(len(t.labels)) }})
		case "num_rel":
			add(refCol{name: name, kind: "sum", int: true, f: func(t refTopic, l int) float64 { _, r, _, _, _, _ := refStats(t, l); return float64(r) }})
		case "num_rel_ret":
			add(refCol{name: name, kind: "sum", int: true, f: func(t refTopic, l int) float64 { _, _, rr, _, _, _ := refStats(t, l); return float64(rr) }})
		case "num_nonrel_judged_ret":
			add(refCol{name: name, kind: "sum", int: true, f: func(t refTopic, l int) float64 {
				n, _, rr, np, u, _ := refStats(t, l)
				return float64(n - np - u - rr)
			}})
		case "map", "gm_map", "yaap":
			nm := name
			add(refCol{name: nm, kind: map[bool]string{true: "geo", false: "mean"}[name == "gm_map"], f: func(t refTopic, l int) float64 {
				_, r, _, _, _, _ := refStats(t, l)
				s, k := 0.0, 0
				for i, x := range t.labels {
					if x >= l {
						k++
						s += float64(k) / float64(i+1)
					}
				}
				if nm == "yaap" {
					return math.Log((1 + s) / (1 + float64(r) - s))
				}
				if k == 0 {
					return 0
				}
				return s / float64(r) // +Inf when R = 0 (negative -l): m_map.c tests only k
			}})
		case "Rprec":
			add(mean(name, func(t refTopic, l int) float64 {
				n, r, _, _, _, _ := refStats(t, l)
				k := min(n, r)
				if k == 0 {
					return 0
				}
				return float64(relsAt(t, l, k)) / float64(r)
			}))
		case "bpref", "gm_bpref":
			add(refCol{name: name, kind: map[bool]string{true: "geo", false: "mean"}[name == "gm_bpref"], f: func(t refTopic, l int) float64 {
				_, r, _, _, _, nn := refStats(t, l)
				if r == 0 {
					return 0
				}
				s, nr := 0.0, 0
				for _, x := range t.labels {
					switch {
					case x < 0:
					case x >= l:
						if nr > 0 {
							s += 1 - float64(min(nr, r))/float64(min(nn, r))
						} else {
							s++
						}
					default:
						nr++
					}
				}
				return s / float64(r)
			}})
		case "recip_rank":
			add(mean(name, func(t refTopic, l int) float64 {
				for i, x := range t.labels {
					if x >= l {
						return 1 / float64(i+1)
					}
				}
				return 0
			}))
		case "iprec_at_recall":
			xs := floats("0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0")
			sort.Float64s(xs)
			for _, x := range xs {
				add(mean(name+"_"+strconv.FormatFloat(x, 'f', 2, 64), func(t refTopic, l int) float64 { return refIprec(t, l, x) }))
			}
		case "11pt_avg":
			xs := floats("0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0") // ascending (randomPair)
			add(mean(pname, func(t refTopic, l int) float64 {
				s := 0.0
				for _, x := range xs {
					s += refIprec(t, l, x)
				}
				return s / float64(len(xs))
			}))
		case "P", "recall", "map_cut", "relative_P", "success", "unj", "ndcg_cut":
			def := "5,10,15,20,30,100,200,500,1000"
			switch name {
			case "success":
				def = "1,5,10"
			case "unj":
				def = "5,10,20"
			}
			cuts := intCuts(def)
			for j, k := range cuts {
				nm := name
				c := mean(name+"_"+strconv.Itoa(k), func(t refTopic, l int) float64 { return refCutWalk(t, l, nm, cuts)[j] })
				c.reset = nm == "unj"
				add(c)
			}
		case "relstring":
			n := int(floats("10")[0])
			add(refCol{name: pname, kind: "str", reset: !given, s: func(t refTopic) string {
				var b []byte
				for i := 0; i < n && i < len(t.labels); i++ {
					switch x := t.labels[i]; {
					case x == -1:
						b = append(b, '-')
					case x < 0:
						b = append(b, '.')
					case x > 9:
						b = append(b, '>')
					default:
						b = append(b, byte('0'+x))
					}
				}
				return string(b)
			}})
		case "infAP":
			add(mean(name, func(t refTopic, l int) float64 {
				_, r, _, _, _, _ := refStats(t, l)
				if r == 0 {
					return 0
				}
				s, rel, nr, u := 0.0, 0, 0, 0
				for j, x := range t.labels {
					switch {
					case x == -1:
					case x == -2:
						u++
					case x >= l:
						if j == 0 {
							s++
						} else {
							jf := float64(j)
							s += 1/(jf+1) + (jf/(jf+1))*(float64(rel+nr+u)/jf)*((float64(rel)+1e-5)/(float64(rel+nr)+2e-5))
						}
						rel++
					default:
						nr++
					}
				}
				return s / float64(r)
			}))
		case "Rprec_mult":
			xs := floats("0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0")
			sort.Float64s(xs)
			for _, x := range xs {
				add(mean(name+"_"+strconv.FormatFloat(x, 'f', 2, 64), func(t refTopic, l int) float64 {
					// m_Rprec_mult.c: RR/c past the ranking, else the
					// precision its backward walk (as refIprec's) has at
					// rank c, 0 if the walk stopped before c.
					n, r, rr, _, _, _ := refStats(t, l)
					c := int(x*float64(r) + 0.9)
					if c == 0 {
						return 0
					}
					if c > n {
						return float64(rr) / float64(c)
					}
					left := rr
					for i := n; i > 0 && left > 0; i-- {
						if i == c {
							return float64(left) / float64(c)
						}
						if t.labels[i-1] >= l {
							left--
						}
					}
					return 0
				}))
			}
		case "utility":
			v := floats("1,-1,0,0")
			c := mean(pname, func(t refTopic, l int) float64 {
				n, r, rr, _, _, _ := refStats(t, l)
				return v[0]*float64(rr) + v[1]*float64(n-rr) + v[2]*float64(r-rr) + v[3]*float64(numDocs+rr-n-r)
			})
			c.reset = !given
			add(c)
		case "binG":
			add(mean(name, func(t refTopic, l int) float64 {
				_, r, _, _, _, _ := refStats(t, l)
				s, above := 0.0, 0
				for i, x := range t.labels {
					if x >= l {
						s += 1 / math.Log2(float64(2+i-above))
						above++
					}
				}
				if above == 0 {
					return 0
				}
				return s / float64(r) // as map
			}))
		case "set_P", "set_recall", "set_relative_P", "set_map":
			nm := name
			add(mean(name, func(t refTopic, l int) float64 {
				n, r, rr, _, _, _ := refStats(t, l)
				switch nm {
				case "set_P":
					return div(float64(rr), float64(n))
				case "set_recall":
					return div(float64(rr), float64(r))
				case "set_relative_P":
					return div(float64(rr), float64(min(n, r)))
				}
				return div(float64(rr*rr), float64(n*r))
			}))
		case "set_F":
			x := floats("1.0")[0]
			add(mean(pname, func(t refTopic, l int) float64 {
				n, r, rr, _, _, _ := refStats(t, l)
				if rr == 0 {
					return 0
				}
				p, rc := float64(rr)/float64(n), float64(rr)/float64(r)
				return (x + 1) * p * rc / (x*p + rc)
			}))
		case "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "rbp", "rbp_resid":
			p, pairs, _ := refPairs(ps)
			nm := name
			c := mean(pname, func(t refTopic, l int) float64 {
				tab := refTable(t, pairs)
				gain := func(x int) float64 { g, _ := refGetGain(tab, x); return g }
				ideal := refIdeal(tab)
				switch nm {
				case "rbp_resid":
					any := false
					s, w := 0.0, 1.0
					for _, x := range t.labels {
						if x < 0 {
							any = true
							s += w
						}
						w *= p
					}
					if !any {
						return 0
					}
					return math.Pow(p, float64(len(t.labels))) + (1-p)*s
				case "rbp":
					lo, hi := 0.0, 0.0
					for _, e := range tab {
						lo, hi = min(lo, e.gain), max(hi, e.gain)
					}
					s, w := 0.0, 1.0
					for _, x := range t.labels {
						g, ok := refGetGain(tab, x)
						if ok && (lo < 0 || hi > 1) {
							g = (g - lo) / (hi - lo)
						}
						if g != 0 {
							s += g * w
						}
						w *= p
					}
					return (1 - p) * s
				case "G":
					total := 0.0
					for _, g := range ideal {
						total += g
					}
					s, sr, sc := 0.0, 0.0, 0.0
					for i, x := range t.labels {
						g := gain(x)
						sr += g
						if i < len(ideal) && ideal[i] >= 1 {
							sc += ideal[i]
						} else {
							sc++
						}
						if g != 0 {
							s += g / math.Log2(2+sc-sr)
						}
					}
					return div(s, total)
				}
				dcg := 0.0
				idcgAt := func(k int) float64 {
					s := 0.0
					for i := 0; i < k && i < len(ideal); i++ {
						s += ideal[i] / lg(i)
					}
					return s
				}
				if nm == "ndcg_rel" {
					sum, k := 0.0, 0
					for i, x := range t.labels {
						g := gain(x)
						if g != 0 {
							dcg += g / lg(i)
						}
						if g > 0 {
							sum += dcg / idcgAt(i+1)
							k++
						}
					}
					sum += float64(len(ideal)-k) * dcg / idcgAt(len(ideal))
					if sum > 0 {
						return sum / float64(len(ideal))
					}
					return 0
				}
				for i, x := range t.labels {
					if g := gain(x); g != 0 {
						dcg += g / lg(i)
					}
				}
				idcg := idcgAt(len(ideal))
				switch nm {
				case "ideal_dcg":
					return idcg
				case "dcg":
					return dcg
				}
				return div(dcg, idcg)
			})
			c.reset = nm == "rbp_resid" && !given
			add(c)
		}
	}
	return cols
}

func refRow(b *strings.Builder, name, qid string, v float64, integer bool) {
	fmt.Fprintf(b, "%-22s\t%s\t", name, qid)
	switch {
	case integer:
		fmt.Fprintf(b, "%d\n", int64(v))
	case math.IsNaN(v):
		b.WriteString("  -nan\n") // glibc: x86's default NaN has the sign bit set
	case math.IsInf(v, 1):
		b.WriteString("   inf\n")
	case math.IsInf(v, -1):
		b.WriteString("  -inf\n")
	default:
		fmt.Fprintf(b, "%6.4f\n", v)
	}
}

// refEval returns trec_eval's stdout and exit status for qrels and run text
// (well-formed, without duplicates or comments) under o.
func refEval(qrels, run string, o refOpts, numDocs int) (string, int) {
	judg := map[string]map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(qrels), "\n") {
		f := strings.Fields(line)
		g, _ := strconv.Atoi(f[3])
		if judg[f[0]] == nil {
			judg[f[0]] = map[string]int{}
		}
		judg[f[0]][f[2]] = g
	}
	type line struct {
		doc   string
		score float64
	}
	ranked := map[string][]line{}
	tag := ""
	for _, l := range strings.Split(strings.TrimSpace(run), "\n") {
		f := strings.Fields(l)
		s, _ := strconv.ParseFloat(f[4], 64)
		ranked[f[0]] = append(ranked[f[0]], line{f[2], s})
		tag = f[5]
	}
	var qids []string
	for q := range judg {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	cols := refColumns(o.measures, numDocs)
	var b strings.Builder
	sums := make([]float64, len(cols))
	nq := 0
	for _, q := range qids {
		t := refTopic{}
		for _, g := range judg[q] {
			t.grades = append(t.grades, g)
		}
		lines, ok := ranked[q]
		if !ok {
			if !o.c {
				continue
			}
			t.missing = true
			lines = []line{{"ceci_nest_pas_un_docno", 1}}
		}
		sort.SliceStable(lines, func(i, j int) bool {
			if lines[i].score != lines[j].score {
				return lines[i].score > lines[j].score
			}
			return lines[i].doc > lines[j].doc
		})
		if o.m > 0 && len(lines) > o.m {
			lines = lines[:o.m]
		}
		for _, ln := range lines {
			g, judged := judg[q][ln.doc]
			switch {
			case t.missing || !judged:
				g = -1
			case g < 0:
				g = -2
			}
			if o.j && g < 0 {
				continue
			}
			t.labels = append(t.labels, g)
		}
		nq++
		for i, c := range cols {
			var v float64
			var s string
			if !(t.missing && c.reset) {
				if c.f != nil {
					v = c.f(t, o.l)
				}
				if c.s != nil {
					s = c.s(t)
				}
			}
			switch c.kind {
			case "geo":
				sums[i] += math.Log(max(v, 1e-5))
			case "only", "str":
			default:
				sums[i] += v
			}
			if !o.q || c.kind == "only" || c.kind == "geo" {
				continue
			}
			if c.kind == "str" {
				fmt.Fprintf(&b, "%-22s\t%s\t'%s'\n", c.name, q, s)
				continue
			}
			refRow(&b, c.name, q, v, c.int)
		}
	}
	if o.c {
		nq = len(qids)
	}
	if nq == 0 {
		return b.String(), 7
	}
	if o.n {
		return b.String(), 0
	}
	for i, c := range cols {
		switch c.kind {
		case "str":
		case "only":
			if c.name == "runid" {
				fmt.Fprintf(&b, "%-22s\tall\t%s\n", "runid", tag)
			} else {
				refRow(&b, c.name, "all", float64(nq), true)
			}
		case "sum":
			v := sums[i]
			if c.name == "num_rel" && o.c {
				v = 0
				for _, q := range qids {
					for _, g := range judg[q] {
						if g > 0 {
							v++
						}
					}
				}
			}
			refRow(&b, c.name, "all", v, true)
		case "geo":
			refRow(&b, c.name, "all", math.Exp(sums[i]/float64(nq)), false)
		default:
			refRow(&b, c.name, "all", sums[i]/float64(nq), false)
		}
	}
	return b.String(), 0
}

// randomPair makes a qrels/run pair and a command line from r.
func randomPair(r *rand.Rand) (qrels, run string, o refOpts, numDocs int) {
	nt := 1 + r.IntN(6)
	docs := 3 + r.IntN(10)
	var qb, rb strings.Builder
	qidOf := func(i int) string { return []string{"1", "10", "2", "t3", "301", "9"}[i%6] + strings.Repeat("x", i/6) }
	for ti := range nt {
		q := qidOf(ti)
		judged := 1 + r.IntN(docs)
		for _, d := range r.Perm(docs)[:judged] {
			g := r.IntN(5) - 1 // -1..3
			if r.IntN(6) == 0 {
				g = 4 + r.IntN(8) // high grades, > 9 for relstring's '>'
			}
			fmt.Fprintf(&qb, "%s 0 d%d %d\n", q, d, g)
		}
		if r.IntN(5) == 0 {
			continue // missing from the run
		}
		for _, d := range r.Perm(docs + 3)[:1+r.IntN(docs+2)] {
			score := []string{"1", "2", "2.5", "3", "0.5"}[r.IntN(5)]
			if r.IntN(2) == 0 {
				score = strconv.FormatFloat(r.Float64()*10, 'g', -1, 64)
			}
			fmt.Fprintf(&rb, "%s Q0 d%d %d %s %s\n", q, d, r.IntN(100), score, []string{"ta", "tb"}[r.IntN(2)])
		}
	}
	if r.IntN(4) == 0 {
		fmt.Fprintf(&rb, "notinqrels Q0 d1 1 1 tz\n")
	}
	if rb.Len() == 0 {
		fmt.Fprintf(&rb, "%s Q0 d0 1 1 ta\n", qidOf(0))
	}
	o = refOpts{q: r.IntN(2) == 0, c: r.IntN(3) == 0, n: r.IntN(8) == 0, j: r.IntN(5) == 0, l: []int{1, 1, 0, 2, 3, -1, -2, -3}[r.IntN(8)]}
	if r.IntN(3) == 0 {
		o.m = 1 + r.IntN(6)
	}
	numDocs = 0
	if r.IntN(3) == 0 {
		numDocs = 20 + r.IntN(50)
	}
	gains := func() string {
		var ps []string
		for range 1 + r.IntN(3) {
			lv := r.IntN(6) - 1
			g := []string{"0", "0.5", "1.5", "3", "-1", "2", "0.25"}[r.IntN(7)]
			ps = append(ps, fmt.Sprintf("%d=%s", lv, g))
		}
		return strings.Join(ps, ",")
	}
	pick := []func() refMeasure{
		func() refMeasure { return refMeasure{"P", []string{"", "1,3", "2,5,7", "2,3000000000,1"}[r.IntN(4)]} },
		func() refMeasure { return refMeasure{"recall", []string{"", "2,4", "3000000000,3"}[r.IntN(3)]} },
		func() refMeasure { return refMeasure{"ndcg_cut", []string{"", "1,3,9", "3,3000000000"}[r.IntN(3)]} },
		func() refMeasure { return refMeasure{"map_cut", []string{"", "3", "4,3000000000,2"}[r.IntN(3)]} },
		func() refMeasure { return refMeasure{"relative_P", []string{"", "2,3000000000"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"success", []string{"", "1,3000000000"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"unj", []string{"", "2,4", "3000000000,1,3"}[r.IntN(3)]} },
		func() refMeasure { return refMeasure{"iprec_at_recall", []string{"", "0.25,0.5,1"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"Rprec_mult", []string{"", "0.5,1.5"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"utility", []string{"", "2,-1,0,1"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"relstring", []string{"", "4"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"set_F", []string{"", "0.5"}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"ndcg", []string{"", gains()}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"ideal_dcg", []string{"", gains()}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"dcg", []string{"", gains()}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"11pt_avg", []string{"", "0.2,0.5,0.9", "0,1"}[r.IntN(3)]} },
		func() refMeasure { return refMeasure{"ndcg_rel", []string{"", gains()}[r.IntN(2)]} },
		func() refMeasure { return refMeasure{"G", []string{"", gains()}[r.IntN(2)]} },
		func() refMeasure {
			return refMeasure{"rbp", []string{"", "p=0.8", gains(), "p=0.5," + gains()}[r.IntN(4)]}
		},
		func() refMeasure { return refMeasure{"rbp_resid", []string{"", "p=0.8"}[r.IntN(2)]} },
	}
	plain := []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
		"recip_rank", "infAP", "gm_bpref", "binG", "set_P", "set_relative_P", "set_recall", "set_map",
		"num_nonrel_judged_ret", "yaap"}
	for range 1 + r.IntN(6) {
		if r.IntN(2) == 0 {
			o.measures = append(o.measures, refMeasure{plain[r.IntN(len(plain))], ""})
		} else {
			o.measures = append(o.measures, pick[r.IntN(len(pick))]())
		}
	}
	return qb.String(), rb.String(), o, numDocs
}

// checkDifferential compares Main with refEval on the pair seed makes.
func checkDifferential(t *testing.T, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	qrels, run, o, numDocs := randomPair(r)
	args := o.args()
	if numDocs > 0 {
		args += " -N " + strconv.Itoa(numDocs)
	}
	want, wantCode := refEval(qrels, run, o, numDocs)
	code, got, errs := runQuiet(map[string]string{"q": qrels, "r": run}, args+" q r")
	if code != wantCode || got != want {
		t.Fatalf("seed %d: assay trec %s q r: exit %d (want %d), stderr %q\n--- qrels\n%s--- run\n%s--- got\n%s--- want\n%s",
			seed, args, code, wantCode, errs, qrels, run, got, want)
	}
}

func TestDifferential(t *testing.T) {
	t.Parallel()
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range uint64(n) {
		checkDifferential(t, seed)
	}
}

// FuzzDifferential explores more seeds: go test -fuzz FuzzDifferential ./trec
func FuzzDifferential(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(12345))
	f.Fuzz(func(t *testing.T, seed uint64) { checkDifferential(t, seed) })
}
