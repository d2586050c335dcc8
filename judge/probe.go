package judge

import (
	"context"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
)

// The bias probes (docs/judge.md): each judged case is asked again under
// each probe the definition or --judge-probes names, and the probe's
// effect on a criterion is the mean over the cases of the paired
// difference (score under the probe − score without it).
const (
	// VerbosityPad is the neutral sentence the verbosity probe adds to the
	// answer.
	VerbosityPad = "The text above is the whole of the answer."
	// ProbeThreshold flags a probe whose |effect| on a criterion exceeds
	// this share of the criterion's scale (0.1 on a 0–1 scale, 0.4 on 1–5).
	ProbeThreshold = 0.1
	// ProbeResamples is the number of bootstrap resamples of a probe's
	// interval.
	ProbeResamples = 2000
)

// runProbes asks the probes of a judged case (o as sent, scored on
// rubric) and records their scores in jr; their requests are reserved and
// counted like the others. A probe that cannot apply to the case (the
// position probe with fewer than two passages, the verbosity probe with
// no answer or one at MaxAnswer), is refused by the budget or fails is
// left out.
func (j *Judge) runProbes(ctx context.Context, c assay.Case, o assay.Observation, rubric []assay.JudgeCriterion, trial int, jr *assay.JudgeResult) {
	for _, name := range j.probes {
		po, idx := o, 0
		switch name {
		case "position":
			n := min(len(o.Retrieved), MaxPassages)
			if n < 2 {
				continue
			}
			po.Retrieved = slices.Clone(o.Retrieved)
			slices.Reverse(po.Retrieved[:n])
		case "verbosity":
			a := strings.TrimSpace(o.Answer)
			if a == "" || len([]rune(a))+1+len([]rune(VerbosityPad)) > MaxAnswer {
				continue
			}
			po.Answer = a + " " + VerbosityPad
		case "consistency":
			idx = j.repeats // the seed after the repeats'
		}
		system, user := Prompt(rubric, c, po)
		p := j.params(idx)
		key := cache.Key(PromptVersion, j.cfg.Model, system, user, p, trial, idx, "probe "+name)
		e := j.cached(key, rubric)
		fresh := e == nil
		if fresh {
			h, why := j.budget.reserve(ctx, 1, len(system)+len(user))
			if why != "" {
				return
			}
			var pr assay.JudgeResult
			e = j.ask(ctx, system, user, p.Seed, h, &pr)
			jr.Calls = addInt(jr.Calls, pr.Calls)
			jr.PromptTokens = addInt(jr.PromptTokens, pr.PromptTokens)
			jr.CompletionTokens = addInt(jr.CompletionTokens, pr.CompletionTokens)
			if pr.Cost != nil {
				jr.Cost = addCost(jr.Cost, *pr.Cost)
			}
			if e == nil {
				continue
			}
		}
		v, err := ParseRedacted(j.secrets, rubric, e.Content)
		if err != nil {
			continue
		}
		if fresh {
			j.keep(key, &entry{Content: v.canonical(rubric), Model: e.Model, Usage: e.Usage})
		}
		jr.Probes = append(jr.Probes, assay.JudgeProbeScores{Probe: name, Scores: v.Scores})
	}
}

// probeTally collects the paired differences of each probe and criterion.
type probeTally map[[2]string][]float64

// add counts the probes of one judged result.
func (pt probeTally) add(jr *assay.JudgeResult) {
	if !jr.Judged() {
		return
	}
	for _, p := range jr.Probes {
		for _, s := range jr.Scores {
			if x, ok := p.Scores[s.Criterion]; ok {
				k := [2]string{p.Probe, s.Criterion}
				pt[k] = append(pt[k], x-s.Score)
			}
		}
	}
}

// summary is each probe's effect per criterion, in probe then rubric
// order.
func (pt probeTally) summary(probes []string, rubric []assay.JudgeCriterion) []assay.JudgeProbe {
	var out []assay.JudgeProbe
	for _, p := range probes {
		for _, cr := range rubric {
			d := pt[[2]string{p, cr.Name}]
			if len(d) == 0 {
				continue
			}
			effect := probeMean(d)
			lo, hi := probeInterval(d, p+"/"+cr.Name)
			th := ProbeThreshold * (cr.Max - cr.Min)
			out = append(out, assay.JudgeProbe{Probe: p, Criterion: cr.Name, N: len(d), Effect: effect, Lo: lo, Hi: hi, Threshold: th, Flagged: math.Abs(effect) > th})
		}
	}
	return out
}

func probeMean(d []float64) float64 {
	s := 0.0
	for _, x := range d {
		s += x
	}
	return s / float64(len(d))
}

// probeInterval is the 95 % percentile bootstrap interval of the mean of
// d: ProbeResamples resamples of d with replacement, from a generator
// seeded by name (the same numbers give the same interval), and the 2.5th
// and 97.5th percentiles of their means (nearest rank).
func probeInterval(d []float64, name string) (lo, hi float64) {
	if len(d) == 1 {
		return d[0], d[0]
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(1, h.Sum64()))
	means := make([]float64, ProbeResamples)
	for b := range means {
		s := 0.0
		for range d {
			s += d[rng.IntN(len(d))]
		}
		means[b] = s / float64(len(d))
	}
	slices.Sort(means)
	at := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(means)))) - 1
		return means[min(max(i, 0), len(means)-1)]
	}
	return at(0.025), at(0.975)
}
