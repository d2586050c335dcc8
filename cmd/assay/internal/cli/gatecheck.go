package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay/harness"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/compare"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/filelock"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
)

// GatePlan is a check of stored runs against gates, a floors file and
// orderings (what `assay gate` does).
type GatePlan struct {
	// Refs are the runs: one, or one per variant of a matrix.
	Refs []string
	// Gates are gate expressions (source "--gate"); with neither Gates
	// nor Floors, the gates the run recorded are checked again.
	Gates []string
	// Orderings, with one run per variant, check how a metric ranks them.
	Orderings []string
	// Baseline is the run REF delta, ratio and no_new_failures compare with.
	Baseline string
	// Floors is a floors file; Ratchet raises its floors to what a
	// complete, passing run achieved, minus Margin, logging Comment.
	Floors    string
	Ratchet   bool
	Margin    float64
	MarginSet bool
	Comment   string
	// JUnit, Markdown and Badge write the run with these gate results
	// ("-": Stdout); JSON writes the verdict (report.GateJSON).
	JUnit, Markdown, Badge, JSON string
	Stdout                       io.Writer
	// Stderr (RunGate) gets the warnings, and the text when an output
	// is written to Stdout ("-").
	Stderr io.Writer
	// StoreDir is where REFs that are not paths are resolved.
	StoreDir     string
	StoreOptions store.OpenOptions
}

// GateCheck is one run checked (CheckGate). The caller shows it, then
// calls WriteOutputs, Ratchet and Err, and Close.
type GateCheck struct {
	Run, Base *assay.Run
	// History are the earlier runs of the baseline's suite and target in
	// the store (History) that no_new_failures weighs flips against.
	History []*assay.Run
	Verdict gate.Verdict
	// Exprs are the gate expressions checked (those that apply and those
	// scoped to another variant: NotApplied).
	Exprs []gate.Expr
	// Floors is the floors file read (nil without one).
	Floors *gate.Floors
	p      GatePlan
	close  []func()
}

// CheckGate loads the run of p.Refs[0] (and the baseline), evaluates the
// gates and the floors. With Ratchet, the floors file stays locked until
// Close, so concurrent ratchets of one file are serialised from the read
// to the write.
func CheckGate(ctx context.Context, p GatePlan) (*GateCheck, error) {
	ref := p.Refs[0]
	if p.Ratchet && p.Floors == "" {
		return nil, usageError("for example: assay gate latest --floors "+gate.DefaultFloorsFile+" --ratchet", "--ratchet needs --floors FILE")
	}
	if (p.MarginSet || p.Comment != "") && !p.Ratchet {
		return nil, usageError("add --ratchet", "--margin and --comment only apply with --ratchet")
	}
	if p.Margin < 0 || math.IsNaN(p.Margin) || math.IsInf(p.Margin, 0) {
		return nil, usageError("", "--margin must be a number >= 0, got %v", p.Margin)
	}
	// Outputs are distinct files, none of them the floors file (--badge
	// assay.floors.json replaced the floors with a badge); one may be -.
	outs := []Output{{"--floors", p.Floors}, {"--junit", p.JUnit}, {"--markdown", p.Markdown}, {"--badge", p.Badge}, {"--json", p.JSON}}
	if err := DistinctOutputs(outs); err != nil {
		return nil, err
	}
	if p.Floors == "-" {
		return nil, usageError("", "--floors reads and writes a file: give a path, not -")
	}
	if store.IsPathRef(ref) {
		if path, err := store.ResolvePath(ref); err == nil {
			for _, o := range outs {
				if o.Path != "" && o.Path != "-" && atomicfile.SameFile(o.Path, path) {
					return nil, usageError("write it to another file", "%s %s would overwrite the run record %s", o.Flag, o.Path, path)
				}
			}
		}
	}
	exprs, err := parseGates(p.Gates)
	if err != nil {
		return nil, err
	}
	c := &GateCheck{p: p}
	st, err := OpenRefStore(p.StoreDir, p.StoreOptions, ref, p.Baseline)
	if err != nil {
		return nil, inputError(err)
	}
	if st != nil {
		c.close = append(c.close, func() { st.Close() })
	}
	fail := func(err error) (*GateCheck, error) { c.Close(); return nil, err }
	if c.Run, err = loadGated(ctx, st, ref); err != nil {
		return fail(inputError(err))
	}
	if p.Baseline != "" {
		if c.Base, _, err = harness.LoadBaseline(ctx, st, p.Baseline, c.Run.Suite.Name); err != nil {
			return fail(err)
		}
		harness.Summarized(c.Base)
	}
	run := c.Run
	recorded := len(exprs) == 0 && p.Floors == ""
	if recorded {
		for _, g := range run.Gates {
			e, err := gate.Parse(g.Expr, g.Source)
			if err != nil {
				return fail(inputError(err))
			}
			exprs = append(exprs, e)
		}
		if len(exprs) == 0 {
			return fail(usageError("give --gate EXPR or --floors FILE", "nothing to check: run %s records no gates", run.RunID))
		}
	}
	var skipped []string
	if c.Base == nil {
		if exprs, skipped, err = harness.WithoutBaseline(exprs, givenGates(recorded), FlagName); err != nil {
			return fail(err)
		}
		if len(exprs) == 0 && p.Floors == "" {
			return fail(usageError("pass --baseline REF", "nothing to check without a baseline: every gate of run %s compares with one", run.RunID))
		}
	}
	c.Exprs = exprs
	if c.Base != nil {
		c.History = harness.History(ctx, st, c.Base, run, 0)
	}
	c.Verdict = gate.EvaluateHistory(exprs, run, c.Base, c.History)
	c.Verdict.Warnings = append(skipped, c.Verdict.Warnings...)
	if p.Floors != "" {
		if p.Ratchet {
			lock, err := lockFloorsFile(ctx, p.Floors)
			if err != nil {
				return fail(inputError(err))
			}
			c.close = append(c.close, func() { lock.Release() })
		}
		if c.Floors, err = readFloorsFile(p.Floors, p.Ratchet); err != nil {
			return fail(inputError(err))
		}
		c.Verdict = c.Verdict.Merge(c.Floors.Check(run, p.Floors))
	}
	return c, nil
}

