package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5"
)

// A run's case lines (Append) and the cases its suite stated
// (AppendSuiteCase) are written in batches: each batch is one transaction
// (the lines by COPY, the cases by one INSERT), committed once it holds
// batchLines lines or batchBytes bytes, and at least every flushEvery
// otherwise, so a killed process loses at most the last second or so of
// cases (the files store syncs its lines every second too). When the
// database falls behind, Append waits once maxPending lines wait, so
// memory stays bounded.
const (
	flushEvery = time.Second
	batchLines = 1000
	batchBytes = 4 << 20
	maxPending = 4 * batchLines
	maxBytes   = 4 * batchBytes
)

type pendingLine struct {
	seq  int64
	line []byte
}

type pendingCase struct {
	seq int64
	id  string
	b   []byte
}

// runWriter is Begin's store.RunWriter: Append and AppendSuiteCase queue
// what they are given, and a goroutine of the writer writes the queue in
// batches (see flushEvery); a batch that cannot be written (after
// retries) is the error of every later Append and of Finish. seq numbers
// the lines in Append order.
type runWriter struct {
	s   *Store
	id  string
	ctx context.Context // Begin's, without its cancelation: Finish records a stopped run too

	lock *runLock // held from Begin to Finish

	mu       sync.Mutex
	cond     *sync.Cond // a batch was taken, or the writer stopped
	lines    []pendingLine
	cases    []pendingCase
	bytes    int
	seq      int64
	caseSeq  int64
	finished bool
	err      error // the first batch that was not written

	flushMu sync.Mutex // one batch written at a time, in order
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	halted  sync.Once
}

var (
	_ store.SuiteCaseWriter = (*runWriter)(nil)
	_ store.Releaser        = (*runWriter)(nil)
)

