package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// The compare page reads each run in compact form (cmpRun): the facts a
// comparison reads (compare.Compact) and each case's outcome for the
// page's head metric, read in one pass over the run.json's case lines
// (store.ReadRunCaseFacts, which decodes only those fields, as `assay
// compare` reads its runs), its header the one the UI read already. A run the run cache holds loaded already is
// made compact from its rows instead, and a run without a run.json (a
// store without files) or a stopped one (its summary made from the cases
// it recorded) is loaded whole. The changed-case table's tags and first
// failing checks are read afterwards from the lines of the few cases it
// lists. The compact forms of the last pair compared are kept
// (keptCompacts), so paging a flip list reads nothing again.

// cmpRun is a run as the compare page reads it.
type cmpRun struct {
	key  runKey
	head string // the metric of outs' head values
	at   time.Time
	run  *assay.Run // the run's record without its cases
	path string     // its run.json; "" for a store without files
	// cases are the run's case rows when it was loaded whole, else nil
	// (the rows the page lists are read from path).
	cases []assay.CaseResult
	c     *compare.Compact
	outs  map[string]outcome
	ids   []string // the distinct case ids, in run order
	ready chan struct{}
	err   error
}

// keptCompacts bounds the compact runs kept: a pair.
const keptCompacts = 2

// compareForms is `assay compare BASE CAND` of two runs resolve made the
// keys of (each read by its run.json or its full id, so a REF such as
// latest is resolved once per request, not again here):
// compare.RunsCompact of the two runs in compact form, weighed against
// the store's earlier runs of the baseline's system (harness.History), as
// harness.CompareRefs does. It returns the report and both runs in
// compact form, their outcomes for cand's head metric. The reports of the
// last few pairs are kept, so paging a flip list compares nothing again.
func (s *source) compareForms(ctx context.Context, base, cand runKey) (compare.Report, [2]*cmpRun, error) {
	var forms [2]*cmpRun
	ch, err := s.cmpHead(ctx, cand)
	if err != nil {
		return compare.Report{}, forms, err
	}
	head := ""
	if names := report.MetricOrder(ch); len(names) > 0 {
		head = names[0]
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i, key := range [2]runKey{base, cand} {
		wg.Go(func() { forms[i], errs[i] = s.cmpRunOf(ctx, key, head) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return compare.Report{}, forms, err
		}
	}
	k := [2]runKey{base, cand}
	s.mu.Lock()
	for _, r := range s.reports {
		if r.key == k && fresh(base, r.at) && fresh(cand, r.at) {
			s.mu.Unlock()
			return r.rep, forms, nil
		}
	}
	s.mu.Unlock()
	// Any two runs of the store, as asked: runs of two suites are
	// compared with the report's warning that they differ, not refused.
	hist := harness.History(ctx, s.st, forms[0].run, forms[1].run, 0)
	rep := compare.RunsCompact(forms[0].c, forms[1].c, compare.Options{History: hist})
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reports) >= keptReports {
		s.reports = s.reports[1:]
	}
	s.reports = append(s.reports, cachedReport{k, time.Now(), rep})
	return rep, forms, nil
}

// cmpHead is the record of the run key without its cases, as the
// comparison reads it: its run.json's header, unless the run is loaded
// whole (a stopped run's summary is made from its cases).
func (s *source) cmpHead(ctx context.Context, key runKey) (*assay.Run, error) {
	if key.path != "" {
		h, err := s.fileHead(key.path)
		if err != nil {
			return nil, err
		}
		if !stoppedHead(h) {
			return h, nil
		}
	}
	c, err := s.loadKey(ctx, key)
	if err != nil {
		return nil, err
	}
	return c.run, nil
}

// stoppedHead reports whether h is the header of a stopped run, whose
// summary is made from its cases when it is loaded (harness.Summarized).
func stoppedHead(h *assay.Run) bool {
	return h.Status == assay.StatusIncomplete && h.Summary.Cases == 0
}

// loadedRun is the run key when the run cache holds it loaded, else nil.
func (s *source) loadedRun(key runKey) *cachedRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.runs {
		if c.key == key && fresh(key, c.at) {
			select {
			case <-c.ready:
				if c.err == nil {
					return c
				}
			default:
			}
		}
	}
	return nil
}

