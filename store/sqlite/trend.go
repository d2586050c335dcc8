package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// Trend returns the value of metric (a metric name as recorded, such as
// ndcg@10, or pass_rate) in the complete runs of suite, oldest first, at
// most limit of the newest (0: all). Runs without the metric are left out,
// and so are shard runs (a slice of a run: its merge is in the trend).
func (s *Store) Trend(ctx context.Context, suite, metric string, limit int) ([]store.TrendPoint, error) {
	var q string
	if metric == "pass_rate" {
		q = `SELECT r.run_id, r.started_at, r.pass_rate, r.graded FROM runs r
			WHERE r.suite_name = ? AND r.status = 'complete' AND r.shard_count = 0 AND r.pass_rate IS NOT NULL AND ? = 'pass_rate'`
	} else {
		q = `SELECT r.run_id, r.started_at, m.mean, m.n FROM runs r JOIN run_metrics m ON m.run_id = r.run_id
			WHERE r.suite_name = ? AND r.status = 'complete' AND r.shard_count = 0 AND m.name = ?`
	}
	q += ` ORDER BY r.started_at DESC, r.run_id DESC`
	args := []any{store.IndexText(suite), store.IndexText(metric)}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var out []store.TrendPoint
	err := s.query(ctx, q, args, func(rows *sql.Rows) error {
		var p store.TrendPoint
		var started string
		if err := rows.Scan(&p.RunID, &started, &p.Value, &p.N); err != nil {
			return err
		}
		p.StartedAt = parseTime(started)
		out = append(out, p)
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

// CaseHistory returns the outcomes of one case across the finished runs of
// suite, newest first, at most limit runs' worth of rows (0: all).
func (s *Store) CaseHistory(ctx context.Context, suite, caseID string, limit int) ([]store.CaseOutcome, error) {
	q := `SELECT r.run_id, r.status, r.started_at, c.trial, c.pass, c.error_class, c.latency_ms, c.metrics
		FROM runs r JOIN case_rows c ON c.run_key = r.run_key
		WHERE r.suite_name = ? AND c.case_id = ?
		ORDER BY r.started_at DESC, r.run_id DESC, c.trial`
	args := []any{store.IndexText(suite), store.IndexText(caseID)}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var out []store.CaseOutcome
	err := s.query(ctx, q, args, func(rows *sql.Rows) error {
		var o store.CaseOutcome
		var status, started, metrics string
		var pass sql.NullInt64
		if err := rows.Scan(&o.RunID, &status, &started, &o.Trial, &pass, &o.ErrorClass, &o.LatencyMs, &metrics); err != nil {
			return err
		}
		o.Status = assay.RunStatus(status)
		o.StartedAt = parseTime(started)
		if pass.Valid {
			b := pass.Int64 != 0
			o.Pass = &b
		}
		if err := json.Unmarshal([]byte(metrics), &o.Metrics); err != nil {
			return fmt.Errorf("case %s in run %s: metrics: %w", caseID, o.RunID, err)
		}
		out = append(out, o)
		return nil
	})
	return out, err
}

// query runs a read query with retries on SQLITE_BUSY, calling fn per row.
func (s *Store) query(ctx context.Context, q string, args []any, fn func(*sql.Rows) error) error {
	err := s.retry(ctx, func() error {
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.root, DBFile), err)
	}
	return nil
}
