package ui

import (
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/harness/opener"
)

// opened is p with what opens target specs and makes judges, as the assay
// command sets them.
func opened(p harness.Plan) harness.Plan {
	p.Targets, p.Judge.New = opener.Targets{}, opener.Judge
	return p
}
