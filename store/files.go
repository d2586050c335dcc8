package store

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// EncodeRun returns the run.json form of run: the assay.run/v1 document,
// indented, with one case per line and without observations (they live in
// cases.jsonl). A human can read it and a diff of two runs stays small.
// It holds the whole document; RunWriter.Finish writes the same bytes one
// case at a time.
func EncodeRun(run *assay.Run) ([]byte, error) {
	var out bytes.Buffer
	if err := encodeRun(&out, run); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// encodeRun writes the run.json form of run (see EncodeRun) to w: the one
// encoder of the document (assay.WriteDocument), one case a line, with a
// final newline. An error from the run's CaseStream is returned as it is.
func encodeRun(w io.Writer, run *assay.Run) error {
	if err := assay.WriteDocument(w, run, assay.DocumentOptions{CaseLines: true}); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// writeFileAtomic writes path through a temporary file in the same
// directory: write fills it through a buffer, then it is synced and renamed
// over path, and the directory synced. When write (or anything after it)
// fails, the temporary file is removed and path is left as it was.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := atomicfile.Create(path, atomicfile.Options{Sync: true, Locked: true})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// runFile returns the run.json path for a path that is either the file or
// its directory.
func runFile(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return filepath.Join(path, RunFile)
	}
	return path
}

// LoadRun reads a run record: the path of a run.json or of its directory.
// Errors name the file (and the line and column of a syntax error); a
// corrupted, truncated or missing file is an error, never a panic.
//
// An incomplete run whose run.json lists no cases (the process stopped
// before Finish) gets its cases from cases.jsonl, observations left out; a
// torn last line there is skipped as a case that was in flight.
func LoadRun(path string) (*assay.Run, error) {
	file := runFile(path)
	b, err := boundedfile.ReadFile(file, boundedfile.RunRecord)
	if err != nil {
		return nil, fileErr(file, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: empty run record (truncated, or written by a process that was stopped)", file)
	}
	if e := nesting.JSON(b); e != nil {
		return nil, diag.Errorf(file, e.Line, e.Col, "%s", e.Msg)
	}
	// The cases are decoded into a slice of about their number: grown by
	// doubling instead, a 100,000-case record copies every decoded case
	// several times and holds two copies at its peak.
	run := assay.Run{Cases: make([]assay.CaseResult, 0, caseCount(b))}
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, jsonErr(file, b, err)
	}
	if run.Schema != assay.RunSchema {
		return nil, fmt.Errorf("%s: not an %s document (schema %q)", file, assay.RunSchema, run.Schema)
	}
	switch run.Status {
	case assay.StatusComplete, assay.StatusIncomplete:
	default:
		return nil, fmt.Errorf("%s: status %q is neither complete nor incomplete", file, run.Status)
	}
	if run.RunID == "" {
		return nil, fmt.Errorf("%s: run_id is missing", file)
	}
	if run.Status == assay.StatusIncomplete && len(run.Cases) == 0 {
		err := ReadCases(filepath.Dir(file), func(r assay.CaseResult) error {
			r = r.WithoutObservation()
			run.Cases = append(run.Cases, r)
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	seen := make(map[caseKey]bool, len(run.Cases))
	for i, c := range run.Cases {
		if c.ID == "" {
			return nil, fmt.Errorf("%s: case %d has no id", file, i+1)
		}
		k := caseKey{c.ID, c.Trial}
		if seen[k] {
			return nil, fmt.Errorf("%s: case %q trial %d appears twice", file, c.ID, c.Trial)
		}
		seen[k] = true
	}
	return &run, nil
}

// caseCount estimates the number of cases in a run record from its "id"
// keys (each case has one; any other object with an id only makes the
// estimate larger). It is a capacity hint only, and never more than one
// case per minCaseBytes of the file (every case line carries its fields
// that are never omitted), so an odd file cannot make it allocate more
// than a few times its own size.
func caseCount(b []byte) int {
	return min(bytes.Count(b, []byte(`"id":`)), len(b)/minCaseBytes)
}

// minCaseBytes is less than the encoding of the smallest case: its id,
// trial, pass, error, checks, metrics, latency_ms, retrieved, citations
// and refused keys are always written.
const minCaseBytes = 96

type caseKey struct {
	id    string
	trial int
}

// ReadCases calls fn for each case line of a run, observations included.
// path is a run directory (its cases.jsonl.gz, else its cases.jsonl) or one
// of those files. A torn last line of a plain cases.jsonl (no newline, not
// valid JSON: the case being written when the process died) is skipped; any
// other bad line is an error "file:line: msg".
func ReadCases(path string, fn func(assay.CaseResult) error) error {
	return readCases(path, decodeWithObservation, fn)
}

// ReadResults is ReadCases without the observations: each line's
// observation is skipped, not decoded (Observation is nil). It is how a
// run's results are read back while its reports are written.
func ReadResults(path string, fn func(assay.CaseResult) error) error {
	return readCases(path, decodeResult, fn)
}

func decodeWithObservation(b []byte, r *assay.CaseResult) error { return json.Unmarshal(b, r) }

// ReadCasesOf is ReadCases with a line's observation decoded only when
// want holds for its case id; the others' are skipped, as ReadResults
// skips them (Observation nil). It is for a reader that needs the
// observations of some cases of a large run (the static report's pages of
// its failing cases): decoding an observation costs most of a line.
func ReadCasesOf(path string, want func(id string) bool, fn func(assay.CaseResult) error) error {
	return readCases(path, func(b []byte, r *assay.CaseResult) error {
		var line struct {
			*assay.CaseResult
			Observation json.RawMessage `json:"observation"`
		}
		line.CaseResult = r
		if err := json.Unmarshal(b, &line); err != nil {
			return err
		}
		if len(line.Observation) == 0 || !want(r.ID) {
			return nil
		}
		return json.Unmarshal(line.Observation, &r.Observation)
	}, fn)
}

func decodeResult(b []byte, r *assay.CaseResult) error {
	var line struct {
		*assay.CaseResult
		Observation json.RawMessage `json:"observation"`
	}
	line.CaseResult = r
	return json.Unmarshal(b, &line)
}

// EncodeCase is r as one line of cases.jsonl (with its observation and a
// final newline): the one encoder of a case line, for every store.
func EncodeCase(r assay.CaseResult) ([]byte, error) { return caseLine(r) }

// DecodeCase reads one case line as EncodeCase wrote it (the one decoder,
// with the nesting bound of ReadCases), its observation decoded only
// withObservation (else it is skipped and Observation is nil).
func DecodeCase(line []byte, withObservation bool) (assay.CaseResult, error) {
	var r assay.CaseResult
	line = bytes.TrimSpace(line)
	if e := nesting.JSON(line); e != nil {
		return r, fmt.Errorf("col %d: %s", e.Col, e.Msg)
	}
	decode := decodeResult
	if withObservation {
		decode = decodeWithObservation
	}
	err := decode(line, &r)
	return r, err
}

func readCases(path string, decode func([]byte, *assay.CaseResult) error, fn func(assay.CaseResult) error) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		gz := filepath.Join(path, CasesGzFile)
		if _, err := os.Stat(gz); err == nil {
			path = gz
		} else {
			path = filepath.Join(path, CasesFile)
		}
	}
	return readLines(path, decode, fn)
}

// readLines calls fn with each line of the JSON Lines file path (gzipped
// when its name ends in .gz) decoded by decode: the bounds, positions and
// torn-line rule of ReadCases, for the case lines and the suite's cases a
// run keeps.
func readLines[T any](path string, decode func([]byte, *T) error, fn func(T) error) error {
	f, err := boundedfile.Open(path, boundedfile.Cases)
	if err != nil {
		return fileErr(path, err)
	}
	defer f.Close()
	var r io.Reader = f
	compressed := strings.HasSuffix(path, ".gz")
	if compressed {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		defer zr.Close()
		r = boundedfile.Reader(zr, boundedfile.CasesGzip)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, rerr := boundedfile.ReadLine(br, boundedfile.MaxLine)
		if rerr != nil && rerr != io.EOF {
			return diag.Errorf(path, line, 0, "%v", rerr)
		}
		torn := rerr == io.EOF
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if e := nesting.JSON(t); e != nil {
				return diag.Errorf(path, line, e.Col, "%s", e.Msg)
			}
			var r T
			if err := decode(t, &r); err != nil {
				if torn && !compressed {
					return nil
				}
				var se *json.SyntaxError
				if errors.As(err, &se) {
					return diag.Errorf(path, line, int(se.Offset), "%s", se.Error())
				}
				return diag.Errorf(path, line, 0, "%s", err.Error())
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if torn {
			return nil
		}
	}
}

func fileErr(file string, err error) error {
	err = boundedfile.Reason(err)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return notExist(file)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// notExist is "FILE: no such file"; errors.Is(err, fs.ErrNotExist) holds.
type notExist string

func (e notExist) Error() string { return string(e) + ": no such file" }
func (e notExist) Unwrap() error { return fs.ErrNotExist }

// jsonErr positions a JSON decoding error as file:line:col.
func jsonErr(file string, b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && se.Error() == "unexpected end of JSON input":
		line, col := lineCol(b, int64(len(b)))
		return diag.Errorf(file, line, col, "truncated: unexpected end of JSON input")
	case errors.As(err, &se):
		line, col := lineCol(b, se.Offset-1) // Offset counts the bad byte
		return diag.Errorf(file, line, col, "%s", se.Error())
	case errors.As(err, &te):
		line, col := lineCol(b, te.Offset-1) // the value's last byte
		field := te.Field
		if field == "" {
			field = "value"
		}
		return diag.Errorf(file, line, col, "%s: cannot use %s as %s", field, te.Value, te.Type)
	}
	return fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "json: "))
}

func lineCol(b []byte, off int64) (line, col int) {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	if off < 0 {
		off = 0
	}
	pre := b[:off]
	line = 1 + bytes.Count(pre, []byte("\n"))
	col = int(off) - bytes.LastIndexByte(pre, '\n')
	if col < 1 {
		col = 1
	}
	return line, col
}

// fileRun writes one run's files; the store supplies what to do on Begin
// and Finish for the index.
type fileRun struct {
	mu    sync.Mutex
	dir   string
	lock  *os.File // the run directory, locked from Begin to Finish
	cases casesFile
	// casesBuf holds the case lines not yet written to cases (whole
	// lines, encoded there by casesEnc); casesLater writes them
	// casesFlushAfter after the first of them; casesErr is the first
	// write error, every later Append's.
	casesBuf   bytes.Buffer
	casesEnc   *json.Encoder
	casesLater laterFlush
	casesErr   error
	lastWrite  time.Time // of the last write to cases
	suite      *os.File  // suite-cases.jsonl, once a case was appended to it
	finished   bool
	lastSync   time.Time
	index      Indexer     // nil: none
	docs       *docSpill   // the cases as run.json lists them
	written    atomic.Bool // run.json lists the cases (Finish wrote it)

	// suiteBuf buffers the lines of suite; suiteLater writes them to it;
	// suiteErr is the first write error.
	suiteBuf   *bufio.Writer
	suiteLine  bytes.Buffer // the line being appended (suiteEnc's)
	suiteEnc   *json.Encoder
	suiteLater laterFlush
	suiteErr   error
}

// laterFlush is a buffer's timed write: armed by the first line that
// enters the buffer, it calls its function once after a delay. Its
// methods are called with the run's lock held, and the function takes
// it.
type laterFlush struct {
	timer   *time.Timer
	pending bool // armed and not fired yet
}

// arm calls f(w) after d unless it is armed already. (A method
// expression, not a method value: nothing is allocated once the timer is
// made.)
func (l *laterFlush) arm(d time.Duration, w *fileRun, f func(*fileRun)) {
	if l.pending {
		return
	}
	l.pending = true
	if l.timer == nil {
		l.timer = time.AfterFunc(d, func() { f(w) })
	} else {
		l.timer.Reset(d)
	}
}

// fired disarms l: the function, called, says so first.
func (l *laterFlush) fired() { l.pending = false }

// stop disarms l for good.
func (l *laterFlush) stop() {
	if l.timer != nil {
		l.timer.Stop()
	}
}

// syncEvery bounds how long appended cases stay only in the OS cache.
const syncEvery = time.Second

// The case lines of a run go to cases.jsonl through a buffer of whole
// lines, written in one write once it holds casesBufferSize bytes, at
// most casesFlushAfter after a line entered it, before each sync, and by
// Flush, Finish and Release; a line appended when nothing was written for
// casesFlushAfter (a slow system's case) is written at once. A write a
// case cost about as much as encoding it. A killed process loses at most
// the lines of that last moment (the RunWriter contract allows about a
// second); a reader of the file while the run goes (another process, or
// the run's own results read back after Flush) finds whole lines only.
const (
	casesBufferSize = 64 << 10
	casesFlushAfter = 200 * time.Millisecond
)

// BeginFiles records a run in the directory dir (which must not exist)
// with no store and no index: run.json and cases.jsonl as a store writes
// them, read back with ReadCases or ReadResults. A harness run with no
// store writes its results to such a directory.
func BeginFiles(dir string, run *assay.Run) (RunWriter, error) {
	if run.Schema == "" {
		run.Schema = assay.RunSchema
	}
	run.Status = assay.StatusIncomplete
	w, err := beginFiles(dir, run)
	if err != nil {
		return nil, explain(filepath.Dir(dir), err)
	}
	return w, nil
}

// BeginScratch records a run's results in dir (which must not exist) for
// reading back while the run is reported, and nothing else: cases.jsonl
// only, never synced, no run.json, no index, not compressed. Its lines
// are the cases as the run document lists them (no observations, [] and
// {} for no checks and no metrics), encoded once: ReadResults reads them
// back, and the writer's CaseDocuments (CaseDocumenter) yields them as
// they are, so that a --json output of the run copies them rather than
// decoding and encoding each case again. The caller removes dir.
func BeginScratch(dir string) (RunWriter, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := openCases(filepath.Join(dir, CasesFile))
	if err != nil {
		return nil, err
	}
	return &scratchRun{dir: dir, cases: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// caseLine is r as one line of cases.jsonl.
func caseLine(r assay.CaseResult) ([]byte, error) {
	b, err := json.Marshal(&r)
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", r.ID, err)
	}
	return append(b, '\n'), nil
}

// scratchRun is BeginScratch's writer: buffered, each case as the run
// document lists it.
type scratchRun struct {
	mu       sync.Mutex
	dir      string
	cases    casesFile
	w        *bufio.Writer
	buf      []byte
	finished bool
}

var (
	_ CaseDocumenter = (*scratchRun)(nil)
	_ Flusher        = (*scratchRun)(nil)
	_ Flusher        = (*fileRun)(nil)
)

func (w *scratchRun) Dir() string { return w.dir }

func (w *scratchRun) Append(r assay.CaseResult) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	b, err := documentLine(w.buf[:0], r, func() ([]byte, error) { return caseLine(r.WithoutObservation()) })
	if err != nil {
		return err
	}
	w.buf = append(b, '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		return explain(filepath.Dir(w.dir), fmt.Errorf("%s: %w", w.cases.Name(), err))
	}
	return nil
}

// CaseDocuments implements CaseDocumenter: the lines of cases.jsonl, as
// they were written (before Finish, what is buffered is written first).
func (w *scratchRun) CaseDocuments() assay.Seq[[]byte] {
	return func(yield func([]byte) error) error {
		w.mu.Lock()
		if !w.finished {
			if err := w.w.Flush(); err != nil {
				w.mu.Unlock()
				return explain(filepath.Dir(w.dir), fmt.Errorf("%s: %w", w.cases.Name(), err))
			}
		}
		w.mu.Unlock()
		f, err := os.Open(filepath.Join(w.dir, CasesFile))
		if err != nil {
			return err
		}
		defer f.Close()
		return eachLine(bufio.NewReaderSize(f, 64<<10), yield)
	}
}

// Flush implements Flusher: the lines appended are in cases.jsonl when
// it returns, for ReadResults before Finish.
func (w *scratchRun) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return nil
	}
	if err := w.w.Flush(); err != nil {
		return explain(filepath.Dir(w.dir), fmt.Errorf("%s: %w", w.cases.Name(), err))
	}
	return nil
}

