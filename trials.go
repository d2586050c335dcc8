package assay

// TrialStats summarises the trials of a run (one result per case and trial): how many
// trials of each case passed, pass@N and pass^N, the flaky cases, and each
// metric's mean and standard deviation across trials.
type TrialStats struct {
	// Trials is the largest number of trials any case has.
	Trials int `json:"trials"`
	// Cases has one entry per case id, in id order.
	Cases []CaseTrials `json:"cases"`
	// Graded is the number of graded cases (some trial stated a pass/fail).
	Graded int `json:"graded"`
	// PassAny is pass@N: graded cases with at least one passing trial / graded.
	// PassAll is pass^N: graded cases whose every trial passed / graded.
	// Both are nil when no case is graded.
	PassAny *float64 `json:"pass_any_rate"`
	PassAll *float64 `json:"pass_all_rate"`
	// Flaky lists the ids of graded cases whose trials disagree (some
	// passed, some did not), in id order.
	Flaky []string `json:"flaky"`
	// Metrics holds, per metric, the mean over trials of the per-trial mean
	// over cases, and the sample standard deviation of those per-trial
	// means (0 with a single trial).
	Metrics map[string]MeanSD `json:"metrics,omitempty"`
}

// CaseTrials is one case across its trials.
type CaseTrials struct {
	ID     string `json:"id"`
	Trials int    `json:"trials"`
	// Passed counts passing trials; Errors trials whose target failed.
	Passed int  `json:"passed"`
	Errors int  `json:"errors,omitempty"`
	Graded bool `json:"graded"`
	// PassAny: some trial passed (pass@N). PassAll: every trial passed
	// (pass^N). Flaky: graded and the trials disagree.
	PassAny bool `json:"pass_any"`
	PassAll bool `json:"pass_all"`
	Flaky   bool `json:"flaky"`
	// Metrics are this case's metric means over its trials.
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// MeanSD is a mean with the standard deviation across trials and the number
// of trials it is over.
type MeanSD struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}
