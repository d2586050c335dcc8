package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/assay-eval/assay"
)

// CopyResult says what Copy did: the ids of the runs it copied and of
// those it left because the destination already had them.
type CopyResult struct {
	Copied  []string `json:"copied"`
	Skipped []string `json:"skipped"`
}

// Copy copies every run of src into dst (any two stores: files and
// Postgres either way), oldest first, each with its record, status and
// times as they are and its case lines with their observations. A run dst
// already has (same run id) is skipped, so a copy that stopped can be run
// again. The source is not changed. A run that fails half-way is deleted
// from dst before the error is returned, so dst never keeps half a copy.
//
// A run stopped before it finished (incomplete, never finished) stays so
// in dst: Load gives it with the cases it recorded, as from src.
func Copy(ctx context.Context, dst, src Store) (CopyResult, error) {
	var res CopyResult
	entries, err := src.List(ctx, Filter{})
	if err != nil {
		return res, err
	}
	have, err := dst.List(ctx, Filter{})
	if err != nil {
		return res, err
	}
	there := make(map[string]bool, len(have))
	for _, e := range have {
		there[e.RunID] = true
	}
	slices.Reverse(entries)
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if there[e.RunID] {
			res.Skipped = append(res.Skipped, e.RunID)
			continue
		}
		if err := copyRun(ctx, dst, src, e.RunID); err != nil {
			return res, fmt.Errorf("run %s: %w", e.RunID, err)
		}
		res.Copied = append(res.Copied, e.RunID)
	}
	return res, nil
}

func copyRun(ctx context.Context, dst, src Store, id string) error {
	run, err := src.Load(ctx, id)
	if err != nil {
		return err
	}
	status, cases := run.Status, run.Cases
	run.Cases = nil
	w, err := dst.Begin(ctx, run)
	if err != nil {
		return err
	}
	err = src.Cases(ctx, id, true, w.Append)
	switch {
	case err != nil:
		w.Finish(&assay.Run{RunID: id, Status: assay.StatusIncomplete})
	case status == assay.StatusIncomplete && run.FinishedAt.IsZero():
		// Stopped before Finish: the copy stays so too (Finish would
		// stamp a finish time), its record listing no cases, and its
		// case lines the ones it has. The writer of a files store keeps
		// its cases.jsonl open until the process ends, as the stopped
		// run's own did.
	default:
		run.Status, run.Cases = status, cases
		err = w.Finish(run)
	}
	if err != nil {
		if derr := dst.Delete(context.WithoutCancel(ctx), id); derr != nil && !errors.Is(derr, ErrNotFound) {
			err = errors.Join(err, fmt.Errorf("the half-copied run is left in the destination: %w", derr))
		}
	}
	return err
}
