package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/store"
)

// The filtered case table of a run not loaded yet (a gate's link,
// followed while the run still loads in the background) is made in one
// pass over the case lines of its run.json (store.ReadRunCaseLines): of
// each line only what the filter looks at (pass, error, tags) is read,
// and the lines of the requested page alone are decoded whole, so the
// rows shown are those the loaded run gives. It serves one row a case
// trial in run order, by status (not flaky, which needs every trial) and
// tag; a sorted or searched table, and a run of several trials, wait for
// the run to load. A line past the page is checked to be valid JSON, not
// decoded: a case the whole run's decoding would refuse there is only
// counted.

// filterCount is what the pass counted: the rows matching the filter and
// all rows.
type filterCount struct{ total, all int }

// filtered returns, for the run REF when it is not loaded yet and has one
// trial a case, its header with the rows of page (pageSize rows; 0: all)
// of the case table f selects, and the counts; ok is false when load
// serves it.
func (s *source) filtered(ctx context.Context, ref string, f caseFilter, page, pageSize int) (*cachedRun, filterCount, bool, error) {
	var n filterCount
	key, head, start, err := s.cold(ctx, ref)
	if start == nil || err != nil {
		return nil, n, false, err
	}
	// The run loads in the background once the page is made, for the
	// pages after it: started now, it would take the CPU from this one.
	defer start()
	if head.Options.Trials > 1 {
		return nil, n, false, nil
	}
	run := *head
	run.Cases = nil
	if err := checkSort(&run, f.Sort); err != nil {
		return nil, n, false, err
	}
	first := (max(page, 1) - 1) * pageSize
	if f.Sort != "" {
		cases, ok, err := sortedPage(key.path, f, first, pageSize, &n)
		if !ok || err != nil {
			return nil, n, false, err
		}
		run.Cases = cases
		return &cachedRun{key: key, path: key.path, run: &run}, n, true, nil
	}
	keep := f.keep(nil, nil)
	err = store.ReadRunCaseLines(key.path, func(line []byte) error {
		n.all++
		if !keep(slimCase(line, f)) {
			return nil
		}
		n.total++
		if n.total <= first || pageSize > 0 && n.total > first+pageSize {
			return nil
		}
		var cr assay.CaseResult
		if err := json.Unmarshal(line, &cr); err != nil {
			return fmt.Errorf("%s: case %d: %v", key.path, n.all, err)
		}
		run.Cases = append(run.Cases, cr)
		return nil
	})
	if err != nil {
		return nil, n, false, err
	}
	return &cachedRun{key: key, path: key.path, run: &run}, n, true, nil
}

// slimTrue and slimFalse are the pass of every slim case: read, never
// written.
var slimTrue, slimFalse = true, false

// slimCase is the case of a run.json line with the fields the case
// filter f reads of it, as encoding/json would decode them: pass, error
// (any error object as an empty one) and, when f has a tag and the
// status matched, that tag alone.
func slimCase(line []byte, f caseFilter) assay.CaseResult {
	var cr assay.CaseResult
	switch gjson.GetBytes(line, "pass").Type {
	case gjson.True:
		cr.Pass = &slimTrue
	case gjson.False:
		cr.Pass = &slimFalse
	}
	if e := gjson.GetBytes(line, "error"); e.Exists() && e.Type != gjson.Null {
		cr.Error = &assay.Error{}
	}
	if f.Tag != "" && matchStatus(cr, f.Status, false) {
		k, _, _ := strings.Cut(f.Tag, "=")
		if v := gjson.GetBytes(line, "tags."+gjson.Escape(k)); v.Exists() {
			cr.Tags = map[string]string{k: v.String()}
		}
	}
	return cr
}

// sortedPage is the page of the case table f selects and sorts (a row a
// case trial, one trial a case): a first pass reads of each line what the
// filter and the sort key need and sorts the keys as the loaded table is
// sorted (sortValue, sortCompare), a second decodes the page's lines. ok
// is false when a case id repeats (its rows would be grouped into one).
func sortedPage(path string, f caseFilter, first, pageSize int, n *filterCount) ([]assay.CaseResult, bool, error) {
	keep := f.keep(nil, nil)
	val := sortValue(f.Sort)
	k := strings.TrimPrefix(f.Sort, "-")
	var keys []sortKeyed
	ids := map[string]bool{}
	dup := false
	g := make([]assay.CaseResult, 1)
	err := store.ReadRunCaseLines(path, func(line []byte) error {
		n.all++
		cr := slimCase(line, f)
		id := gjson.GetBytes(line, "id").String()
		if ids[id] {
			dup = true
			return store.ErrStop
		}
		ids[id] = true
		if !keep(cr) {
			return nil
		}
		n.total++
		cr.ID = id
		switch k {
		case "latency":
			if v := gjson.GetBytes(line, "latency_ms"); v.Type == gjson.Number {
				cr.LatencyMs = &v.Num
			}
		case "status", "id":
		default:
			if v := gjson.GetBytes(line, "metrics."+gjson.Escape(k)); v.Exists() && (v.Type == gjson.Number || v.Type == gjson.Null) {
				cr.Metrics = map[string]float64{k: v.Num}
			}
		}
		g[0] = cr
		v, ok := val(g)
		keys = append(keys, sortKeyed{id, v, ok, n.all})
		return nil
	})
	if err != nil || dup {
		return nil, false, err
	}
	slices.SortFunc(keys, sortCompare(f.Sort))
	lo, hi := min(first, len(keys)), len(keys)
	if pageSize > 0 {
		hi = min(first+pageSize, len(keys))
	}
	want := map[int]int{} // line: position on the page
	last := 0
	for i, key := range keys[lo:hi] {
		want[key.at] = i
		last = max(last, key.at)
	}
	page := make([]assay.CaseResult, hi-lo)
	i := 0
	err = store.ReadRunCaseLines(path, func(line []byte) error {
		i++
		if i > last {
			return store.ErrStop
		}
		pos, ok := want[i]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(line, &page[pos]); err != nil {
			return fmt.Errorf("%s: case %d: %v", path, i, err)
		}
		return nil
	})
	return page, err == nil, err
}
