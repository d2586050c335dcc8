package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
	"github.com/assay-eval/assay/traces"
)

// RunPlan is `assay run`: the pipeline's plan and the files the command
// writes besides the store ("-": Stdout): the assay.run/v1 JSON, JUnit
// XML, markdown (also appended to $GITHUB_STEP_SUMMARY), a badge, a report
// directory, the trace of every observation (Record), TREC run and qrels
// files, and the answers in the TREC RAG format (TrecRAG). Timeout 0 is no
// timeout (--timeout 0).
type RunPlan struct {
	harness.Plan
	JSON, JUnit, Markdown, Badge, ReportDir string
	// ReportURL is where the run's HTML report (--html DIR) is served, a
	// URL or a path relative to the markdown's reader: the markdown links
	// each case it lists to its page there (MarkdownOptions). "": no links.
	ReportURL string
	// OTel is the OTLP/JSON file of the results (package traces'
	// Evaluations).
	OTel                        string
	Record                      string
	TrecRun, TrecQrels, TrecTag string
	TrecRAG                     string
	Stdout                      io.Writer
}

// Run checks the flags and outputs of p, runs its plan with the trace and
// TREC files attached to each run's results (harness.Plan.OnRun), and
// writes the reports of the result. It returns the result whenever runs
// were made, with the run's outcome, or the error of writing an output.
func Run(ctx context.Context, p RunPlan) (*harness.Result, error) {
	if p.Stdout == nil {
		p.Stdout = io.Discard
	}
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	if p.Secrets == nil {
		p.Secrets = redact.New()
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	hp := p.Plan
	if hp.Timeout == 0 {
		hp.Timeout = -1 // none
	}
	hp.Names = FlagName
	hp.OnRun = p.onRun
	res, err := harness.Run(ctx, hp)
	if res == nil {
		return nil, err
	}
	if werr := p.writeReports(res); werr != nil {
		return res, inputError(werr)
	}
	return res, err
}

// check rejects flag values out of range and outputs that cannot be
// written, before anything runs: two outputs sent to stdout ("-") or to
// one file, a directory that cannot be made, an output naming an input.
func (p *RunPlan) check() error {
	switch {
	case p.K < 0:
		return usageError("", "-k must be >= 0 (0: the suite's), got %d", p.K)
	case p.Trials < 1:
		return usageError("", "--trials must be >= 1, got %d", p.Trials)
	case p.Concurrency < 1:
		return usageError("", "-j must be >= 1, got %d", p.Concurrency)
	case p.Timeout < 0:
		return usageError("", "--timeout must be >= 0 (0: none), got %s", p.Timeout)
	}
	if p.Record == "-" {
		return usageError("", "--record writes a file: give a path, not -")
	}
	if err := DistinctOutputs(p.outputs()); err != nil {
		return err
	}
	if err := p.checkTrec(); err != nil {
		return err
	}
	// An output that cannot be written fails now, not after the run.
	for _, o := range append(p.outputs(), Output{"--report-dir", p.ReportDir}) {
		if o.Path == "" || o.Path == "-" {
			continue
		}
		dir := filepath.Dir(o.Path)
		if o.Flag == "--report-dir" {
			dir = o.Path
		} else if fi, err := os.Stat(o.Path); err == nil && fi.IsDir() {
			return usageError("", "%s %s: is a directory, want a file", o.Flag, o.Path)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageError("", "%s %s: %v", o.Flag, o.Path, err)
		}
	}
	if err := p.checkInputs(); err != nil {
		return err
	}
	if p.Badge == "-" && p.System == nil && target.IsFile(p.Target) {
		// One badge per variant: several JSON documents on stdout would
		// make none of them a valid endpoint badge.
		if m, err := target.ReadMatrix(p.Target); err == nil && len(m.Variants) > 1 {
			return usageError("give --badge a file: badge.json writes badge.VARIANT.json per variant", "--badge - writes one badge, and the matrix has %d variants", len(m.Variants))
		}
	}
	return nil
}

// outputs are the files of p, by flag.
func (p *RunPlan) outputs() []Output {
	return []Output{{"--json", p.JSON}, {"--markdown", p.Markdown}, {"--junit", p.JUnit}, {"--badge", p.Badge}, {"--otel", p.OTel}, {"--record", p.Record}, {"--trec-run", p.TrecRun}, {"--trec-qrels", p.TrecQrels}, {"--trec-rag", p.TrecRAG}}
}

// checkInputs rejects an output that names one of the run's inputs: --json
// suite.yaml replaced the golden set with the run's JSON. --record may name
// the replay trace it reads (it writes the same observations back).
func (p *RunPlan) checkInputs() error {
	var outs []Output
	for _, o := range p.outputs() {
		if o.Path != "" && o.Path != "-" {
			outs = append(outs, o)
		}
	}
	if len(outs) == 0 {
		return nil
	}
	type input struct{ what, path string }
	inputs := []input{{"the suite", p.SuitePath}}
	switch {
	case p.Suite != nil:
		inputs = []input{{"the suite", p.Suite.Path}, {"the corpus", p.Suite.CorpusSource}}
	case p.SuitePath != "" && p.SuitePath != "-":
		if st, err := suite.Stream(p.SuitePath, suite.LoadOptions{Split: p.Split}); err == nil {
			inputs = append(inputs, input{"the corpus", st.Suite.CorpusSource})
		}
	}
	if target.IsFile(p.Target) {
		inputs = append(inputs, input{"the target file", p.Target})
	}
	if trace, ok := strings.CutPrefix(p.Target, "replay:"); ok {
		inputs = append(inputs, input{"the replay trace", trace})
	}
	if answers, ok := strings.CutPrefix(p.Target, "trecrag:"); ok {
		inputs = append(inputs, input{"the TREC RAG answer file", answers})
	}
	for _, o := range outs {
		for _, in := range inputs {
			if in.path == "" || (o.Flag == "--record" && in.what == "the replay trace") {
				continue
			}
			if fi, err := os.Stat(in.path); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if atomicfile.SameFile(o.Path, in.path) {
				return usageError("write it to another file", "%s %s would overwrite %s", o.Flag, o.Path, in.what)
			}
		}
	}
	return nil
}

// runSink writes one run's results to the --record trace and the TREC
// files as they are made.
type runSink struct {
	rec       *target.Recorder
	recFlag   string
	tout      *trecOutputs
	suitePath string
}

// Warnings is the TREC qrels' warning (binaryWarning), if any
// (harness.SinkWarner).
func (s *runSink) Warnings() []string {
	if w := s.tout.binaryWarning(s.suitePath); w != "" {
		return []string{w}
	}
	return nil
}

// onRun opens the trace and TREC files of a run (a variant's get the
// variant's name before their extension).
func (p *RunPlan) onRun(s *assay.Suite, run *assay.Run) (harness.Sink, error) {
	var vname string
	if run.Variant != nil {
		vname = gate.VariantName(run.Variant)
	}
	tout, err := openTrecOutputs(p, run.RunID, vname, s.RecallOver)
	if err != nil {
		return nil, err
	}
	rs := &runSink{tout: tout, recFlag: p.Record, suitePath: s.Path}
	if p.Record != "" {
		path := p.Record
		if vname != "" {
			path = variantPath(path, vname)
		}
		if rs.rec, err = target.NewRecorder(path); err != nil {
			tout.close()
			return nil, err
		}
	}
	if rs.rec == nil && rs.tout == nil {
		return nil, nil
	}
	return rs, nil
}

func (s *runSink) Add(c assay.Case, r assay.CaseResult) error {
	if s.rec != nil && len(r.Turns) > 0 {
		// A conversation is recorded turn by turn, each line with its
		// turn number, as a replay reads it.
		for _, t := range r.Turns {
			if t.Observation == nil {
				continue
			}
			if err := s.rec.Write(*t.Observation); err != nil {
				return fmt.Errorf("record %s: %w", s.recFlag, err)
			}
		}
	} else if s.rec != nil && r.Observation != nil {
		if err := s.rec.Write(*r.Observation); err != nil {
			return fmt.Errorf("record %s: %w", s.recFlag, err)
		}
	}
	if s.tout != nil {
		s.tout.add(c, r)
	}
	return nil
}

func (s *runSink) Close(ok bool) error {
	var err error
	if s.rec != nil {
		if cerr := s.rec.Close(); cerr != nil {
			err = fmt.Errorf("record %s: %w", s.recFlag, cerr)
		}
	}
	if s.tout != nil {
		if !ok {
			s.tout.close()
		} else if terr := s.tout.finish(); terr != nil && err == nil {
			err = terr
		}
	}
	return err
}

// writeReports writes the JSON, JUnit, markdown ($GITHUB_STEP_SUMMARY),
// badge and report directory of a result, redacted.
func (p *RunPlan) writeReports(res *harness.Result) error {
	if p.OTel != "" {
		if err := writeTo(p, p.OTel, func(w io.Writer) error { return traces.WriteEvaluations(w, res.Runs...) }); err != nil {
			return err
		}
	}
	if !res.Matrix {
		run := res.Runs[0]
		if p.JSON != "" {
			if err := writeTo(p, p.JSON, func(w io.Writer) error { return report.JSON(w, run) }); err != nil {
				return err
			}
		}
		return writeCIOutputs(p, run, res.Verdicts[0], res.Comparisons[0])
	}
	runs, ord := res.Runs, res.Orderings
	if p.JSON != "" {
		if err := writeTo(p, p.JSON, func(w io.Writer) error { return report.MatrixJSON(w, res.Group, runs, ord) }); err != nil {
			return err
		}
	}
	if p.JUnit != "" {
		if err := writeTo(p, p.JUnit, func(w io.Writer) error { return report.JUnitMatrix(w, runs, ord) }); err != nil {
			return err
		}
	}
	md := func(w io.Writer) error { return report.MarkdownMatrix(w, runs, ord) }
	if p.Markdown != "" {
		if err := writeTo(p, p.Markdown, md); err != nil {
			return err
		}
	}
	if path := p.Getenv("GITHUB_STEP_SUMMARY"); path != "" && (p.Markdown != "" || p.ReportDir != "") {
		if err := appendTo(path, md); err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	// The badge and the report directory describe one run: one per variant
	// (badge.json -> badge.rm3.json; DIR/rm3/).
	for i, run := range runs {
		name := gate.VariantName(run.Variant)
		if p.Badge != "" {
			path := p.Badge
			if path != "-" {
				path = variantPath(path, name)
			}
			if err := writeTo(p, path, func(w io.Writer) error { return report.Badge(w, run, res.Verdicts[i]) }); err != nil {
				return err
			}
		}
		if p.ReportDir != "" {
			dir := filepath.Join(p.ReportDir, strings.ReplaceAll(name, "/", "-"))
			if _, err := report.WriteReportDir(dir, run, nil, res.Verdicts[i], run.StartedAt); err != nil {
				return fmt.Errorf("--report-dir %s: %w", dir, err)
			}
		}
	}
	return nil
}

// variantPath inserts a variant name before a file's extension:
// t.jsonl -> t.rm3.jsonl.
func variantPath(path, name string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + strings.ReplaceAll(name, "/", "-") + ext
}

// writeTo writes to a file, or to the plan's Stdout for "-".
func writeTo(p *RunPlan, path string, fn func(io.Writer) error) error {
	fn = redacting(p.Secrets, fn)
	if path == "-" {
		return fn(p.Stdout)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return replaceFile(path, fn)
}

// redacting returns fn writing through the one redaction rule.
func redacting(secrets *redact.Redactor, fn func(io.Writer) error) func(io.Writer) error {
	if secrets == nil || secrets.Empty() {
		return fn
	}
	return func(w io.Writer) error {
		rw := redact.NewWriter(w, secrets)
		err := fn(rw)
		if ferr := rw.Flush(); err == nil {
			err = ferr
		}
		return err
	}
}
