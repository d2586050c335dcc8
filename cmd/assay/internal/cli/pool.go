package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/pool"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// PoolPlan is `assay pool RUN... --depth K`: the unjudged documents of
// the runs' top K, to label.
type PoolPlan struct {
	Refs  []string
	Depth int
	// Suite is the suite whose judgments, queries and corpus are read
	// (default the suite path the first run recorded).
	Suite string
	// Out is the pool file ("-" or "": stdout); Format "jsonl" or "tsv"
	// ("": by Out's extension, else jsonl).
	Out, Format    string
	Stdout, Stderr io.Writer
	Secrets        *redact.Redactor
	Store          store.Store
}

// Pool writes the pool of p.
func Pool(ctx context.Context, p PoolPlan) error {
	if p.Depth < 1 {
		return usageError("assay pool RUN... --depth K", "--depth must be 1 or more, got %d", p.Depth)
	}
	format := strings.ToLower(p.Format)
	if format == "" {
		format = "jsonl"
		if strings.HasSuffix(strings.ToLower(p.Out), ".tsv") {
			format = "tsv"
		}
	}
	if format != "jsonl" && format != "tsv" {
		return usageError("", "--format: unknown pool format %q (want jsonl or tsv)", p.Format)
	}
	type loadedRun struct {
		run  *assay.Run
		path string
	}
	runs := make([]loadedRun, 0, len(p.Refs))
	for _, ref := range p.Refs {
		run, path, err := harness.LoadRef(ctx, p.Store, ref)
		if err != nil {
			return inputError(err)
		}
		runs = append(runs, loadedRun{run, path})
	}
	sp := p.Suite
	if sp == "" {
		sp = runs[0].run.Suite.Path
	}
	if sp == "" {
		return usageError("give --suite PATH", "run %s records no suite path to read the judgments from", report.ShortID(runs[0].run.RunID))
	}
	s, err := suite.Load(sp)
	if err != nil {
		return inputError(err)
	}
	warns := append([]string(nil), s.Warnings...)
	for _, r := range runs {
		if r.run.Suite.Fingerprint != "" && r.run.Suite.Name != s.Name {
			warns = append(warns, fmt.Sprintf("run %s is of suite %q, not %q: its cases are matched by id", report.ShortID(r.run.RunID), r.run.Suite.Name, s.Name))
		}
	}
	pl := pool.New(s, p.Depth)
	for i, r := range runs {
		err := harness.RefCases(ctx, p.Store, r.run, r.path, true, func(cr assay.CaseResult) error {
			pl.Add(i, cr)
			return nil
		})
		if err != nil {
			return inputError(err)
		}
	}
	entries, st := pl.Entries(s)
	if st.Unknown > 0 {
		warns = append(warns, fmt.Sprintf("%d case %s of the runs %s not in suite %s: left out", st.Unknown, plural(st.Unknown, "id", "ids"), plural(st.Unknown, "is", "are"), sp))
	}
	err = WriteTo(p.Stdout, p.Secrets, p.Out, func(w io.Writer) error {
		if format == "tsv" {
			return writePoolTSV(w, entries)
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if p.Stderr != nil {
		report.Warnings(p.Stderr, warns)
		fmt.Fprintf(p.Stderr, "assay: pool: %d %s to judge for %d %s (the top %d of %d %s hold %d, %d judged already)\n",
			len(entries), plural(len(entries), "document", "documents"), st.Cases, plural(st.Cases, "case", "cases"),
			p.Depth, len(runs), plural(len(runs), "run", "runs"), st.Pooled, st.Judged)
	}
	return nil
}

// writePoolTSV writes entries as TSV under a header line: case, doc,
// grade (empty), labeller (empty), rank, runs, query, title, text. Tabs and
// line breaks inside a value are written as spaces, so a row stays a line.
func writePoolTSV(w io.Writer, entries []pool.Entry) error {
	if _, err := io.WriteString(w, "case\tdoc\tgrade\tlabeller\trank\truns\tquery\ttitle\ttext\n"); err != nil {
		return err
	}
	flat := strings.NewReplacer("\t", " ", "\r\n", " ", "\n", " ", "\r", " ")
	for _, e := range entries {
		row := []string{e.Case, e.Doc, "", e.Labeller, strconv.Itoa(e.Rank), strconv.Itoa(e.Runs), e.Query, e.Title, e.Text}
		for i := range row {
			row[i] = flat.Replace(row[i])
		}
		if _, err := io.WriteString(w, strings.Join(row, "\t")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