// Finish flushes and closes cases.jsonl; the run itself is not written.
func (w *scratchRun) Finish(*assay.Run) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	w.finished = true
	ferr := w.w.Flush()
	cerr := w.cases.Close()
	if err := errors.Join(ferr, cerr); err != nil {
		return explain(filepath.Dir(w.dir), fmt.Errorf("%s: %w", w.cases.Name(), err))
	}
	return nil
}

// beginFiles creates dir, run.json (status incomplete) and an empty
// cases.jsonl.
func beginFiles(dir string, run *assay.Run) (*fileRun, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%s: run %s already exists", dir, run.RunID)
		}
		return nil, err
	}
	lock, err := lockRunDir(dir)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, RunFile), func(w io.Writer) error { return encodeRun(w, run) }); err != nil {
		lock.Close()
		return nil, err
	}
	f, err := openCases(filepath.Join(dir, CasesFile))
	if err != nil {
		lock.Close()
		return nil, err
	}
	w := &fileRun{dir: dir, lock: lock, cases: f, lastSync: time.Now(), docs: newDocSpill(dir)}
	w.casesEnc = json.NewEncoder(&w.casesBuf)
	return w, nil
}

// A run being written holds an exclusive flock on its directory from
// Begin until Finish has updated the index (or until the process ends:
// the kernel drops the lock with it). Delete takes the same lock without
// waiting, so a run a live process is writing is never deleted. Where
// there is no flock the lock is not taken and Delete does not wait for
// writers.

