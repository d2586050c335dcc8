package trec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/metric"
)

// paramKind is how a measure reads its parameter string.
type paramKind int

const (
	pNone      paramKind = iota
	pIntCuts             // comma list of integer cutoffs, sorted; name_%d
	pFloatCuts           // comma list of real cutoffs, sorted; name_%3.2f
	pFloats              // comma list of reals; name_<params> when given
	pPairs               // level=gain pairs; name_<params> when given
)

// aggKind is how the summary row is formed.
type aggKind int

const (
	aggMean aggKind = iota
	aggSum          // counts: the sum, printed as an integer
	aggGeo          // gm_map, gm_bpref: exp(mean of ln(max(v, 1e-5)))
	aggNone         // per topic only (relstring)
	aggOnly         // summary only (runid, num_q)
)

// measureDef is one trec_eval measure, in trec_eval's fixed print order.
type measureDef struct {
	name     string
	params   paramKind
	defaults string
	agg      aggKind
	integer  bool // per-topic values print as integers
}

// measures is trec_eval v10.0's print order (the subset assay implements).
var measures = []measureDef{
	{name: "runid", agg: aggOnly},
	{name: "num_q", agg: aggOnly, integer: true},
	{name: "num_ret", agg: aggSum, integer: true},
	{name: "num_rel", agg: aggSum, integer: true},
	{name: "num_rel_ret", agg: aggSum, integer: true},
	{name: "map"},
	{name: "gm_map", agg: aggGeo},
	{name: "Rprec"},
	{name: "bpref"},
	{name: "recip_rank"},
	{name: "iprec_at_recall", params: pFloatCuts, defaults: "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"},
	{name: "P", params: pIntCuts, defaults: "5,10,15,20,30,100,200,500,1000"},
	{name: "relstring", params: pFloats, defaults: "10", agg: aggNone},
	{name: "recall", params: pIntCuts, defaults: "5,10,15,20,30,100,200,500,1000"},
	{name: "infAP"},
	{name: "gm_bpref", agg: aggGeo},
	{name: "Rprec_mult", params: pFloatCuts, defaults: "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"},
	{name: "utility", params: pFloats, defaults: "1,-1,0,0"},
	{name: "11pt_avg", params: pFloats, defaults: "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"},
	{name: "binG"},
	{name: "G", params: pPairs},
	{name: "dcg", params: pPairs},
	{name: "ideal_dcg", params: pPairs},
	{name: "ndcg", params: pPairs},
	{name: "ndcg_rel", params: pPairs},
	{name: "Rndcg", params: pPairs},
	{name: "ndcg_cut", params: pIntCuts, defaults: "5,10,15,20,30,100,200,500,1000"},
	{name: "map_cut", params: pIntCuts, defaults: "5,10,15,20,30,100,200,500,1000"},
	{name: "relative_P", params: pIntCuts, defaults: "5,10,15,20,30,100,200,500,1000"},
	{name: "success", params: pIntCuts, defaults: "1,5,10"},
	{name: "set_P"},
	{name: "set_relative_P"},
	{name: "set_recall"},
	{name: "set_map"},
	{name: "set_F", params: pFloats, defaults: "1.0"},
	{name: "num_nonrel_judged_ret", agg: aggSum, integer: true},
	{name: "yaap"}, // after the preference and judgment-group measures, as in trec_eval
	{name: "rbp", params: pPairs, defaults: "p=0.9"},
	{name: "rbp_resid", params: pPairs, defaults: "p=0.9"},
	{name: "unj", params: pIntCuts, defaults: "5,10,20"},
}

// nicknames are the measure sets trec_eval accepts after -m.
var nicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
		"bpref", "recip_rank", "iprec_at_recall", "P"},
	"all_trec": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
		"bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
		"infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
		"map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
		"set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"},
	"set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
		"set_relative_P", "set_map", "set_F"},
}

// column is one printed value: a measure, or one cutoff of a measure.
type column struct {
	name    string
	def     *measureDef
	agg     aggKind
	integer bool
	// per-topic value
	value func(c *evalCtx) float64
	// str is the per-topic value of relstring (a string, per topic only).
	str func(c *evalCtx) string
	// zeroMissing marks the values forced to 0 for a -c topic absent from
	// the run. trec_eval resets them by printed name: num_ret, utility,
	// relstring and rbp_resid only when bare (utility_2,-1,0,0,
	// relstring_20 and rbp_resid_p=0.8 keep what the one-document ranking
	// gives), every unj_k.
	zeroMissing bool
}