// Close releases the floors lock and the store.
func (c *GateCheck) Close() {
	for i := len(c.close) - 1; i >= 0; i-- {
		c.close[i]()
	}
	c.close = nil
}

// NoFloors returns the note and the usage error of a floors file that
// holds no floor for the run: none at all, or only other variants'
// (this run's are set by its first ratchet). note is "" when it holds
// some; err is nil when there is still something to check (or Ratchet
// will set them).
func (c *GateCheck) NoFloors() (note string, err error) {
	fl, run, p := c.Floors, c.Run, c.p
	nothing := !p.Ratchet && len(c.Verdict.Results) == 0
	switch {
	case fl == nil:
		return "", nil
	case len(fl.Floors) == 0:
		note = fmt.Sprintf("%s holds no floors yet", p.Floors)
		if nothing {
			err = usageError("add --ratchet to set them, or give --gate EXPR", "nothing to check: %s holds no floors", p.Floors)
		}
	case len(run.Variant) > 0 && !floorsFor(fl, run):
		name := gate.VariantName(run.Variant)
		note = fmt.Sprintf("%s holds no floors for variant %s yet", p.Floors, name)
		if nothing {
			err = usageError("add --ratchet to set them, or give the floors file of this variant", "nothing to check: %s holds no floor for variant %s", p.Floors, name)
		}
	}
	return note, err
}

// NotApplied are the gates scoped to another variant than the run's.
func (c *GateCheck) NotApplied() []gate.Expr {
	var out []gate.Expr
	for _, e := range c.Exprs {
		if !gate.AppliesTo(e, c.Run) {
			out = append(out, e)
		}
	}
	return out
}

// NothingApplies is the usage error of a check where no gate applies to
// the run (and there is no floors file); nil otherwise.
func (c *GateCheck) NothingApplies() error {
	if len(c.Verdict.Results) == 0 && c.Floors == nil {
		return usageError("scope the gate to the run's variant, or gate the run of that variant",
			"no gate applies to run %s (variant %s)", c.Run.RunID, gate.VariantName(c.Run.Variant))
	}
	return nil
}

// WriteOutputs writes JUnit, Markdown and Badge for the run with the gate
// results of this check in place of those it recorded.
func (c *GateCheck) WriteOutputs() error {
	p, run, verdict := c.p, c.Run, c.Verdict
	if p.JUnit == "" && p.Markdown == "" && p.Badge == "" && p.JSON == "" {
		return nil
	}
	shown := *run
	shown.Gates, shown.Baseline = verdict.Results, ""
	if c.Base != nil {
		shown.Baseline = c.Base.RunID
	}
	shown.Warnings = append(append([]string(nil), run.Warnings...), verdict.Warnings...)
	var cmp *compare.Report
	if c.Base != nil && p.Markdown != "" {
		r := compare.Runs(c.Base, run, compare.Options{History: c.History})
		cmp = &r
	}
	outputs := []struct {
		path   string
		render func(io.Writer) error
	}{
		{p.JUnit, func(w io.Writer) error { return report.JUnit(w, &shown) }},
		{p.Markdown, func(w io.Writer) error { return report.Markdown(w, &shown, cmp) }},
		{p.Badge, func(w io.Writer) error { return report.Badge(w, &shown, verdict) }},
		{p.JSON, func(w io.Writer) error { return report.GateJSON(w, run, verdict) }},
	}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if o.path == "-" {
			if err := o.render(p.Stdout); err != nil {
				return err
			}
			continue
		}
		if dir := filepath.Dir(o.path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		if err := atomicfile.Replace(o.path, o.render); err != nil {
			return err
		}
	}
	return nil
}