// cmpRunOf returns the run key in compact form with its outcomes for
// metric head, from the cache or read now.
func (s *source) cmpRunOf(ctx context.Context, key runKey, head string) (*cmpRun, error) {
	s.mu.Lock()
	for i, c := range s.cmps {
		if c.key == key && c.head == head && fresh(key, c.at) {
			s.cmps = append(append(s.cmps[:i:i], s.cmps[i+1:]...), c)
			s.mu.Unlock()
			<-c.ready
			return c, c.err
		}
	}
	c := &cmpRun{key: key, head: head, at: time.Now(), ready: make(chan struct{})}
	for i := 0; i < len(s.cmps); i++ {
		if s.cmps[i].key.id == key.id {
			s.cmps = append(s.cmps[:i], s.cmps[i+1:]...)
			i--
		}
	}
	if len(s.cmps) >= keptCompacts {
		s.cmps = s.cmps[1:]
	}
	s.cmps = append(s.cmps, c)
	s.mu.Unlock()
	c.err = s.readCmp(ctx, c)
	if c.err != nil {
		s.mu.Lock()
		for i, x := range s.cmps {
			if x == c {
				s.cmps = append(s.cmps[:i], s.cmps[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	}
	close(c.ready)
	return c, c.err
}

// readCmp fills c: from the run loaded already, else from its run.json's
// case lines, else from the run loaded now.
func (s *source) readCmp(ctx context.Context, c *cmpRun) error {
	full := s.loadedRun(c.key)
	if full == nil && c.key.path != "" {
		h, err := s.fileHead(c.key.path)
		if err != nil {
			return err
		}
		if !stoppedHead(h) {
			return c.stream(h)
		}
	}
	if full == nil {
		var err error
		if full, err = s.loadKey(ctx, c.key); err != nil {
			return err
		}
	}
	c.fromRun(full.run, full.path)
	return nil
}

// fromRun makes c of the run loaded whole.
func (c *cmpRun) fromRun(run *assay.Run, path string) {
	h := *run
	h.Cases = nil
	c.run, c.path, c.cases = &h, path, run.Cases
	c.c = compare.CompactOf(run)
	a := newOutcomeAcc(c.head, len(run.Cases))
	for i := range run.Cases {
		a.add(&run.Cases[i])
	}
	c.outs, c.ids = a.done()
}

// stream makes c of the case lines of its run.json
// (store.ReadRunCaseFacts: the fields a comparison reads, a line at a
// time); h is the file's header as the UI read it (fileHead).
func (c *cmpRun) stream(h *assay.Run) error {
	run := *h
	run.Cases = nil
	cc := &compare.Compact{Head: &run}
	// The header's count sizes the maps, within reason.
	a := newOutcomeAcc(c.head, min(max(h.Summary.Cases, 0), 1<<18))
	err := store.ReadRunCaseFacts(c.key.path, func(r *assay.CaseResult) error {
		cc.Add(r)
		a.add(r)
		return nil
	})
	if err != nil {
		return err
	}
	c.run, c.path, c.c = &run, c.key.path, cc
	c.outs, c.ids = a.done()
	return nil
}

// rowsOf calls fn with each case trial of the run whose id is in want, in
// run order, whole (without observations): the run's rows when it was
// loaded, else the lines of its run.json, read up to the last trial
// wanted (each case's trials counted in outs) and decoded only when
// wanted.
func (c *cmpRun) rowsOf(want map[string]bool, fn func(assay.CaseResult)) error {
	if c.cases != nil || c.path == "" {
		for _, r := range c.cases {
			if want[r.ID] {
				fn(r)
			}
		}
		return nil
	}
	left := 0
	for id := range want {
		left += c.outs[id].rows
	}
	if left == 0 {
		return nil
	}
	n := 0
	return store.ReadRunCaseLines(c.path, func(line []byte) error {
		n++
		if !want[gjson.GetBytes(line, "id").String()] {
			return nil
		}
		var r assay.CaseResult
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s: case %d: %v", c.path, n, err)
		}
		fn(r)
		if left--; left == 0 {
			return store.ErrStop
		}
		return nil
	})
}

// sameTags reports whether every case both runs have carries the same
// tags in each of its trials in both (outcome.tags): then a segment kept
// by the candidate's tags is kept by the baseline's too.
func sameTags(b, c *cmpRun) bool {
	for id, co := range c.outs {
		bo, ok := b.outs[id]
		if ok && (bo.mixedTags || co.mixedTags || bo.tags != co.tags) {
			return false
		}
	}
	return true
}
