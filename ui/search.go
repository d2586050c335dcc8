package ui

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
)

// The case table's search looks at each case's query (from the suite
// file the run recorded, when it still has the run's fingerprint) and at
// its answers (the observations beside the run), besides what its rows
// hold (id, checks, error, tags). That reads the run's case lines once per
// search; the matching ids of the last few searches are kept, so paging
// and sorting a search reads nothing again.

type searchKey struct {
	run runKey
	q   string
}

var searches struct {
	mu   sync.Mutex
	keys []searchKey // most recent last
	ids  map[searchKey]map[string]bool
}

const keptSearches = 8

// textMatches returns the ids of the cases of c whose query or answer
// contains q (case-insensitively).
func (s *source) textMatches(ctx context.Context, c *cachedRun, q string) (map[string]bool, error) {
	k := searchKey{c.key, strings.ToLower(q)}
	searches.mu.Lock()
	if ids, ok := searches.ids[k]; ok {
		searches.mu.Unlock()
		return ids, nil
	}
	searches.mu.Unlock()
	ids, err := matchQueryAnswer(ctx, s.st, c.run, c.path, k.q)
	if err != nil {
		return nil, err
	}
	searches.mu.Lock()
	defer searches.mu.Unlock()
	if searches.ids == nil {
		searches.ids = map[searchKey]map[string]bool{}
	}
	if _, ok := searches.ids[k]; !ok {
		searches.keys = append(searches.keys, k)
		searches.ids[k] = ids
		if len(searches.keys) > keptSearches {
			delete(searches.ids, searches.keys[0])
			searches.keys = searches.keys[1:]
		}
	}
	return ids, nil
}

// matchQueryAnswer is the ids whose query or answer contains q (lower case).
func matchQueryAnswer(ctx context.Context, st Store, run *assay.Run, path, q string) (map[string]bool, error) {
	ids := map[string]bool{}
	harness.RunSuiteCases(ctx, st, run, path, func(c assay.Case) bool {
		if strings.Contains(strings.ToLower(c.Query), q) {
			ids[c.ID] = true
		}
		return ctx.Err() == nil
	})
	err := harness.RefCases(ctx, st, run, path, true, func(r assay.CaseResult) error {
		if o := r.Observation; o != nil && !ids[r.ID] && strings.Contains(strings.ToLower(o.Answer), q) {
			ids[r.ID] = true
		}
		return ctx.Err()
	})
	if errors.Is(err, fs.ErrNotExist) {
		// A run.json written alone has no case lines: no answers to search.
		err = nil
	}
	return ids, err
}