// Ratcheted is what a ratchet did: NotRaised says why it raised nothing
// ("" when it ran), Changes the floors it set or raised (written to the
// file when there are any).
type Ratcheted struct {
	NotRaised string
	Changes   []gate.FloorChange
}

// Ratchet raises the floors when the plan asks for it and the run is
// complete and passes; it writes the floors file when a floor rose.
func (c *GateCheck) Ratchet(now time.Time) (Ratcheted, error) {
	p, run := c.p, c.Run
	switch {
	case !p.Ratchet:
		return Ratcheted{}, nil
	case run.Status != assay.StatusComplete:
		return Ratcheted{NotRaised: fmt.Sprintf("run %s is incomplete (an incomplete run never ratchets)", run.RunID)}, nil
	case !c.Verdict.Pass:
		return Ratcheted{NotRaised: fmt.Sprintf("the run fails %d gate(s)", len(c.Verdict.Failed()))}, nil
	}
	changes, err := c.Floors.Ratchet(run, gate.RatchetOptions{Margin: p.Margin, Comment: p.Comment, Now: now, Name: p.Floors})
	if err != nil {
		return Ratcheted{}, inputError(err)
	}
	if len(changes) > 0 {
		if err := writeFloorsFile(p.Floors, c.Floors); err != nil {
			return Ratcheted{}, inputError(err)
		}
	}
	return Ratcheted{Changes: changes}, nil
}

// Err is the outcome of the check: an Input error for an incomplete run
// (a partial run never passes) or gates that measure nothing, GateFailed
// when a gate or floor failed, nil when all held.
func (c *GateCheck) Err() error {
	switch {
	case c.Run.Status != assay.StatusComplete:
		return inputError(fmt.Errorf("run %s is incomplete: a partial run never passes", c.Run.RunID))
	case len(c.Verdict.Errors) > 0:
		return gateErrors(c.Verdict.Errors)
	case harness.AllErrored(c.Run) != nil:
		return harness.AllErrored(c.Run)
	case !c.Verdict.Pass:
		return &harness.Error{Kind: harness.GateFailed}
	}
	return nil
}

// MatrixCheck is the runs of a variant matrix checked (CheckMatrix).
type MatrixCheck struct {
	Runs      []*assay.Run
	Verdicts  []gate.Verdict
	Orderings *gate.Verdict // nil without orderings
}