func newRunWriter(ctx context.Context, s *Store, id string, lock *runLock) *runWriter {
	w := &runWriter{s: s, id: id, ctx: ctx, lock: lock,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	s.mu.Lock()
	s.writers[w] = true
	s.mu.Unlock()
	go w.loop()
	return w
}

// Dir implements store.RunWriter: a Postgres run has no directory.
func (w *runWriter) Dir() string { return "" }

func (w *runWriter) Append(r assay.CaseResult) error {
	line, err := store.EncodeCase(r)
	if err != nil {
		return err
	}
	return w.queue(func() {
		w.lines = append(w.lines, pendingLine{w.seq, line})
		w.seq++
		w.bytes += len(line)
	})
}

// AppendSuiteCase implements store.SuiteCaseWriter: a row of suite_cases,
// written with the batch of case lines it comes with.
func (w *runWriter) AppendSuiteCase(c assay.Case) error {
	b, err := json.Marshal(&c)
	if err != nil {
		return fmt.Errorf("case %s: %w", c.ID, err)
	}
	return w.queue(func() {
		w.cases = append(w.cases, pendingCase{w.caseSeq, text(c.ID), b})
		w.caseSeq++
		w.bytes += len(b)
	})
}

// queue calls add under the writer's lock, once there is room, and wakes
// the writer's goroutine when a batch is full.
func (w *runWriter) queue(add func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.finished && w.err == nil && (len(w.lines)+len(w.cases) >= maxPending || w.bytes >= maxBytes) {
		w.cond.Wait()
	}
	if w.finished {
		return store.ErrFinished
	}
	if w.err != nil {
		return w.err
	}
	add()
	if len(w.lines)+len(w.cases) >= batchLines || w.bytes >= batchBytes {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// loop writes the queue when a batch is full and every flushEvery, until
// halt.
func (w *runWriter) loop() {
	defer close(w.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-w.kick:
		case <-t.C:
		case <-w.stop:
			return
		}
		w.flush()
	}
}

// halt ends the writer's goroutine and writes what is queued; it returns
// the error of the first batch that was not written.
func (w *runWriter) halt() error {
	w.halted.Do(func() {
		close(w.stop)
		<-w.done
		w.flush()
		w.s.mu.Lock()
		delete(w.s.writers, w)
		w.s.mu.Unlock()
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// flush writes what is queued as one batch.
func (w *runWriter) flush() {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	lines, cases := w.lines, w.cases
	w.lines, w.cases, w.bytes = nil, nil, 0
	failed := w.err != nil
	w.cond.Broadcast()
	w.mu.Unlock()
	if failed || len(lines) == 0 && len(cases) == 0 {
		return
	}
	if err := w.write(lines, cases); err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = w.s.errorf("run %s: writing %d case lines: %w", w.id, len(lines), err)
		}
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// write commits one batch: the lines by COPY and the cases by one INSERT
// (a case id the run has already is left as it is), in one transaction.
func (w *runWriter) write(lines []pendingLine, cases []pendingCase) error {
	ctx := w.ctx
	var ids []string
	var seqs []int64
	var bodies [][]byte
	for _, c := range cases {
		ids, seqs, bodies = append(ids, c.id), append(seqs, c.seq), append(bodies, c.b)
	}
	return w.s.retry(ctx, func(attempt int) error {
		return pgx.BeginFunc(ctx, w.s.pool, func(tx pgx.Tx) error {
			if attempt > 0 && len(lines) > 0 {
				// The attempt that lost its connection may have
				// committed: then its first line is there.
				var done bool
				if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM case_lines WHERE run_id = $1 AND seq = $2)`,
					w.id, lines[0].seq).Scan(&done); err != nil {
					return err
				}
				if done {
					return nil
				}
			}
			if len(lines) > 0 {
				_, err := tx.CopyFrom(ctx, pgx.Identifier{"case_lines"}, []string{"run_id", "seq", "line"},
					pgx.CopyFromSlice(len(lines), func(i int) ([]any, error) {
						return []any{w.id, lines[i].seq, lines[i].line}, nil
					}))
				if err != nil {
					return err
				}
			}
			if len(cases) > 0 {
				_, err := tx.Exec(ctx, `INSERT INTO suite_cases (run_id, case_id, seq, "case")
					SELECT $1, u.id, u.seq, u.c FROM unnest($2::text[], $3::bigint[], $4::bytea[]) AS u(id, seq, c)
					ON CONFLICT (run_id, case_id) DO NOTHING`, w.id, ids, seqs, bodies)
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Release implements store.Releaser: what is queued is written, the run's
// lock is given up, and the run stays incomplete with its case lines.
func (w *runWriter) Release() error {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return store.ErrFinished
	}
	w.finished = true
	w.cond.Broadcast()
	w.mu.Unlock()
	defer w.lock.release()
	return w.halt()
}

// Finish implements store.RunWriter: in one transaction, the run's cases
// (read through run.EachCase, one at a time, streamed to COPY), its
// metrics and its row with the final record. When the run's CaseStream
// fails, nothing of it is kept: the run stays as Begin recorded it.
func (w *runWriter) Finish(run *assay.Run) error {
	w.mu.Lock()
	if w.finished {
		w.mu.Unlock()
		return store.ErrFinished
	}
	w.finished = true
	w.cond.Broadcast()
	w.mu.Unlock()
	defer w.lock.release()
	if err := w.halt(); err != nil {
		return err
	}
	store.Finished(run)
	rec, err := record(run)
	if err != nil {
		return err
	}
	ctx := w.ctx
	var streamErr error
	err = w.s.retry(ctx, func(attempt int) error {
		return pgx.BeginFunc(ctx, w.s.pool, func(tx pgx.Tx) error {
			if attempt > 0 {
				// The attempt that lost its connection may have committed:
				// then the row holds this record already.
				var done bool
				if err := tx.QueryRow(ctx, `SELECT record = $2 FROM runs WHERE run_id = $1`, run.RunID, rec).Scan(&done); err != nil {
					return err
				}
				if done {
					return nil
				}
			}
			src := newCaseSource(run)
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"case_results"},
				[]string{"run_id", "ord", "case_id", "trial", "pass", "error_class", "latency_ms", "metrics", "result"}, src)
			src.stop()
			if src.err != nil {
				streamErr = src.err
				return src.err
			}
			if err != nil {
				return err
			}
			for name, m := range run.Summary.Metrics {
				if _, err := tx.Exec(ctx, `INSERT INTO run_metrics (run_id, name, mean, n) VALUES ($1, $2, $3, $4)`,
					run.RunID, text(name), m.Mean, m.N); err != nil {
					return err
				}
			}
			return upsertIndex(ctx, tx, run, rec)
		})
	})
	if streamErr != nil {
		return streamErr
	}
	if err != nil {
		return w.s.errorf("run %s: %w", run.RunID, err)
	}
	return nil
}

// caseSource is pgx.CopyFromSource over run.EachCase: the push-style case
// stream runs in a goroutine that hands COPY one row at a time, so a run
// whose cases stream from disk is never held whole.
type caseSource struct {
	rows chan []any
	quit chan struct{}
	done chan struct{}
	row  []any
	err  error // the stream's (or an encoding) error
}

var (
	errCopyStopped = errors.New("copy stopped")
	errStopped     = errors.New("stopped")
)

func newCaseSource(run *assay.Run) *caseSource {
	c := &caseSource{rows: make(chan []any, 64), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.rows)
		ord := 0
		err := run.EachCase(func(r assay.CaseResult) error {
			r = r.WithoutObservation()
			b, err := json.Marshal(&r)
			if err != nil {
				return fmt.Errorf("case %s: %w", r.ID, err)
			}
			var pass *bool
			if r.Pass != nil {
				v := *r.Pass
				pass = &v
			}
			var class string
			if r.Error != nil {
				class = string(r.Error.Class)
			}
			mb, err := store.IndexMetrics(r.Metrics)
			if err != nil {
				return fmt.Errorf("case %s: metrics: %w", r.ID, err)
			}
			row := []any{run.RunID, ord, text(r.ID), r.Trial, pass, text(class), r.LatencyMs, string(mb), b}
			ord++
			select {
			case c.rows <- row:
				return nil
			case <-c.quit:
				return errCopyStopped
			}
		})
		if err != nil && !errors.Is(err, errCopyStopped) {
			c.err = err
		}
	}()
	return c
}

func (c *caseSource) Next() bool {
	row, ok := <-c.rows
	c.row = row
	return ok
}

func (c *caseSource) Values() ([]any, error) { return c.row, nil }

// Err is read by COPY after Next says no more: the stream's error, which
// the goroutine has set before it closed rows.
func (c *caseSource) Err() error { return c.err }

// stop ends the goroutine (when COPY failed before the stream did) and
// waits for it.
func (c *caseSource) stop() {
	close(c.quit)
	for range c.rows {
	}
	<-c.done
}

// Load implements store.Store: a path REF is read from its file
// (store.LoadRun); any other REF is resolved in the index. The record's
// cases are the rows Finish wrote; a run stopped before Finish gets its
// case lines instead, observations left out, as LoadRun gives it.
func (s *Store) Load(ctx context.Context, ref string) (*assay.Run, error) {
	if store.IsPathRef(ref) {
		path, err := store.ResolvePath(ref)
		if err != nil {
			return nil, err
		}
		return store.LoadRun(path)
	}
	e, err := store.ResolveEntry(ctx, s, ref)
	if err != nil {
		return nil, err
	}
	return s.load(ctx, e.RunID)
}

var _ store.HeadLoader = (*Store)(nil)

// LoadHead implements store.HeadLoader: the run's record without its
// cases (one row, no case rows read).
func (s *Store) LoadHead(ctx context.Context, id string) (*assay.Run, error) {
	run, err := s.record(ctx, id)
	if err != nil {
		return nil, err
	}
	run.Cases = nil
	return run, nil
}

// record reads the run's record (run.json's document) from its row.
func (s *Store) record(ctx context.Context, id string) (*assay.Run, error) {
	var rec []byte
	err := s.retry(ctx, func(int) error {
		return s.pool.QueryRow(ctx, `SELECT record FROM runs WHERE run_id = $1`, id).Scan(&rec)
	})
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("run %s: not in the store %s: %w", id, s.name, store.ErrNotFound)
		}
		return nil, s.errorf("run %s: %w", id, err)
	}
	var run assay.Run
	if err := decodeJSON(rec, &run); err != nil {
		return nil, s.errorf("run %s: record: %w", id, err)
	}
	return &run, nil
}

func (s *Store) load(ctx context.Context, id string) (*assay.Run, error) {
	run, err := s.record(ctx, id)
	if err != nil {
		return nil, err
	}
	err = s.retry(ctx, func(int) error {
		run.Cases = run.Cases[:0]
		rows, err := s.pool.Query(ctx, `SELECT result FROM case_results WHERE run_id = $1 ORDER BY ord`, id)
		if err != nil {
			return err
		}
		var b []byte
		_, err = pgx.ForEachRow(rows, []any{&b}, func() error {
			var r assay.CaseResult
			if err := decodeJSON(b, &r); err != nil {
				return fmt.Errorf("case %d: %w", len(run.Cases)+1, err)
			}
			run.Cases = append(run.Cases, r)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, s.errorf("run %s: %w", id, err)
	}
	if run.Status == assay.StatusIncomplete && len(run.Cases) == 0 {
		if err := s.Cases(ctx, id, false, func(r assay.CaseResult) error {
			run.Cases = append(run.Cases, r)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// decodeJSON decodes a document the store wrote, with the nesting bound
// every reader of the module applies.
func decodeJSON(b []byte, v any) error {
	if e := nesting.JSON(b); e != nil {
		return fmt.Errorf("col %d: %s", e.Col, e.Msg)
	}
	return json.Unmarshal(b, v)
}

// Cases implements store.Store: the case lines in Append order, decoded by
// store.DecodeCase (observations skipped unless asked for).
func (s *Store) Cases(ctx context.Context, runID string, withObservations bool, fn func(assay.CaseResult) error) error {
	if err := s.runExists(ctx, runID); err != nil {
		return err
	}
	return s.eachRow(ctx, runID, `SELECT seq, line FROM case_lines WHERE run_id = $1 AND seq >= $2 ORDER BY seq`, func(seq int64, line []byte) error {
		r, err := store.DecodeCase(line, withObservations)
		if err != nil {
			return s.errorf("run %s: case line %d: %w", runID, seq+1, err)
		}
		return fn(r)
	})
}

// eachRow calls fn with each (seq, bytes) row of query (run_id $1, seq >=
// $2, ordered by seq) until fn returns an error, which it returns as it
// is. A connection lost half-way is retried from the row after the last
// one handed to fn.
func (s *Store) eachRow(ctx context.Context, runID, query string, fn func(seq int64, b []byte) error) error {
	next := int64(0)
	var fnErr error
	err := s.retry(ctx, func(int) error {
		rows, err := s.pool.Query(ctx, query, runID, next)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var b []byte
			if err := rows.Scan(&seq, &b); err != nil {
				return err
			}
			if err := fn(seq, b); err != nil {
				fnErr = err
				return errStopped // fn's error is not retried here
			}
			next = seq + 1
		}
		return rows.Err()
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return s.errorf("run %s: %w", runID, err)
	}
	return nil
}

var _ store.SuiteCaseReader = (*Store)(nil)

// SuiteCase implements store.SuiteCaseReader: one row of suite_cases, by
// its key (run id, case id).
func (s *Store) SuiteCase(ctx context.Context, runID, id string) (*assay.Case, error) {
	var b []byte
	err := s.retry(ctx, func(int) error {
		return s.pool.QueryRow(ctx, `SELECT "case" FROM suite_cases WHERE run_id = $1 AND case_id = $2`, runID, text(id)).Scan(&b)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, s.runExists(ctx, runID)
	}
	if err != nil {
		return nil, s.errorf("run %s: case %s: %w", runID, id, err)
	}
	var c assay.Case
	if err := decodeJSON(b, &c); err != nil {
		return nil, s.errorf("run %s: case %s as its suite stated it: %w", runID, id, err)
	}
	if c.ID != id {
		// Another id that the index column holds as the same text.
		return nil, nil
	}
	return &c, nil
}

// SuiteCases implements store.SuiteCaseReader: the run's rows of
// suite_cases in the order they were written.
func (s *Store) SuiteCases(ctx context.Context, runID string, fn func(assay.Case) error) error {
	if err := s.runExists(ctx, runID); err != nil {
		return err
	}
	return s.eachRow(ctx, runID, `SELECT seq, "case" FROM suite_cases WHERE run_id = $1 AND seq >= $2 ORDER BY seq`, func(seq int64, b []byte) error {
		var c assay.Case
		if err := decodeJSON(b, &c); err != nil {
			return s.errorf("run %s: case %d as its suite stated it: %w", runID, seq+1, err)
		}
		return fn(c)
	})
}

// runExists is nil when the store has the run runID, else an error
// wrapping store.ErrNotFound (or the database's).
func (s *Store) runExists(ctx context.Context, runID string) error {
	var one int
	err := s.retry(ctx, func(int) error {
		return s.pool.QueryRow(ctx, `SELECT 1 FROM runs WHERE run_id = $1`, runID).Scan(&one)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("run %s: not in the store %s: %w", runID, s.name, store.ErrNotFound)
	}
	if err != nil {
		return s.errorf("run %s: %w", runID, err)
	}
	return nil
}
