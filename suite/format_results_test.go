package suite_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/runner"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
)

// runBuiltin runs s against the built-in target and returns, per case, what
// a run reports: pass, checks and metric values (latency left out).
func runBuiltin(t *testing.T, s *assay.Suite) map[string]assay.CaseResult {
	t.Helper()
	var tgt assay.Target = assay.TargetFunc(func(ctx context.Context, c assay.Case) (assay.Observation, error) {
		// No corpus (kebab): a fixed answer that passes some checks and not others.
		return assay.Observation{Case: c.ID, Answer: "Sieve it through 80 mesh; wedge it"}, nil
	})
	if len(s.Corpus) > 0 {
		b, err := target.Open("builtin", target.Options{Suite: s})
		if err != nil {
			t.Fatal(err)
		}
		defer target.Close(b)
		tgt = b
	}
	gopts, err := grade.NewOptions(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), tgt, s.Cases, runner.Options{Concurrency: 2, Grade: gopts})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]assay.CaseResult{}
	for _, r := range res.Results {
		r.LatencyMs, r.Stages, r.Observation = nil, nil, nil
		out[r.ID] = r
	}
	return out
}

// Importing a golden set and running the native file gives the same results
// as running the original: per case the same pass, checks and metrics.
func TestImportGivesSameResults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, src string }{
		{suite.FormatGNO, "gno/queries.json"},
		{suite.FormatGNOAsk, "gno/ask.json"},
		{suite.FormatKebab, "kebab/golden.yaml"},
		{suite.FormatKnowlex, "knowlex/golden.json"},
		{suite.FormatBEIR, "beir"},
		{suite.FormatTREC, "trec"},
		{suite.FormatCranfield, "cranfield"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			src := filepath.Join("testdata", "formats", tc.src)
			orig, err := suite.Load(src)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "native.yaml")
			if _, _, err := suite.Import(tc.format, src, out, suite.LoadOptions{}); err != nil {
				t.Fatal(err)
			}
			back, err := suite.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			a, b := runBuiltin(t, orig), runBuiltin(t, back)
			if len(a) != len(orig.Cases) || len(a) == 0 {
				t.Fatalf("%d results for %d cases", len(a), len(orig.Cases))
			}
			for id, ra := range a {
				rb := b[id]
				ra.Source, rb.Source = "", "" // the original file's position, the imported file's
				if !reflect.DeepEqual(ra, rb) {
					t.Errorf("case %s:\n original %+v\n imported %+v", id, ra, rb)
				}
			}
		})
	}
}