// plan is the list of columns for the requested measures.
type plan struct {
	cols       []column
	hasRunid   bool
	hasNumQ    bool
	relstring  int  // relstring length when requested, else -1
	utilityBad bool // utility was given other than 4 coefficients
	gains      []pairSpec
	calcName   string // first measure that forms the ranking (for "Can't calculate measure")
}

// pairSpec is a parsed level=gain parameter list of one measure.
type pairSpec struct {
	custom []metric.LevelGain
	p      float64 // rbp persistence
}

// evalCtx is what a column's value function reads.
type evalCtx struct {
	t        *metric.Topic
	gt       []metric.GainTable // one per measure with pair parameters
	numDocs  int
	gainsOK  []bool
	gainSpec []pairSpec
}

func (c *evalCtx) table(i int) *metric.GainTable {
	if !c.gainsOK[i] {
		c.t.Gains(&c.gt[i], c.gainSpec[i].custom)
		c.gainsOK[i] = true
	}
	return &c.gt[i]
}

// trecError is a trec_eval failure: the exact message lines it prints and its exit status.
type trecError struct {
	msg  string
	code int
}

func (e *trecError) Error() string { return e.msg }

// request is the -m list after parsing the command line.
type request struct {
	marked map[string]bool
	params map[string]string // first parameter string per measure name
}

func newRequest() *request {
	return &request{marked: map[string]bool{}, params: map[string]string{}}
}

// mark handles one -m argument like trec_eval's mark_measure.
func (r *request) mark(arg string) error {
	name, param, hasParam := strings.Cut(arg, ".")
	if hasParam {
		if param == "" {
			return &trecError{msg: fmt.Sprintf("trec_eval: improper measure in parameter '%s'\ntrec_eval: illegal measure '%s'\n", name, name), code: 1}
		}
		if _, seen := r.params[name]; !seen {
			r.params[name] = param
		}
	}
	if set, ok := nicknames[name]; ok {
		for _, m := range set {
			r.marked[m] = true
		}
		return nil
	}
	for i := range measures {
		if measures[i].name == name {
			r.marked[name] = true
			return nil
		}
	}
	if what, ok := unsupported[name]; ok {
		return usageFail(fmt.Sprintf("assay trec: measure '%s' is not supported: %s need %s, and assay trec reads qrels only\n", name, what, unsupportedFormat[what]))
	}
	return &trecError{msg: fmt.Sprintf("trec_eval: illegal measure '%s'\n", name), code: 1}
}

// unsupported are trec_eval's measures and measure sets that need judgment
// formats other than qrels (-R prefs, qrels_prefs, qrels_jg): they are
// refused as not supported rather than as unknown.
var unsupported = map[string]string{
	"all_prefs": "preference measures", "prefs": "preference measures",
	"prefs_num_prefs_poss": "preference measures", "prefs_num_prefs_ful": "preference measures",
	"prefs_num_prefs_ful_ret": "preference measures", "prefs_simp": "preference measures",
	"prefs_pair": "preference measures", "prefs_avgjg": "preference measures",
	"prefs_avgjg_Rnonrel": "preference measures", "prefs_simp_ret": "preference measures",
	"prefs_pair_ret": "preference measures", "prefs_avgjg_ret": "preference measures",
	"prefs_avgjg_Rnonrel_ret": "preference measures", "prefs_simp_imp": "preference measures",
	"prefs_pair_imp": "preference measures", "prefs_avgjg_imp": "preference measures",
	"qrels_jg": "judgment-group measures", "map_avgjg": "judgment-group measures",
	"P_avgjg": "judgment-group measures", "Rprec_mult_avgjg": "judgment-group measures",
}

var unsupportedFormat = map[string]string{
	"preference measures":     "preference judgments (-R prefs or qrels_prefs)",
	"judgment-group measures": "judgment groups (-R qrels_jg)",
}

// atol parses the leading integer of s like C atol (0 when none).
func atol(s string) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	// strtol saturates: LONG_MAX, or LONG_MIN when negative.
	v := uint64(0)
	over := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if !over && v > (1<<63-d)/10 {
			over = true
		}
		if !over {
			v = v*10 + d
		}
	}
	switch {
	case neg && (over || v >= 1<<63):
		return math.MinInt64
	case neg:
		return -int(v)
	case over || v >= 1<<63:
		return math.MaxInt64
	}
	return int(v)
}

