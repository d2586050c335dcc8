package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/target"
	"github.com/assay-eval/assay/trec"
)

// checkTrec rejects --trec-run/--trec-qrels/--trec-rag values that cannot
// work, before anything runs (check lists them for distinctOutputs).
func (f *RunPlan) checkTrec() error {
	for _, o := range []Output{{"--trec-run", f.TrecRun}, {"--trec-qrels", f.TrecQrels}, {"--trec-rag", f.TrecRAG}} {
		if o.Path == "-" {
			return usageError("", "%s writes a file: give a path, not -", o.Flag)
		}
	}
	if f.TrecRun != "" && f.Trials > 1 {
		return usageError("run with --trials 1, or store the run and export one", "--trec-run writes one ranking per case, and --trials %d makes %d", f.Trials, f.Trials)
	}
	if f.TrecRAG != "" && f.Trials > 1 {
		return usageError("run with --trials 1, or store the run and export one", "--trec-rag writes one answer per case, and --trials %d makes %d", f.Trials, f.Trials)
	}
	if f.TrecTag != "" && f.TrecRun == "" && f.TrecRAG == "" {
		return usageError("", "--trec-tag names the run of --trec-run or --trec-rag, neither of which is given")
	}
	if f.TrecTag != "" {
		if _, err := trec.NewRunWriter(io.Discard, f.TrecTag); err != nil {
			return usageError("", "--trec-tag: %v", err)
		}
	}
	return nil
}

// trecOutput is one TREC file being written: the lines go to a temporary
// file as the cases run (a run of any size keeps none of them), which
// replaces the named file (atomicfile) once the run is over.
type trecOutput struct {
	flag, path string
	tmp        *os.File
}

func newTrecOutput(tempDir, flag, path string) (*trecOutput, error) {
	tmp, err := os.CreateTemp(tempDir, "assay-trec-*")
	if err != nil {
		return nil, fmt.Errorf("%s %s: temporary file: %w", flag, path, err)
	}
	return &trecOutput{flag: flag, path: path, tmp: tmp}, nil
}

// commit copies the temporary file to its path.
func (o *trecOutput) commit() error {
	if _, err := o.tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%s: %w", o.flag, err)
	}
	if err := atomicfile.Replace(o.path, func(w io.Writer) error {
		_, err := io.Copy(w, o.tmp)
		return err
	}); err != nil {
		return fmt.Errorf("%s %w", o.flag, err)
	}
	return nil
}

func (o *trecOutput) close() {
	o.tmp.Close()
	os.Remove(o.tmp.Name())
}

// trecOutputs writes --trec-run (each case's ranking as returned, tagged
// with the run id or --trec-tag), --trec-qrels (each judged case's
// judgments) and --trec-rag (each case's answer in the TREC RAG format,
// run_id the run id or --trec-tag) for one run.
type trecOutputs struct {
	run, qrels, rag *trecOutput
	rw              *trec.RunWriter
	qw              *trec.QrelsWriter
	aw              *trec.RAGWriter
	bin             binaryCheck // the qrels written, for a recall_over: relevant suite
	tag             string
	secrets         *redact.Redactor
	// err is the first case that could not be written: the run goes on,
	// and finish reports it instead of writing a partial file.
	err error
}

