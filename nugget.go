package assay

// Nuggets are the atomic facts an answer should state (expect.nuggets,
// docs/expectations.md#nuggets), scored as the TREC RAG track scores them
// (docs/metrics.md#nuggets).

// Nugget importances.
const (
	NuggetVital = "vital"
	NuggetOkay  = "okay"
)

// Nugget assignments: how far the answer supports a nugget.
const (
	NuggetSupport        = "support"
	NuggetPartialSupport = "partial_support"
	NuggetNotSupport     = "not_support"
)

// Who assigned a nugget (NuggetResult.By).
const (
	// NuggetByRule: assay's matching rule (match, regex, parts).
	NuggetByRule = "rule"
	// NuggetByJudge: the model judge (assign: judge), for a nugget no
	// rule matched.
	NuggetByJudge = "judge"
	// NuggetByRecord: the assignment written in the suite (assignment:),
	// as imported from another assessor's file; the answer is not read.
	NuggetByRecord = "record"
)

// NuggetAssignJudge is the value of Nugget.Assign that lets the judge
// assign a nugget no rule matched.
const NuggetAssignJudge = "judge"

// The nugget metrics, per case (CaseResult.Metrics) and as means over
// the cases that carry them (Summary.Metrics).
const (
	MetricNuggetStrictVital = "nugget_strict_vital"
	MetricNuggetStrictAll   = "nugget_strict_all"
	MetricNuggetVital       = "nugget_vital"
	MetricNuggetAll         = "nugget_all"
)

// NuggetMetrics are the four nugget metric names, in report order.
var NuggetMetrics = []string{MetricNuggetStrictVital, MetricNuggetStrictAll, MetricNuggetVital, MetricNuggetAll}

// IsNuggetMetric reports whether name is one of NuggetMetrics.
func IsNuggetMetric(name string) bool {
	for _, m := range NuggetMetrics {
		if m == name {
			return true
		}
	}
	return false
}

// NuggetNoVital values (Suite.NuggetNoVital): what the two vital scores of
// a case with nuggets but no vital nugget are.
const (
	// NuggetNoVitalUndefined (the default, also ""): not measured, left
	// out of the case's metrics and of the means.
	NuggetNoVitalUndefined = "undefined"
	// NuggetNoVitalZero: 0, as nuggetizer scores it (the TREC RAG
	// track's numbers).
	NuggetNoVitalZero = "zero"
)

// Nugget is one fact of expect.nuggets.
type Nugget struct {
	// Text is the fact as a sentence; with no Match, Regex or Parts it is
	// also what is looked for in the answer.
	Text string `json:"text"`
	// Importance is NuggetVital (default) or NuggetOkay.
	Importance string `json:"importance"`
	// Match lists alternative spellings: the nugget is supported when
	// any one occurs in the answer (the answer_includes comparison).
	Match []string `json:"match,omitempty"`
	// Regex supports the nugget when it matches the answer (Go RE2).
	Regex string `json:"regex,omitempty"`
	// Parts split the fact: each part is a list of alternatives. Every
	// part found: support; some: partial_support; none: not_support.
	Parts [][]string `json:"parts,omitempty"`
	// Assign is NuggetAssignJudge to let the judge assign the nugget when
	// no rule matched it; "" leaves it to the rules.
	Assign string `json:"assign,omitempty"`
	// Assignment, when set, is the nugget's recorded assignment (an
	// imported assessment): it is used as is and the answer is not read.
	Assignment string `json:"assignment,omitempty"`
}

// Vital reports whether the nugget is vital.
func (n Nugget) Vital() bool { return n.Importance != NuggetOkay }

// NuggetResult is how one nugget of a case was assigned for one answer.
type NuggetResult struct {
	Text       string `json:"text"`
	Importance string `json:"importance"`
	Assignment string `json:"assignment"`
	// By is NuggetByRule, NuggetByJudge (model-assigned) or NuggetByRecord.
	By string `json:"by"`
	// Matched lists what was found: the alternative of each part found,
	// or the regex's match; empty when nothing was.
	Matched []string `json:"matched,omitempty"`
	// At is the byte offset in the answer where the first of Matched
	// starts; nil when nothing was found in the answer.
	At *int `json:"at,omitempty"`
	// Missing lists the parts (their first alternative) not found, for a
	// partially supported nugget.
	Missing []string `json:"missing,omitempty"`
	// Reason is the judge's reason for a model assignment.
	Reason string `json:"reason,omitempty"`
}

// NuggetTally counts nugget assignments over a run's results
// (Summary.Nuggets): by assignment, and by who assigned them (ByJudge:
// model-assigned).
type NuggetTally struct {
	Nuggets    int `json:"nuggets"`
	Support    int `json:"support"`
	Partial    int `json:"partial_support"`
	NotSupport int `json:"not_support"`
	ByRule     int `json:"by_rule"`
	ByJudge    int `json:"by_judge"`
	ByRecord   int `json:"by_record"`
}

// Add counts the nuggets of one result.
func (t *NuggetTally) Add(rs []NuggetResult) {
	for _, n := range rs {
		t.Nuggets++
		switch n.Assignment {
		case NuggetSupport:
			t.Support++
		case NuggetPartialSupport:
			t.Partial++
		default:
			t.NotSupport++
		}
		switch n.By {
		case NuggetByJudge:
			t.ByJudge++
		case NuggetByRecord:
			t.ByRecord++
		default:
			t.ByRule++
		}
	}
}