// sortCutoffs sorts integer cutoffs as trec_eval does: glibc's merge sort
// with a comparator that returns the 64-bit difference truncated to an int,
// so cutoffs 2^31 or more apart may come out of order.
func sortCutoffs(a []int) {
	tmp := make([]int, len(a))
	var msort func(a []int)
	msort = func(a []int) {
		if len(a) <= 1 {
			return
		}
		n1 := len(a) / 2
		msort(a[:n1])
		msort(a[n1:])
		b1, b2 := a[:n1], a[n1:]
		k := 0
		for len(b1) > 0 && len(b2) > 0 {
			if int32(uint64(b1[0])-uint64(b2[0])) <= 0 {
				tmp[k], b1 = b1[0], b1[1:]
			} else {
				tmp[k], b2 = b2[0], b2[1:]
			}
			k++
		}
		k += copy(tmp[k:], b1)
		copy(tmp[k:], b2)
		copy(a, tmp[:len(a)])
	}
	msort(a)
}

// atof parses the longest numeric prefix of s like C atof.
func atof(s string) float64 { return parseFloatPrefix([]byte(strings.TrimLeft(s, " \t\n\v\f\r"))) }

// build turns the request into columns, checking parameters as trec_eval's
// init_meas does (exit 2 on bad cutoffs).
func (r *request) build() (*plan, error) {
	p := &plan{relstring: -1}
	cannot := func(name, why string) error {
		return &trecError{msg: why + fmt.Sprintf("trec_eval: Cannot initialize measure '%s'\n", name), code: 2}
	}
	for i := range measures {
		d := &measures[i]
		if !r.marked[d.name] {
			continue
		}
		if p.calcName == "" && d.name != "runid" && d.name != "num_q" {
			p.calcName = d.name
		}
		ps, given := r.params[d.name]
		if !given {
			ps = d.defaults
		}
		switch d.params {
		case pNone:
			switch d.name {
			case "runid":
				p.hasRunid = true
				p.cols = append(p.cols, column{name: d.name, def: d, agg: aggOnly})
			case "num_q":
				p.hasNumQ = true
				p.cols = append(p.cols, column{name: d.name, def: d, agg: aggOnly, integer: true})
			default:
				p.cols = append(p.cols, simpleColumn(d))
			}
		case pIntCuts:
			cuts := []int{}
			for _, f := range strings.Split(ps, ",") {
				cuts = append(cuts, atol(f))
			}
			sortCutoffs(cuts)
			if cuts[0] <= 0 {
				return nil, cannot(d.name, "trec_eval: Negative cutoff detected\n")
			}
			for j := 1; j < len(cuts); j++ {
				if cuts[j] == cuts[j-1] {
					return nil, cannot(d.name, "trec_eval: duplicate cutoffs detected\n")
				}
			}
			// trec_eval's cutoff measures walk the ranking once, taking
			// the value of the next cutoff in list order when the rank
			// equals it and the rest from the end of the ranking. A list
			// its sort left out of order (cutoffs 2^31 or more apart) can
			// be matched only up to the first cutoff not above the one
			// before it; that one and all after it get the end-of-ranking
			// values (blockedCutColumn). Up to there the list ascends and
			// the usual columns give the walk's values.
			inc := 1
			for inc < len(cuts) && cuts[inc] > cuts[inc-1] {
				inc++
			}
			for j, k := range cuts {
				if j < inc {
					p.cols = append(p.cols, intCutColumn(d, k))
				} else {
					p.cols = append(p.cols, blockedCutColumn(d, k))
				}
			}
		case pFloatCuts:
			cuts := []float64{}
			for _, f := range strings.Split(ps, ",") {
				cuts = append(cuts, atof(f))
			}
			slices.SortFunc(cuts, func(a, b float64) int {
				switch {
				case a < b:
					return -1
				case a > b:
					return 1
				}
				return 0
			})
			for j := 1; j < len(cuts); j++ {
				if cuts[j] == cuts[j-1] {
					return nil, cannot(d.name, "trec_eval: duplicate cutoffs detected\n")
				}
			}
			for _, x := range cuts {
				p.cols = append(p.cols, floatCutColumn(d, x))
			}
		case pFloats:
			var vals []float64
			for _, f := range strings.Split(ps, ",") {
				vals = append(vals, atof(f))
			}
			name := d.name
			if given {
				name = d.name + "_" + ps
			}
			switch d.name {
			case "relstring":
				p.relstring = int(vals[0])
				n := p.relstring
				p.cols = append(p.cols, column{name: name, def: d, agg: aggNone, zeroMissing: !given,
					str: func(x *evalCtx) string { return x.t.Relstring(n) }})
			case "utility":
				if len(vals) != 4 {
					// trec_eval fails when it first calculates the measure.
					p.utilityBad = true
					vals = append(vals, 0, 0, 0, 0)
				}
				a, b, c, dd := vals[0], vals[1], vals[2], vals[3]
				p.cols = append(p.cols, column{name: name, def: d, zeroMissing: !given, value: func(x *evalCtx) float64 {
					return x.t.Utility(a, b, c, dd, x.numDocs)
				}})
			case "11pt_avg":
				pts := vals
				p.cols = append(p.cols, column{name: name, def: d, value: func(x *evalCtx) float64 { return x.t.ElevenPtAvg(pts) }})
			case "set_F":
				beta := vals[0]
				p.cols = append(p.cols, column{name: name, def: d, value: func(x *evalCtx) float64 { return x.t.SetF(beta) }})
			}
		case pPairs:
			spec, err := parsePairs(ps)
			if err != nil {
				return nil, cannot(d.name, err.Error()+"\n")
			}
			gi := len(p.gains)
			p.gains = append(p.gains, spec)
			name := d.name
			if given {
				name = d.name + "_" + ps
			}
			p.cols = append(p.cols, pairColumn(d, name, gi, spec.p, !given))
		}
	}
	return p, nil
}

