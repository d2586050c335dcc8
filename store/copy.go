package store

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/assay-eval/assay"
)

// CopyResult says what Copy did: the ids of the runs it copied, of those
// it left because the destination already had them whole, of those whose
// copy in the destination was not whole (a copy that was stopped) and
// that it copied again, and of those it left because a live process is
// still writing them in the source.
type CopyResult struct {
	Copied     []string `json:"copied"`
	Skipped    []string `json:"skipped"`
	Redone     []string `json:"redone,omitempty"`
	InProgress []string `json:"in_progress,omitempty"`
}

// Copy copies every run of src into dst (any two stores: files and
// Postgres either way), oldest first, each with its record, status and
// times as they are and its case lines with their observations. The source
// is not changed. The cases the run kept as its suite stated them
// (SuiteCaseReader) go with it when dst can keep them (SuiteCaseWriter).
//
// Each run is verified once copied: dst must give back the same record
// and the same case lines (their number and a SHA-256 over them, see
// Digest); a run that does not is deleted from dst and the copy fails, so
// dst never keeps half a copy that looks whole. A run dst already has
// (same run id) is compared the same way: when it is whole it is skipped;
// when it is not (a copy that was killed left it truncated) it is deleted
// and copied again (Redone), as is a part dst holds but does not list (a
// copy killed between creating the run and listing it). So a copy that stopped, however it stopped,
// is finished by running it again. A run that a live process is still
// writing in src (ProgressReporter) is left for a later copy.
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
		if pr, ok := src.(ProgressReporter); ok && e.Status == assay.StatusIncomplete && pr.InProgress(ctx, e.RunID) {
			res.InProgress = append(res.InProgress, e.RunID)
			continue
		}
		want, err := Digest(ctx, src, e.RunID)
		if err != nil {
			return res, fmt.Errorf("run %s: reading it: %w", e.RunID, err)
		}
		redo := false
		if there[e.RunID] {
			got, err := Digest(ctx, dst, e.RunID)
			if err == nil && got == want {
				res.Skipped = append(res.Skipped, e.RunID)
				continue
			}
			if err := dst.Delete(ctx, e.RunID); err != nil && !errors.Is(err, ErrNotFound) {
				return res, fmt.Errorf("run %s: the destination's copy is not whole (%s), and it could not be removed: %w", e.RunID, mismatch(got, want, err), err)
			}
			redo = true
		} else if err := dst.Delete(ctx, e.RunID); err == nil {
			// A copy killed before dst listed the run left part of it.
			redo = true
		} else if !errors.Is(err, ErrNotFound) {
			return res, fmt.Errorf("run %s: the destination holds part of it, not listed, and it could not be removed: %w", e.RunID, err)
		}
		if err := copyRun(ctx, dst, src, e.RunID, want); err != nil {
			return res, fmt.Errorf("run %s: %w", e.RunID, err)
		}
		if redo {
			res.Redone = append(res.Redone, e.RunID)
		} else {
			res.Copied = append(res.Copied, e.RunID)
		}
	}
	return res, nil
}

// RunDigest identifies a run's content in any store: its status, the
// number of its case lines and of the suite's cases it kept, and a SHA-256
// over its record (EncodeRun of what Load gives), every case line with its
// observation (EncodeCase of what Cases gives), in order, and every case
// it kept (SuiteCaseReader, in order; none for a store without it).
type RunDigest struct {
	Status     assay.RunStatus
	Lines      int
	SuiteCases int
	Sum        [sha256.Size]byte
}

// Digest reads the run id from s and returns its RunDigest.
func Digest(ctx context.Context, s Store, id string) (RunDigest, error) {
	var d RunDigest
	run, err := s.Load(ctx, id)
	if err != nil {
		return d, err
	}
	h := sha256.New()
	rec, err := EncodeRun(run)
	if err != nil {
		return d, err
	}
	h.Write(rec)
	err = s.Cases(ctx, id, true, func(r assay.CaseResult) error {
		line, err := EncodeCase(r)
		if err != nil {
			return err
		}
		h.Write(line)
		d.Lines++
		return nil
	})
	if err != nil {
		return d, err
	}
	if sr, ok := s.(SuiteCaseReader); ok {
		h.Write([]byte("suite cases\n"))
		err = sr.SuiteCases(ctx, id, func(c assay.Case) error {
			b, err := json.Marshal(&c)
			if err != nil {
				return err
			}
			h.Write(append(b, '\n'))
			d.SuiteCases++
			return nil
		})
		if err != nil {
			return d, err
		}
	}
	d.Status = run.Status
	h.Sum(d.Sum[:0])
	return d, nil
}

// mismatch says how a copy differs from its source.
func mismatch(got, want RunDigest, err error) string {
	switch {
	case err != nil:
		return "it does not read"
	case got.Status != want.Status:
		return fmt.Sprintf("%s, the source's is %s", got.Status, want.Status)
	case got.Lines != want.Lines:
		return fmt.Sprintf("%d case lines of %d", got.Lines, want.Lines)
	case got.SuiteCases != want.SuiteCases:
		return fmt.Sprintf("%d of the %d cases its suite stated", got.SuiteCases, want.SuiteCases)
	}
	return fmt.Sprintf("%d case lines, but their checksum differs", got.Lines)
}

// copyRun copies the run id and verifies the copy against want; a copy
// that fails or does not match is deleted from dst.
func copyRun(ctx context.Context, dst, src Store, id string, want RunDigest) error {
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
	if err == nil {
		err = copySuiteCases(ctx, w, src, id)
	}
	switch {
	case err != nil:
		w.Finish(&assay.Run{RunID: id, Status: assay.StatusIncomplete})
	case status == assay.StatusIncomplete && run.FinishedAt.IsZero():
		// Stopped before Finish: the copy stays so too (Finish would
		// stamp a finish time), its record listing no cases, and its
		// case lines the ones it has; its writer lets go as the stopped
		// run's own did.
		if r, ok := w.(Releaser); ok {
			err = r.Release()
		}
	default:
		run.Status, run.Cases = status, cases
		err = w.Finish(run)
	}
	if err == nil {
		got, derr := Digest(ctx, dst, id)
		if derr != nil || got != want {
			err = fmt.Errorf("the copy does not match its source (%s)", mismatch(got, want, derr))
		}
	}
	if err != nil {
		if derr := dst.Delete(context.WithoutCancel(ctx), id); derr != nil && !errors.Is(derr, ErrNotFound) {
			err = errors.Join(err, fmt.Errorf("the half-copied run is left in the destination: %w", derr))
		}
	}
	return err
}

// copySuiteCases copies the cases the run id kept in src (SuiteCaseReader)
// to its writer w in dst, when w keeps them (SuiteCaseWriter).
func copySuiteCases(ctx context.Context, w RunWriter, src Store, id string) error {
	sr, ok := src.(SuiteCaseReader)
	if !ok {
		return nil
	}
	sw, ok := w.(SuiteCaseWriter)
	if !ok {
		return nil
	}
	return sr.SuiteCases(ctx, id, sw.AppendSuiteCase)
}
