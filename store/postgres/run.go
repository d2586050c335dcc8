package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// runWriter is Begin's store.RunWriter. Each Append is one INSERT that has
// committed when Append returns (so a killed process loses only the cases
// in flight, as with the files store); concurrent Appends go out on
// several connections at once. seq numbers the lines in Append order.
type runWriter struct {
	s   *Store
	id  string
	ctx context.Context // Begin's, without its cancelation: Finish records a stopped run too

	lock *runLock // held from Begin to Finish

	mu       sync.RWMutex // Append holds it shared, Finish exclusively
	seqMu    sync.Mutex
	seq      int64
	finished bool
}

// Dir implements store.RunWriter: a Postgres run has no directory.
func (w *runWriter) Dir() string { return "" }

func (w *runWriter) Append(r assay.CaseResult) error {
	line, err := store.EncodeCase(r)
	if err != nil {
		return err
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.finished {
		return store.ErrFinished
	}
	w.seqMu.Lock()
	seq := w.seq
	w.seq++
	w.seqMu.Unlock()
	err = w.s.retry(w.ctx, func(attempt int) error {
		_, err := w.s.pool.Exec(w.ctx, `INSERT INTO case_lines (run_id, seq, line) VALUES ($1, $2, $3)`, w.id, seq, line)
		var pe *pgconn.PgError
		if attempt > 0 && errors.As(err, &pe) && pe.Code == "23505" {
			// unique_violation on a retry: the attempt that lost its
			// connection had committed the line.
			return nil
		}
		return err
	})
	if err != nil {
		return w.s.errorf("case %s: %w", r.ID, err)
	}
	return nil
}

// Release implements store.Releaser: the run's lock is given up and the
// run stays incomplete with its case lines.
func (w *runWriter) Release() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return store.ErrFinished
	}
	w.finished = true
	w.lock.release()
	return nil
}

// Finish implements store.RunWriter: in one transaction, the run's cases
// (read through run.EachCase, one at a time, streamed to COPY), its
// metrics and its row with the final record. When the run's CaseStream
// fails, nothing of it is kept: the run stays as Begin recorded it.
func (w *runWriter) Finish(run *assay.Run) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return store.ErrFinished
	}
	w.finished = true
	store.Finished(run)
	rec, err := record(run)
	if err != nil {
		return err
	}
	defer w.lock.release()
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
	var one int
	err := s.retry(ctx, func(int) error {
		return s.pool.QueryRow(ctx, `SELECT 1 FROM runs WHERE run_id = $1`, runID).Scan(&one)
	})
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("run %s: not in the store %s: %w", runID, s.name, store.ErrNotFound)
		}
		return s.errorf("run %s: %w", runID, err)
	}
	// A connection lost half-way is retried from the line after the last
	// one handed to fn.
	next := int64(0)
	var fnErr error
	err = s.retry(ctx, func(int) error {
		rows, err := s.pool.Query(ctx, `SELECT seq, line FROM case_lines WHERE run_id = $1 AND seq >= $2 ORDER BY seq`, runID, next)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var line []byte
			if err := rows.Scan(&seq, &line); err != nil {
				return err
			}
			r, err := store.DecodeCase(line, withObservations)
			if err != nil {
				fnErr = s.errorf("run %s: case line %d: %w", runID, seq+1, err)
				return errStopped
			}
			next = seq + 1
			if err := fn(r); err != nil {
				fnErr = err
				return errStopped // fn's error is not retried here
			}
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