// parsePairs reads "1=3,2=9,p=0.8" (trec_eval get_param_pairs).
func parsePairs(ps string) (pairSpec, error) {
	spec := pairSpec{p: 0.9}
	if ps == "" {
		return spec, nil
	}
	// Validate the shape as trec_eval does: alternating '=' then ','.
	last := byte(',')
	bad := false
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case ',':
			if last == ',' {
				bad = true
			}
			last = ','
		case '=':
			if last == '=' {
				bad, last = true, ','
			} else {
				last = '='
			}
		}
		if bad {
			break
		}
	}
	if bad || last != '=' {
		return spec, fmt.Errorf("trec_eval: malformed pair parameters in '%s'", ps)
	}
	for _, item := range strings.Split(ps, ",") {
		k, v, _ := strings.Cut(item, "=")
		val := atof(v)
		if k == "p" {
			spec.p = val
			continue
		}
		if lv, err := strconv.Atoi(k); err == nil {
			spec.custom = append(spec.custom, metric.LevelGain{Level: lv, Gain: val})
		}
	}
	return spec, nil
}

func simpleColumn(d *measureDef) column {
	c := column{name: d.name, def: d, agg: d.agg, integer: d.integer}
	switch d.name {
	case "num_ret":
		c.zeroMissing = true
		c.value = func(x *evalCtx) float64 { return float64(x.t.NumRet()) }
	case "num_rel":
		c.value = func(x *evalCtx) float64 { return float64(x.t.NumRel()) }
	case "num_rel_ret":
		c.value = func(x *evalCtx) float64 { return float64(x.t.NumRelRet()) }
	case "map", "gm_map":
		c.value = func(x *evalCtx) float64 { return x.t.AP() }
	case "Rprec":
		c.value = func(x *evalCtx) float64 { return x.t.RPrec() }
	case "bpref", "gm_bpref":
		c.value = func(x *evalCtx) float64 { return x.t.Bpref() }
	case "recip_rank":
		c.value = func(x *evalCtx) float64 { return x.t.RecipRank() }
	case "infAP":
		c.value = func(x *evalCtx) float64 { return x.t.InfAP() }
	case "binG":
		c.value = func(x *evalCtx) float64 { return x.t.BinG() }
	case "set_P":
		c.value = func(x *evalCtx) float64 { return x.t.SetP() }
	case "set_relative_P":
		c.value = func(x *evalCtx) float64 { return x.t.SetRelativeP() }
	case "set_recall":
		c.value = func(x *evalCtx) float64 { return x.t.SetRecall() }
	case "set_map":
		c.value = func(x *evalCtx) float64 { return x.t.SetMap() }
	case "num_nonrel_judged_ret":
		c.value = func(x *evalCtx) float64 { return float64(x.t.NumNonrelJudgedRet()) }
	case "yaap":
		c.value = func(x *evalCtx) float64 { return x.t.YAAP() }
	default:
		panic("trec: no value for measure " + d.name)
	}
	return c
}

