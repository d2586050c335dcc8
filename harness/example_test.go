package harness_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	_ "github.com/assay-eval/assay/harness/opener" // registers the openers of target specs and the judge
	"github.com/assay-eval/assay/suite"
)

// Run the quickstart golden set against the built-in BM25 engine: nothing
// but the suite and the target is set, so there is no store, one trial,
// runner.DefaultConcurrency cases in flight and the default timeout. The
// target spec is opened by package harness/opener, which this file
// imports blank: its init registers it, as a database/sql driver does.
// The run is made, graded, gated and returned.
func ExampleRun() {
	s, err := suite.Load("../examples/quickstart/suite.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := harness.Run(context.Background(), harness.Plan{Suite: s, Target: "builtin"})
	if res == nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	run := res.Runs[0]
	fmt.Println(run.Suite.Name, run.Status, run.Summary.Cases, "cases", run.Options.Trials, "trial")
	for _, g := range run.Gates {
		fmt.Println(g.Expr, g.Pass)
	}
	fmt.Println("outcome:", err)
	// Output:
	// quickstart complete 24 cases 1 trial
	// pass_rate >= 0.8 true
	// ndcg@10 >= 0.7 true
	// error_rate <= 0 true
	// p95_latency_ms <= 2000 true
	// outcome: <nil>
}

// A Go value is the system under test: here one that never answers, so
// the suite's gates fail and Run says so with an error of kind
// GateFailed.
func ExampleRun_system() {
	silent := assay.TargetFunc(func(_ context.Context, c assay.Case) (assay.Observation, error) {
		return assay.Observation{Case: c.ID}, nil
	})
	res, err := harness.Run(context.Background(), harness.Plan{
		SuitePath: "../examples/quickstart/suite.yaml",
		System:    silent,
	})
	if res == nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	fmt.Println(harness.KindOf(err) == harness.GateFailed, res.Runs[0].Summary.Passed)
	// Output:
	// true 0
}

// A plan that cannot work is a Usage error naming the field, before
// anything runs.
func ExampleRun_usage() {
	_, err := harness.Run(context.Background(), harness.Plan{
		SuitePath: "../examples/quickstart/suite.yaml",
		Trials:    -1,
	})
	var pe *harness.PlanError
	fmt.Println(harness.KindOf(err) == harness.Usage, errors.As(err, &pe) && pe.Field == "Trials")
	fmt.Println(err)
	// Output:
	// true true
	// Trials must be >= 1, got -1
}
