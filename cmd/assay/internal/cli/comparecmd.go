package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/metric"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// ComparePlan is `assay compare BASE CAND`.
type ComparePlan struct {
	Base, Cand string // run REFs (store.ResolveRef)
	// Case, when set, shows that case of both runs whole (WriteCase)
	// instead of the comparison.
	Case string
	// JSON and Markdown write the comparison (report.CompareJSON,
	// report.CompareMarkdown) to a file, or Stdout for "-" (the text then
	// goes to Stderr).
	JSON, Markdown string
	// StoreDir is where REFs that are not paths are resolved.
	StoreDir     string
	StoreOptions store.OpenOptions
	// Stdout gets the text; Stderr what the store had to repair.
	Stdout, Stderr io.Writer
	Secrets        *redact.Redactor
	// Options are the margins, multiplicity and history of the comparison.
	Options harness.CompareOptions
	// FailOnInconclusive makes an inconclusive verdict exit 1; otherwise a
	// one-line warning goes to Stderr.
	FailOnInconclusive bool
}

// Compare compares the runs of p (CompareRefs), shows the comparison as
// text (report.CompareText), writes the outputs, and returns the outcome
// (CompareErr).
func Compare(ctx context.Context, p ComparePlan) error {
	jsonOut, mdOut := Output{Flag: "--json", Path: p.JSON}, Output{Flag: "--markdown", Path: p.Markdown}
	if err := DistinctOutputs([]Output{jsonOut, mdOut}); err != nil {
		return err
	}
	st, err := OpenRefStore(p.StoreDir, p.StoreOptions, p.Base, p.Cand)
	if err != nil {
		return inputError(err)
	}
	if st != nil {
		defer st.Close()
		report.Warnings(p.Stderr, st.Warnings())
	}
	if p.Case != "" {
		if err := WriteCase(ctx, p.Stdout, st, p.Base, p.Case, "base"); err != nil {
			return err
		}
		fmt.Fprintln(p.Stdout)
		return WriteCase(ctx, p.Stdout, st, p.Cand, p.Case, "cand")
	}
	opts := p.Options
	opts.Outputs = map[string]string{"JSON": p.JSON, "Markdown": p.Markdown}
	rep, err := harness.CompareRefs(ctx, st, p.Base, p.Cand, opts)
	if err != nil {
		return err
	}
	text := p.Stdout
	if p.JSON == "-" || p.Markdown == "-" {
		text = p.Stderr
	}
	if err := report.CompareText(text, rep); err != nil {
		return inputError(err)
	}
	if p.JSON != "" {
		if err := WriteTo(p.Stdout, p.Secrets, p.JSON, func(w io.Writer) error { return report.CompareJSON(w, rep) }); err != nil {
			return inputError(err)
		}
	}
	if p.Markdown != "" {
		if err := WriteTo(p.Stdout, p.Secrets, p.Markdown, func(w io.Writer) error { return report.CompareMarkdown(w, rep) }); err != nil {
			return inputError(err)
		}
	}
	if w := InconclusiveWarning(rep); w != "" && !p.FailOnInconclusive {
		report.Warnings(p.Stderr, []string{w})
	}
	return CompareOutcome(rep, p.FailOnInconclusive)
}

// WriteCase writes every trial of the case id of the run ref whole
// (RefCaseViews, report.CaseDetails) under heading ("" for none).
func WriteCase(ctx context.Context, w io.Writer, st store.Store, ref, id, heading string) error {
	run, views, err := harness.RefCaseViews(ctx, st, ref, id)
	if err != nil {
		return inputError(err)
	}
	return report.CaseDetails(w, heading, run.RunID, views)
}

// ParseMargins reads equivalence margins written NAME=VALUE (--margin
// ndcg@10=0.01): NAME is pass_rate or a metric (any spelling
// metric.Parse accepts, kept in its canonical form), VALUE a number >= 0.
func ParseMargins(specs []string) (map[string]float64, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, s := range specs {
		name, val, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usageError("write it as MEASURE=VALUE, for example --margin ndcg@10=0.01", "--margin %q: want MEASURE=VALUE", s)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, usageError("a margin is a number >= 0 in the measure's units, for example --margin ndcg@10=0.01", "--margin %q: %q is not a margin", s, val)
		}
		key := strings.ToLower(name)
		if key != "pass_rate" && !assay.IsNuggetMetric(key) {
			spec, err := metric.Parse(name)
			if err != nil {
				return nil, usageError("name pass_rate or a metric such as ndcg@10", "--margin %q: %v", s, err)
			}
			key = spec.String()
		}
		out[key] = v
	}
	return out, nil
}