func intCutColumn(d *measureDef, k int) column {
	c := column{name: d.name + "_" + strconv.Itoa(k), def: d, agg: d.agg}
	switch d.name {
	case "P":
		c.value = func(x *evalCtx) float64 { return x.t.P(k) }
	case "recall":
		c.value = func(x *evalCtx) float64 { return x.t.Recall(k) }
	case "ndcg_cut":
		c.value = func(x *evalCtx) float64 { return x.t.NDCGCut(k, nil) }
	case "map_cut":
		c.value = func(x *evalCtx) float64 { return x.t.APCut(k) }
	case "relative_P":
		c.value = func(x *evalCtx) float64 { return x.t.RelativeP(k) }
	case "success":
		c.value = func(x *evalCtx) float64 { return x.t.Success(k) }
	case "unj":
		c.zeroMissing = true
		c.value = func(x *evalCtx) float64 { return x.t.Unj(k) }
	}
	return c
}

// blockedCutColumn is cutoff k of an integer-cutoff measure whose walk
// never reaches it (see build): trec_eval computes it from the whole
// ranking, dividing by k where the measure divides by the cutoff, so a
// cutoff <= 0 that the sort left behind gives inf, nan or a negative value.
func blockedCutColumn(d *measureDef, k int) column {
	c := column{name: d.name + "_" + strconv.Itoa(k), def: d, agg: d.agg}
	switch d.name {
	case "P":
		c.value = func(x *evalCtx) float64 { return float64(x.t.RelevantRanks()) / float64(k) }
	case "recall":
		c.value = func(x *evalCtx) float64 { return x.t.Recall(math.MaxInt) }
	case "ndcg_cut":
		c.value = func(x *evalCtx) float64 { return x.t.NDCGCut(math.MaxInt, nil) }
	case "map_cut":
		c.value = func(x *evalCtx) float64 { return x.t.APCut(math.MaxInt) }
	case "relative_P":
		c.value = func(x *evalCtx) float64 {
			r := x.t.NumRel()
			if r == 0 {
				return 0
			}
			return float64(x.t.RelevantRanks()) / float64(min(k, r))
		}
	case "success":
		c.value = func(x *evalCtx) float64 { return x.t.Success(math.MaxInt) }
	case "unj":
		c.zeroMissing = true
		c.value = func(x *evalCtx) float64 { return float64(x.t.UnjudgedRanks()) / float64(k) }
	}
	return c
}

// floatName renders name_%3.2f in a buffer of len(name)+10 bytes, as
// trec_eval does (so very long values are cut).
func floatName(name string, x float64) string {
	s := name + "_" + cFixed2(x)
	if lim := len(name) + 9; len(s) > lim {
		s = s[:lim]
	}
	return s
}

// cFixed2 is C's %.2f: infinities and NaNs print as glibc prints them
// ("inf", "-inf", "nan", "-nan"), not as Go does ("+Inf", "NaN").
func cFixed2(x float64) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func floatCutColumn(d *measureDef, x float64) column {
	c := column{name: floatName(d.name, x), def: d, agg: d.agg}
	switch d.name {
	case "iprec_at_recall":
		c.value = func(e *evalCtx) float64 { return e.t.IPrecAtRecall(x) }
	case "Rprec_mult":
		c.value = func(e *evalCtx) float64 { return e.t.RPrecMult(x) }
	}
	return c
}

// pairColumn is one measure with level=gain parameters; bare marks the name
// without parameters (only rbp_resid's bare name is reset on a -c topic).
func pairColumn(d *measureDef, name string, gi int, p float64, bare bool) column {
	c := column{name: name, def: d, agg: d.agg}
	switch d.name {
	case "G":
		c.value = func(x *evalCtx) float64 { return x.t.G(x.table(gi)) }
	case "dcg":
		c.value = func(x *evalCtx) float64 { return x.t.DCG(x.table(gi)) }
	case "ideal_dcg":
		c.value = func(x *evalCtx) float64 { return x.t.IdealDCG(x.table(gi)) }
	case "ndcg":
		c.value = func(x *evalCtx) float64 { return x.t.NDCG(x.table(gi)) }
	case "ndcg_rel":
		c.value = func(x *evalCtx) float64 { return x.t.NDCGRel(x.table(gi)) }
	case "Rndcg":
		c.value = func(x *evalCtx) float64 { return x.t.RNDCG(x.table(gi)) }
	case "rbp":
		c.value = func(x *evalCtx) float64 { return x.t.RBP(p, x.table(gi)) }
	case "rbp_resid":
		c.zeroMissing = bare
		c.value = func(x *evalCtx) float64 { return x.t.RBPResid(p) }
	}
	return c
}
