package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"
	"github.com/assay-eval/assay/harness"
)

// assay run reads the environment only through Plan.Getenv:
// $GITHUB_STEP_SUMMARY of the process is not looked at.
func TestRunReadsTheEnvironmentOnlyThroughGetenv(t *testing.T) {
	dir := t.TempDir()
	fromProcess := filepath.Join(dir, "process.md")
	fromPlan := filepath.Join(dir, "plan.md")
	t.Setenv("GITHUB_STEP_SUMMARY", fromProcess)
	res, err := cli.Run(context.Background(), cli.RunPlan{
		Markdown: filepath.Join(dir, "out.md"),
		Plan: harness.Plan{SuitePath: "../../../../examples/quickstart/suite.yaml", Trials: 1, Concurrency: 2,
			Getenv: func(k string) string {
				if k == "GITHUB_STEP_SUMMARY" {
					return fromPlan
				}
				return ""
			}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if _, err := os.Stat(fromProcess); err == nil {
		t.Errorf("the process environment's GITHUB_STEP_SUMMARY was written")
	}
	if b, err := os.ReadFile(fromPlan); err != nil || !strings.Contains(string(b), "quickstart") {
		t.Errorf("the plan's GITHUB_STEP_SUMMARY: %q, %v", b, err)
	}
}