// lockRunDir opens dir and locks it; the lock lasts until the returned
// file is closed.
func lockRunDir(dir string) (*os.File, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Lock(d); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w by another process", dir, ErrInProgress)
		}
		return nil, err
	}
	return d, nil
}

func (w *fileRun) Dir() string { return w.dir }

// CaseDocuments implements CaseDocumenter: the cases appended, as
// encoded then, to be given to Finish (after the last Append) and read
// by it; once Finish has written run.json, the cases listed there
// (DocumentCases).
func (w *fileRun) CaseDocuments() assay.Seq[[]byte] {
	return func(yield func([]byte) error) error {
		if w.written.Load() {
			return DocumentCases(w.dir)(yield)
		}
		return w.docs.cases(yield)
	}
}

// explain says a full disk or an unwritable store in plain words, naming
// the store root (DIR of DIR/runs/<run_id>) and then what failed.
func (w *fileRun) explain(err error) error {
	return explain(filepath.Dir(filepath.Dir(w.dir)), err)
}

func (w *fileRun) Append(r assay.CaseResult) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	if w.casesErr != nil {
		return w.casesErr
	}
	// The line is encoded into the buffer as caseLine encodes it (an
	// Encoder writes the value whole, or nothing, with its newline).
	start := w.casesBuf.Len()
	if err := w.casesEnc.Encode(&r); err != nil {
		return fmt.Errorf("case %s: %w", r.ID, err)
	}
	w.docs.add(r, w.casesBuf.Bytes()[start:])
	if w.index != nil {
		w.index.Add(r)
	}
	if time.Since(w.lastSync) >= syncEvery {
		w.lastSync = time.Now()
		if err := w.writeCases(); err != nil {
			return err
		}
		if err := w.cases.Sync(); err != nil {
			return w.explain(fmt.Errorf("%s: %w", w.cases.Name(), err))
		}
		return nil
	}
	if w.casesBuf.Len() >= casesBufferSize || !w.casesLater.pending && time.Since(w.lastWrite) >= casesFlushAfter {
		// A full buffer, or a writer that wrote nothing of late (a slow
		// system's case, the first of a run): written at once.
		return w.writeCases()
	}
	w.casesLater.arm(casesFlushAfter, w, (*fileRun).flushCasesLater)
	return nil
}

