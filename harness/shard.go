package harness

import (
	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/shard"
)

// selectShard narrows the session's selected cases to the plan's shard
// (Plan.Shard "I/N"; nothing when empty): each case selected gets its
// 1-based position among them (Case.Position, recorded in its result so
// that Merge restores suite order), and only the cases of slice I are
// run. The cases are read once more to count the slice; a slice may hold
// no case (an empty shard is still a shard of its group). A shard run
// checks no gate (runExprs): its gates are recorded in Run.Shard.Gates for
// Merge, which is also where a baseline is given.
func (ss *session) selectShard() error {
	f := ss.f
	if f.Shard == "" {
		if f.Group != "" {
			return planError("Group", "give {Shard} I/N with {Group}", "{Group} %s names the group of a shard run, and no {Shard} was given", f.Group)
		}
		return nil
	}
	spec, err := shard.Parse(f.Shard)
	if err != nil {
		return usageError("", "%v", err)
	}
	if f.Baseline != "" {
		return planError("Baseline", "give {Baseline} to assay merge, which gates the merged run", "{Baseline}: a shard run checks no gate and compares with nothing")
	}
	group := f.Group
	if group == "" {
		group = shard.DefaultGroup(ss.fingerprint, ss.git, f.Getenv)
	} else if err := shard.CheckGroup(group); err != nil {
		return usageError("", "%v", err)
	}
	ss.shard = &assay.Shard{Index: spec.Index, Count: spec.Count, Group: group}
	all := ss.src
	ss.src = func(yield func(assay.Case) error) error {
		pos := 0
		return all(func(c assay.Case) error {
			pos++
			if !spec.Contains(c.ID) {
				return nil
			}
			c.Position = pos
			return yield(c)
		})
	}
	ss.n = 0
	if err := ss.src(func(assay.Case) error { ss.n++; return nil }); err != nil {
		return inputError(err)
	}
	return nil
}

// runExprs are the gates a run checks, parsed: none for a shard run,
// whose record keeps them (Run.Shard.Gates, set with the session's gates)
// for the merge of its group.
func (ss *session) runExprs() []gate.Expr {
	if ss.shard == nil {
		return ss.exprs
	}
	return nil
}
