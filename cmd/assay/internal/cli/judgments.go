package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/assay-eval/assay/pool"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
)

// JudgmentsImportPlan is `assay judgments import FILE... --suite SUITE`:
// labels people made merged into the suite's judgments file.
type JudgmentsImportPlan struct {
	Files      []string
	Suite      string
	OnConflict pool.OnConflict
	Labeller   string
	Now        func() time.Time
	Stdout     io.Writer
	Stderr     io.Writer
}

// JudgmentsImport merges the labels of p.Files into the judgments_file of
// p.Suite (rewritten whole or not at all) and prints what changed.
func JudgmentsImport(p JudgmentsImportPlan) error {
	s, err := suite.Load(p.Suite)
	if err != nil {
		return inputError(err)
	}
	if s.JudgmentsFile == "" {
		return usageError(fmt.Sprintf("add the line \"judgments_file: judgments.jsonl\" to %s (the labels go there, and the suite reads them)", p.Suite),
			"suite %s names no judgments_file to import the labels into", p.Suite)
	}
	existing, _, err := suite.OpenLabels(s.JudgmentsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return inputError(err)
	}
	res := pool.MergeResult{Labels: existing}
	unlabelled := 0
	for _, f := range p.Files {
		incoming, skipped, err := suite.OpenLabels(f)
		if err != nil {
			return inputError(err)
		}
		unlabelled += skipped
		r, err := pool.Merge(s, s.JudgmentsFile, res.Labels, f, incoming, pool.MergeOptions{OnConflict: p.OnConflict, Labeller: p.Labeller, Now: p.Now})
		var missing *pool.MissingLabellerError
		var conflicts *pool.ConflictsError
		switch {
		case errors.As(err, &missing):
			return usageError("give --labeller NAME, or a \"labeller\" on each line", "%v", err)
		case errors.As(err, &conflicts):
			hint := "settle them in the file, or give --on-conflict keep, replace, max or min"
			for _, c := range conflicts.Conflicts {
				if c.HaveFrom == pool.SuiteJudgments {
					hint = "a grade of the suite's own judgments: is changed in the suite file; settle the labels in the file, or give --on-conflict keep"
				}
			}
			return usageError(hint, "%s: %v", f, err)
		case err != nil:
			return inputError(err)
		}
		res.Labels = r.Labels
		res.Added += r.Added
		res.Changed += r.Changed
		res.Same += r.Same
		res.Kept += r.Kept
		res.Resolved = append(res.Resolved, r.Resolved...)
	}
	if res.Added+res.Changed > 0 {
		if err := replaceFile(s.JudgmentsFile, func(w io.Writer) error { return suite.WriteLabels(w, res.Labels) }); err != nil {
			return inputError(err)
		}
		// The suite must load with them: a grade its own judgments: state
		// differently was refused above, so this only fails on a bug.
		if _, err := suite.Load(p.Suite); err != nil {
			return inputError(fmt.Errorf("the merged judgments file does not load: %w", err))
		}
	}
	var warns []string
	for _, r := range res.Resolved {
		warns = append(warns, fmt.Sprintf("%q is the path or title of document %q: imported under its id", r.Name, r.ID))
	}
	report.Warnings(p.Stderr, warns)
	fmt.Fprintf(p.Stdout, "imported into %s: %d added, %d changed, %d unchanged, %d kept as they were, %d unlabelled lines skipped\n",
		displayPath(s.JudgmentsFile), res.Added, res.Changed, res.Same, res.Kept, unlabelled)
	return nil
}

// displayPath is path relative to the working directory when it is below
// it.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}
