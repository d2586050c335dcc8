package ui

import (
	"context"
	"encoding/json"
	"fmt"

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
	key, head, ok, err := s.cold(ctx, ref)
	if !ok || err != nil || head.Options.Trials > 1 {
		return nil, n, false, err
	}
	run := *head
	run.Cases = nil
	keep := f.keep(nil, nil)
	start := (max(page, 1) - 1) * pageSize
	err = store.ReadRunCaseLines(key.path, func(line []byte) error {
		n.all++
		if !keep(slimCase(line)) {
			return nil
		}
		n.total++
		if n.total <= start || pageSize > 0 && n.total > start+pageSize {
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

// slimCase is the case of a run.json line with the fields the case
// filter reads of it (status and tags): pass, error (any error object as
// an empty one) and tags, as encoding/json would decode them.
func slimCase(line []byte) assay.CaseResult {
	var cr assay.CaseResult
	v := gjson.GetManyBytes(line, "id", "pass", "error", "tags")
	cr.ID = v[0].String()
	switch v[1].Type {
	case gjson.True:
		t := true
		cr.Pass = &t
	case gjson.False:
		f := false
		cr.Pass = &f
	}
	if v[2].Exists() && v[2].Type != gjson.Null {
		cr.Error = &assay.Error{}
	}
	if v[3].IsObject() {
		cr.Tags = map[string]string{}
		v[3].ForEach(func(k, val gjson.Result) bool {
			cr.Tags[k.String()] = val.String()
			return true
		})
	}
	return cr
}
