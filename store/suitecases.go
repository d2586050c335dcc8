package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
)

// A run of a files store keeps, beside its case lines, each case as the
// suite stated it when the run asked it (its query, judgments,
// expectations, guards, tags), so that a view of one case needs neither
// the suite file nor a pass over it: SuiteCasesFile while the run goes,
// gzipped with its index (SuiteCasesGzFile, SuiteCaseIndexFile, the format
// of cases.jsonl.gz and cases.idx) by Finish. A run without them (written
// before they existed, copied from another store, a store without files)
// is shown from its suite file, as before.
const (
	SuiteCasesFile     = "suite-cases.jsonl"
	SuiteCasesGzFile   = "suite-cases.jsonl.gz"
	SuiteCaseIndexFile = "suite-cases.idx"
)

// SuiteCaseWriter is the optional capability of a RunWriter that keeps
// the suite's cases with the run (the files stores): AppendSuiteCase
// records c, once per case id (a caller writes it with the case's first
// trial), already redacted by the caller. Safe for concurrent use.
type SuiteCaseWriter interface {
	AppendSuiteCase(c assay.Case) error
}

var _ SuiteCaseWriter = (*fileRun)(nil)

// AppendSuiteCase implements SuiteCaseWriter: one line of
// suite-cases.jsonl, its id first. The lines go through a buffer that is
// written to the file at most suiteFlushAfter after a line entered it (and
// by Finish and Release), not one write a case: a viewer of the run in
// progress, or of a killed one, sees its suite cases but the last moment's
// (a case it does not find there is read from the suite file).
func (w *fileRun) AppendSuiteCase(c assay.Case) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	if w.suiteErr != nil {
		return w.suiteErr
	}
	// The line is json.Marshal's with a newline, encoded into a buffer
	// the writer keeps rather than a new one each case.
	if w.suiteEnc == nil {
		w.suiteEnc = json.NewEncoder(&w.suiteLine)
	}
	w.suiteLine.Reset()
	if err := w.suiteEnc.Encode(&c); err != nil {
		return fmt.Errorf("case %s: %w", c.ID, err)
	}
	b := w.suiteLine.Bytes()
	if w.suite == nil {
		f, err := os.OpenFile(filepath.Join(w.dir, SuiteCasesFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return w.explain(err)
		}
		w.suite = f
		w.suiteBuf = bufio.NewWriterSize(f, 32<<10)
	}
	if _, err := w.suiteBuf.Write(b); err != nil {
		w.suiteErr = w.explain(fmt.Errorf("%s: %w", w.suite.Name(), err))
		return w.suiteErr
	}
	w.suiteLater.arm(suiteFlushAfter, w, (*fileRun).flushSuiteCases)
	return nil
}

// suiteFlushAfter bounds how long an appended suite case stays in the
// writer's buffer.
const suiteFlushAfter = 200 * time.Millisecond

// flushSuiteCases writes the buffered suite cases to the file; an error
// is the next AppendSuiteCase's (and Finish's).
func (w *fileRun) flushSuiteCases() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.suiteLater.fired()
	if w.suite == nil || w.suiteErr != nil {
		return
	}
	if err := w.suiteBuf.Flush(); err != nil {
		w.suiteErr = w.explain(fmt.Errorf("%s: %w", w.suite.Name(), err))
	}
}

// finishSuiteCases writes what is buffered, closes suite-cases.jsonl and,
// when compress, gzips it with its index.
func (w *fileRun) finishSuiteCases(compress bool) error {
	w.suiteLater.stop()
	if w.suite == nil {
		return nil
	}
	err := errors.Join(w.suiteBuf.Flush(), w.suite.Close())
	w.suite = nil
	if err != nil || !compress {
		return err
	}
	return compressIndexed(w.dir, SuiteCasesFile, SuiteCasesGzFile, SuiteCaseIndexFile)
}

// ReadSuiteCase returns the case id as the suite stated it when the run in
// dir asked it (SuiteCasesFile), read through its index once the run
// finished (by a pass over the file before); nil, with no error, when the
// run does not keep it (the caller reads the suite file).
func ReadSuiteCase(dir, id string) (*assay.Case, error) {
	var c *assay.Case
	err := readIndexed(dir, SuiteCasesGzFile, SuiteCaseIndexFile, id, func(path string, off uint64, n int, t []byte) error {
		if c != nil {
			return nil
		}
		if e := nesting.JSON(t); e != nil {
			return fmt.Errorf("%s: block at byte %d, line %d:%d: %s", path, off, n, e.Col, e.Msg)
		}
		var x assay.Case
		if err := json.Unmarshal(t, &x); err != nil {
			return fmt.Errorf("%s: block at byte %d, line %d: %v", path, off, n, err)
		}
		c = &x
		return nil
	})
	if errors.Is(err, errNoIndex) {
		err = ReadSuiteCases(dir, func(x assay.Case) error {
			if x.ID != id {
				return nil
			}
			c = &x
			return errFound
		})
		if errors.Is(err, errFound) {
			err = nil
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return c, err
}

var errFound = errors.New("found")

// ReadSuiteCases calls fn with each case the run in dir keeps as its suite
// stated it (SuiteCasesGzFile once the run finished, else
// SuiteCasesFile), in the order the run wrote them; fn never when it keeps
// none. Errors are positioned as ReadCases's; an error from fn ends the
// pass and is returned as it is.
func ReadSuiteCases(dir string, fn func(assay.Case) error) error {
	path := filepath.Join(dir, SuiteCasesGzFile)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(dir, SuiteCasesFile)
	}
	err := readLines(path, func(b []byte, c *assay.Case) error { return json.Unmarshal(b, c) }, fn)
	var ne notExist
	if errors.As(err, &ne) {
		return nil
	}
	return err
}

// RunSuiteCase is ReadSuiteCase of the run runID under root. An unknown
// run wraps ErrNotFound.
func RunSuiteCase(_ context.Context, root, runID, id string) (*assay.Case, error) {
	dir, err := existingRunDir(root, runID)
	if err != nil {
		return nil, err
	}
	return ReadSuiteCase(dir, id)
}

// RunSuiteCases is ReadSuiteCases of the run runID under root. An unknown
// run wraps ErrNotFound.
func RunSuiteCases(ctx context.Context, root, runID string, fn func(assay.Case) error) error {
	dir, err := existingRunDir(root, runID)
	if err != nil {
		return err
	}
	return ReadSuiteCases(dir, func(c assay.Case) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(c)
	})
}

var _ SuiteCaseReader = (*Files)(nil)

// SuiteCase implements SuiteCaseReader (RunSuiteCase).
func (s *Files) SuiteCase(ctx context.Context, runID, id string) (*assay.Case, error) {
	return RunSuiteCase(ctx, s.root, runID, id)
}

// SuiteCases implements SuiteCaseReader (RunSuiteCases).
func (s *Files) SuiteCases(ctx context.Context, runID string, fn func(assay.Case) error) error {
	return RunSuiteCases(ctx, s.root, runID, fn)
}
