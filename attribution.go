package assay

// Attribution metric names: per-case values that package grade puts in
// CaseResult.Metrics when the answer cites at sentence level
// (docs/metrics.md#attribution). Each is undefined (absent) for a case
// whose answer cites nothing at sentence level.
const (
	MetricSupportRate       = "support_rate"
	MetricCitationPrecision = "citation_precision"
	MetricCitationRecall    = "citation_recall"
)

// AttributionMetrics lists the attribution metric names, in report order.
var AttributionMetrics = []string{MetricSupportRate, MetricCitationPrecision, MetricCitationRecall}

// IsAttributionMetric reports whether name is one of AttributionMetrics.
func IsAttributionMetric(name string) bool {
	for _, n := range AttributionMetrics {
		if n == name {
			return true
		}
	}
	return false
}

// SupportLabel is what sentence-level attribution says of one answer
// sentence.
type SupportLabel string

// Support labels.
const (
	// Supported: a passage the sentence cites supports it.
	Supported SupportLabel = "supported"
	// Unsupported: the sentence cites passages, and none supports it.
	Unsupported SupportLabel = "unsupported"
	// Uncited: the sentence cites nothing.
	Uncited SupportLabel = "uncited"
)

// Attribution is the sentence-level attribution of one answer: its
// sentences in order, each with its citations and label.
type Attribution struct {
	Sentences []SentenceSupport `json:"sentences"`
}

// SentenceSupport is one answer sentence as attribution graded it.
type SentenceSupport struct {
	// Text is the sentence, without its [n] citation markers.
	Text  string       `json:"text"`
	Label SupportLabel `json:"label"`
	// Cites are the passages the sentence cites, by their document key
	// (id, else path, else title); a marker [n] beyond the ranking is
	// kept as "[n]", a passage that cannot support anything.
	Cites []string `json:"cites,omitempty"`
	// Supporting are the cited passages that support the sentence, and
	// By how: "nugget" (a passage contains a nugget of the case) or
	// "overlap" (the lexical overlap rule).
	Supporting []string `json:"supporting,omitempty"`
	By         string   `json:"by,omitempty"`
}