// openTrecOutputs starts the files of one run; nil when neither is asked
// for. variant names the matrix variant (its files get variantPath names);
// recallOver is the suite's (see binaryWarning).
func openTrecOutputs(f *RunPlan, runID, variant, recallOver string) (*trecOutputs, error) {
	if f.TrecRun == "" && f.TrecQrels == "" && f.TrecRAG == "" {
		return nil, nil
	}
	t := &trecOutputs{bin: binaryCheck{relevantOnly: recallOver == assay.RecallOverRelevant}, tag: f.TrecTag, secrets: f.Secrets}
	if t.tag == "" {
		t.tag = runID
	}
	path := func(p string) string {
		if variant != "" {
			return variantPath(p, variant)
		}
		return p
	}
	if f.TrecRun != "" {
		tag := f.TrecTag
		if tag == "" {
			tag = runID
		}
		o, err := newTrecOutput(f.TempDir, "--trec-run", path(f.TrecRun))
		if err != nil {
			return nil, err
		}
		t.run = o
		if t.rw, err = trec.NewRunWriter(o.tmp, tag); err != nil {
			t.close()
			return nil, fmt.Errorf("--trec-tag: %w", err)
		}
	}
	if f.TrecQrels != "" {
		o, err := newTrecOutput(f.TempDir, "--trec-qrels", path(f.TrecQrels))
		if err != nil {
			t.close()
			return nil, err
		}
		t.qrels = o
		t.qw = trec.NewQrelsWriter(o.tmp)
	}
	if f.TrecRAG != "" {
		o, err := newTrecOutput(f.TempDir, "--trec-rag", path(f.TrecRAG))
		if err != nil {
			t.close()
			return nil, err
		}
		t.rag = o
		t.aw = trec.NewRAGWriter(o.tmp)
	}
	return t, nil
}

// add writes one case's lines: its ranking unless the observation failed
// (assay's metrics score that case's ranking as empty), and its judgments.
func (t *trecOutputs) add(c assay.Case, r assay.CaseResult) {
	if t.err != nil {
		return
	}
	if t.rw != nil && r.Error == nil && r.Observation != nil {
		if err := t.rw.Add(c.ID, r.Observation.Ranking()); err != nil {
			t.err = fmt.Errorf("--trec-run %s: %w", t.run.path, err)
			return
		}
	}
	if t.qw != nil {
		t.bin.add(c)
		if err := t.qw.Add(c.ID, c.Judgments); err != nil {
			t.err = fmt.Errorf("--trec-qrels %s: %w", t.qrels.path, err)
			return
		}
	}
	if t.aw != nil && r.Error == nil && r.Observation != nil {
		topic := c.Query
		if t.secrets != nil {
			topic = t.secrets.String(topic)
		}
		if err := t.aw.Add(target.RAGAnswerOf(c.ID, topic, t.tag, *r.Observation)); err != nil {
			t.err = fmt.Errorf("--trec-rag %s: %w", t.rag.path, err)
		}
	}
}

// binaryWarning is runs export's warning for the qrels written (see
// binaryCheck), "" when there is none: for a suite with recall_over:
// relevant, trec_eval's binary measures on them can count other documents
// than the run's. runs export writes the qrels that match.
func (t *trecOutputs) binaryWarning(suitePath string) string {
	if t == nil || t.qw == nil {
		return ""
	}
	return t.bin.warning(suitePath, "store the run and export it with assay runs export REF --trec-qrels FILE --trec-qrels-binary FILE")
}

// finish writes the files to their paths, or neither when a case could not
// be written.
func (t *trecOutputs) finish() error {
	defer t.close()
	if t.err != nil {
		return fmt.Errorf("%w; nothing was written", t.err)
	}
	if t.rw != nil {
		if err := t.rw.Flush(); err != nil {
			return fmt.Errorf("--trec-run %s: %w", t.run.path, err)
		}
		if err := t.run.commit(); err != nil {
			return err
		}
	}
	if t.qw != nil {
		if err := t.qw.Flush(); err != nil {
			return fmt.Errorf("--trec-qrels %s: %w", t.qrels.path, err)
		}
		if err := t.qrels.commit(); err != nil {
			return err
		}
	}
	if t.aw != nil {
		if err := t.aw.Flush(); err != nil {
			return fmt.Errorf("--trec-rag %s: %w", t.rag.path, err)
		}
		if err := t.rag.commit(); err != nil {
			return err
		}
	}
	return nil
}

// close removes the temporary files.
func (t *trecOutputs) close() {
	if t == nil {
		return
	}
	for _, o := range []*trecOutput{t.run, t.qrels, t.rag} {
		if o != nil {
			o.close()
		}
	}
}