// writeCases writes the buffered case lines to cases.jsonl in one write.
// Its error is kept: every later Append, and Finish, return it. The
// caller holds the run's lock.
func (w *fileRun) writeCases() error {
	if w.casesErr != nil {
		return w.casesErr
	}
	if w.casesBuf.Len() == 0 {
		return nil
	}
	_, err := w.cases.Write(w.casesBuf.Bytes())
	w.casesBuf.Reset()
	w.lastWrite = time.Now()
	if err != nil {
		w.casesErr = w.explain(fmt.Errorf("%s: %w", w.cases.Name(), err))
	}
	return w.casesErr
}

// flushCasesLater is the timer's write of the buffered case lines.
func (w *fileRun) flushCasesLater() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.casesLater.fired()
	if !w.finished {
		w.writeCases()
	}
}

// Flush implements Flusher: the case lines appended are in cases.jsonl
// when it returns (not synced), for a reader of the run's directory
// before Finish.
func (w *fileRun) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return nil
	}
	return w.writeCases()
}

// closeCases writes the buffered case lines, then syncs and closes
// cases.jsonl. The caller holds the run's lock.
func (w *fileRun) closeCases() error {
	w.casesLater.stop()
	werr := w.writeCases()
	serr := w.cases.Sync()
	cerr := w.cases.Close()
	if werr != nil {
		return werr // already explained
	}
	if err := errors.Join(serr, cerr); err != nil {
		return w.explain(fmt.Errorf("%s: %w", w.cases.Name(), err))
	}
	return nil
}