// CheckMatrix checks the runs of a variant matrix: each run against the
// gates that apply to its variant, then every ordering across them.
func CheckMatrix(ctx context.Context, p GatePlan) (*MatrixCheck, error) {
	refs := p.Refs
	switch {
	case p.Floors != "" || p.Ratchet:
		return nil, usageError("check floors one run at a time", "--floors takes one RUN, got %d", len(refs))
	case p.JUnit != "" || p.Markdown != "" || p.Badge != "" || p.JSON != "":
		return nil, usageError("write reports one run at a time", "--junit, --markdown, --badge and --json take one RUN, got %d", len(refs))
	case p.Baseline != "":
		return nil, usageError("compare variants with --ordering, or one run at a time with --baseline", "--baseline takes one RUN, got %d", len(refs))
	case len(refs) < 2:
		return nil, usageError("for example: assay gate RUN_FAST RUN_THOROUGH --ordering 'ndcg@10: fast <= thorough'", "--ordering compares variants: give one RUN per variant")
	}
	exprs, err := parseGates(p.Gates)
	if err != nil {
		return nil, err
	}
	var orderings []gate.Ordering
	for _, spec := range p.Orderings {
		o, err := gate.ParseOrdering(spec, "--ordering")
		if err != nil {
			return nil, inputError(err)
		}
		orderings = append(orderings, o)
	}
	if len(exprs) == 0 && len(orderings) == 0 {
		return nil, usageError("give --gate EXPR or --ordering SPEC", "nothing to check across %d runs", len(refs))
	}
	// No baseline can be given with several runs.
	if _, _, err := harness.WithoutBaseline(exprs, "--gate", FlagName); err != nil {
		return nil, err
	}
	st, err := OpenRefStore(p.StoreDir, p.StoreOptions, refs...)
	if err != nil {
		return nil, inputError(err)
	}
	if st != nil {
		defer st.Close()
	}
	byVariant := map[string]*assay.Run{}
	m := &MatrixCheck{}
	for _, ref := range refs {
		run, err := loadGated(ctx, st, ref)
		if err != nil {
			return nil, inputError(err)
		}
		name := gate.VariantName(run.Variant)
		if name == "" {
			return nil, inputError(fmt.Errorf("run %s records no variant: orderings compare the runs of a variant matrix", run.RunID))
		}
		if other, dup := byVariant[name]; dup {
			return nil, inputError(fmt.Errorf("runs %s and %s are both variant %s", other.RunID, run.RunID, name))
		}
		byVariant[name] = run
		m.Runs = append(m.Runs, run)
	}
	// A gate scoped to a variant none of the runs is would check nothing.
	for _, e := range exprs {
		if !slices.ContainsFunc(m.Runs, func(r *assay.Run) bool { return gate.AppliesTo(e, r) }) {
			return nil, usageError("", "--gate %q applies to none of the runs (variants: %s)", e.Text, strings.Join(slices.Sorted(maps.Keys(byVariant)), ", "))
		}
	}
	for _, run := range m.Runs {
		m.Verdicts = append(m.Verdicts, gate.EvaluateExprs(exprs, run, nil))
	}
	if len(orderings) > 0 {
		v := gate.CheckOrderings(orderings, byVariant)
		m.Orderings = &v
	}
	return m, nil
}

// Err is the outcome of a matrix check, as GateCheck.Err.
func (m *MatrixCheck) Err() error {
	pass, complete := true, true
	var invalid []string
	for i, run := range m.Runs {
		complete = complete && run.Status == assay.StatusComplete
		pass = pass && m.Verdicts[i].Pass
		invalid = append(invalid, m.Verdicts[i].Errors...)
	}
	if m.Orderings != nil {
		pass = pass && m.Orderings.Pass
	}
	switch {
	case !complete:
		return inputError(fmt.Errorf("a run of the matrix is incomplete: a partial run never passes"))
	case len(invalid) > 0:
		return gateErrors(invalid)
	case !pass:
		return &harness.Error{Kind: harness.GateFailed}
	}
	return nil
}

func parseGates(gates []string) ([]gate.Expr, error) {
	exprs := make([]gate.Expr, 0, len(gates))
	for _, g := range gates {
		e, err := gate.Parse(g, "--gate")
		if err != nil {
			return nil, inputError(err)
		}
		exprs = append(exprs, e)
	}
	return exprs, nil
}

// loadGated loads a run REF; a stopped run is gated on what it recorded.
func loadGated(ctx context.Context, st store.Store, ref string) (*assay.Run, error) {
	run, _, err := harness.LoadRef(ctx, st, ref)
	if err != nil {
		return nil, err
	}
	harness.Summarized(run)
	return run, nil
}

// readFloorsFile reads a floors file; a missing one is an empty file when
// it is about to be ratcheted, an error otherwise.
func readFloorsFile(path string, ratchet bool) (*gate.Floors, error) {
	fh, err := boundedfile.Open(path, boundedfile.Floors)
	if errors.Is(err, fs.ErrNotExist) {
		if ratchet {
			return gate.NewFloors(), nil
		}
		return nil, fmt.Errorf("%s: no such floors file (create it with --ratchet)", path)
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return gate.ReadFloors(fh, path)
}

// writeFloorsFile replaces the floors file atomically (temp file + rename),
// creating its directory as the other outputs do.
func writeFloorsFile(path string, f *gate.Floors) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Replace(path, f.Write)
}

// lockFloorsFile takes the lock a ratchet holds on the floors file (a
// sibling PATH.lock, removed when released), creating the directory the
// file will be written to.
func lockFloorsFile(ctx context.Context, path string) (*filelock.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return filelock.Acquire(ctx, path, filelock.DefaultTimeout)
}

// floorsFor reports whether any floor applies to the run: an unscoped one,
// or one scoped to its variant.
func floorsFor(fl *gate.Floors, run *assay.Run) bool {
	for _, e := range fl.Exprs("") {
		if gate.AppliesTo(e, run) {
			return true
		}
	}
	return false
}

// givenGates is the source of the gates given to this check: none when
// they are those the run recorded.
func givenGates(recorded bool) string {
	if recorded {
		return ""
	}
	return "--gate"
}
