package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

type failingCleanup struct {
	assay.TargetFunc
	fail map[string]bool
}

func (f *failingCleanup) Cleanup(ctx context.Context, c assay.Case, obs assay.Observation) error {
	if f.fail[c.ID] {
		return errors.New(`step "delete" for case ` + c.ID + `: 500 Internal Server Error`)
	}
	return nil
}

// A failing cleanup is recorded as a failed check of its case (which keeps
// its verdict) and told in the run's warnings, the first few by name.
func TestFailedCleanupIsRecordedAndWarned(t *testing.T) {
	tgt := &failingCleanup{TargetFunc: answer("ok"), fail: map[string]bool{"c01": true, "c03": true}}
	res, err := Run(context.Background(), tgt, cases(4), Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		var cl *assay.Check
		for i := range r.Checks {
			if r.Checks[i].Kind == CleanupCheck {
				cl = &r.Checks[i]
			}
		}
		if r.Pass == nil || !*r.Pass {
			t.Errorf("case %s: the cleanup changed its verdict: %v", r.ID, r.Pass)
		}
		switch {
		case tgt.fail[r.ID] && (cl == nil || cl.Pass || !strings.Contains(cl.Detail, "cleanup failed: step \"delete\"")):
			t.Errorf("case %s: cleanup check %+v, want a failed one with the error", r.ID, cl)
		case !tgt.fail[r.ID] && cl != nil:
			t.Errorf("case %s: cleanup check %+v on a clean cleanup", r.ID, cl)
		}
	}
	w := strings.Join(res.Warnings, "\n")
	if len(res.Warnings) != 2 || !strings.HasPrefix(res.Warnings[0], "case c01 (trial 0): cleanup failed: ") || !strings.HasPrefix(res.Warnings[1], "case c03 (trial 0): ") {
		t.Errorf("warnings:\n%s", w)
	}

	all := &failingCleanup{TargetFunc: answer("ok"), fail: map[string]bool{}}
	for _, c := range cases(8) {
		all.fail[c.ID] = true
	}
	res, _ = Run(context.Background(), all, cases(8), Options{})
	if len(res.Warnings) != maxCleanupWarnings+1 || res.Warnings[maxCleanupWarnings] != "the cleanup of 3 more cases failed (see their cleanup checks)" {
		t.Errorf("8 failed cleanups: warnings %q", res.Warnings)
	}
}