// Release implements Releaser: cases.jsonl is synced and closed and the
// run's lock given up; the run stays incomplete.
func (w *fileRun) Release() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	w.finished = true
	defer w.lock.Close()
	defer w.docs.close()
	cerr := w.closeCases()
	if err := w.finishSuiteCases(false); err != nil {
		cerr = errors.Join(cerr, w.explain(fmt.Errorf("%s: %w", w.cases.Name(), err)))
	}
	if cerr != nil {
		return cerr
	}
	if w.index != nil {
		if err := w.index.Release(); err != nil {
			return w.explain(err)
		}
	}
	return nil
}

func (w *fileRun) Finish(run *assay.Run) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return ErrFinished
	}
	w.finished = true
	defer w.lock.Close()
	defer w.docs.close()
	Finished(run)
	if err := w.closeCases(); err != nil {
		return err
	}
	file := filepath.Join(w.dir, RunFile)
	doc := run
	if run.CaseDocuments != nil && w.docs.err != nil {
		// The encoded cases could not be kept (CaseDocuments would
		// fail): run.json encodes the stream's, the same cases.
		c := *run
		c.CaseDocuments = nil
		doc = &c
	}
	if err := writeFileAtomic(file, func(out io.Writer) error { return encodeRun(out, doc) }); err != nil {
		return w.explain(fmt.Errorf("%s: %w", file, err))
	}
	w.docs.close()
	w.written.Store(true)
	if err := compressCases(w.dir); err != nil {
		return w.explain(fmt.Errorf("%s: %w", filepath.Join(w.dir, CasesFile), err))
	}
	if err := w.finishSuiteCases(true); err != nil {
		return w.explain(fmt.Errorf("%s: %w", filepath.Join(w.dir, SuiteCasesFile), err))
	}
	if w.index != nil {
		// A run that carries this writer's encoded cases streams exactly
		// the cases appended (CaseDocumenter): the index has them.
		appended := len(run.Cases) == 0 && run.CaseStream != nil && run.CaseDocuments != nil
		if err := w.index.Finish(run, appended); err != nil {
			return fmt.Errorf("run %s saved in %s, but the index was not updated: %w", run.RunID, w.dir, w.explain(err))
		}
	}
	return nil
}

// PeekRun reads a run record's header, everything before its "cases",
// without the cases (Cases is nil): the path of a run.json or of its
// directory. It checks the schema as LoadRun does.
func PeekRun(path string) (*assay.Run, error) {
	file := runFile(path)
	f, err := boundedfile.Open(file, boundedfile.RunRecord)
	if err != nil {
		return nil, fileErr(file, err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%s: not a run record (want a JSON object)", file)
	}
	head := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		key, _ := t.(string)
		if key == "cases" {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		head[key] = v
	}
	b, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	var run assay.Run
	if err := json.Unmarshal(b, &run); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if run.Schema != assay.RunSchema {
		return nil, fmt.Errorf("%s: not an %s document (schema %q)", file, assay.RunSchema, run.Schema)
	}
	return &run, nil
}
