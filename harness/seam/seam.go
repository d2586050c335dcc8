// Package seam declares what package harness plugs in rather than
// links: the opener of target specs (Targets) and the model judge (Judge,
// made by harness.JudgeOptions.New). Package harness/opener implements
// them with packages target and judge and registers them in its init
// (RegisterTargets, RegisterJudge), as a database/sql driver registers
// itself: a program that imports opener (the assay command does, and a
// blank import is enough) runs a plan that sets neither; a plan may still
// set its own. A program that only runs a Go value (a test that imports
// package assaytest) imports no opener and links none of what it brings:
// no HTTP client, no templates, no search engine. The package holds
// declarations and the registry only, as database/sql/driver and
// database/sql do between them.
package seam

import (
	"context"
	"sync"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/redact"
)

// Targets opens the targets a plan names by SPEC (harness.Plan.Target:
// builtin, http://..., replay:FILE, a target file, ...). Package opener's
// Targets, through package target, is the one the assay command uses
// (registered by importing package opener). A
// plan whose System is set needs none.
type Targets interface {
	// Open opens the target spec names ("" is builtin).
	Open(spec string, o TargetOptions) (assay.Target, error)
	// Matrix is the variant matrix the target file spec declares; zero
	// when spec is no target file or the file declares none.
	Matrix(spec string) (Matrix, error)
	// Prices is the price table the target file spec adds to the
	// suite's; nil when spec is no target file or the file has none.
	Prices(spec string) (assay.PriceTable, error)
	// Cache wraps t, whose description is info, so that it answers from
	// c (harness.Plan.Cache); nil when a target of info's kind is not answered
	// from the cache. c's redactor holds t's secrets. The target returned
	// may have a Warnings() []string method: what the cache could not do.
	Cache(t assay.Target, info assay.TargetInfo, c *cache.Cache, o CacheOptions) assay.Target
}

// TargetOptions are what Targets.Open needs besides the spec (package
// target's Options is this type).
type TargetOptions struct {
	// Suite is the suite being run (its corpus feeds builtin; setup for_each
	// uses it too).
	Suite *assay.Suite
	// Getenv expands ${VAR} in target files (harness.Plan.Getenv); nil
	// means no environment.
	Getenv func(string) string
	// AllowLiteralSecrets permits literal credentials (credential-named
	// fields, URL user info, credential query parameters and command
	// arguments); each one let through is then a secret.
	AllowLiteralSecrets bool
	// Keep skips cleanup steps.
	Keep bool
	// Variant is the variant of a matrix the target is opened for (a
	// target file's variants:), visible to templates as .Variant.KEY; nil:
	// none.
	Variant map[string]string
	// CacheDir is the content-addressed cache (package cache; the
	// store's cache/ directory) where builtin:hybrid keeps document
	// vectors; empty: none (every run embeds the corpus).
	CacheDir string
}

// CacheOptions are the inputs of a cached target's keys besides the case.
type CacheOptions struct {
	// K is the run's default k; Variant the matrix variant of the run.
	K       int
	Variant map[string]string
}

// Matrix is the variant matrix a target file declares: one map of
// key to value per combination (the first key varies slowest), and the
// orderings its variants must hold.
type Matrix struct {
	Keys      []string
	Variants  []map[string]string
	Orderings []assay.Gate
}

// JudgeOptions are what harness.JudgeOptions.New needs besides the
// definition.
type JudgeOptions struct {
	// Getenv expands the definition's api_key (harness.Plan.Getenv); Secrets gets
	// the expanded key (harness.Plan.Secrets).
	Getenv  func(string) string
	Secrets *redact.Redactor
	// Cache, when set, answers a call asked before and keeps each new
	// answer (<store>/cache).
	Cache *cache.Cache
	// Repeats asks each case that many times (0: once); Probes are the
	// bias probes asked besides the definition's own.
	Repeats int
	Probes  []string
	// AllowLiteralSecrets is the plan's.
	AllowLiteralSecrets bool
	// Corpus is the suite's documents (the text of the passages an
	// observation names without it).
	Corpus []assay.Document
}

// A Judge grades observations with a model (package judge's Judge).
// Each run has its own (its own budget).
type Judge interface {
	// Grade judges one observation of c into r (defaults: the suite's
	// judge bounds).
	Grade(ctx context.Context, c assay.Case, obs *assay.Observation, defaults map[string]float64, r *assay.CaseResult)
	// AssignNuggets lets the judge assign the nuggets no rule matched;
	// true when it assigned any.
	AssignNuggets(ctx context.Context, c assay.Case, obs *assay.Observation, r *assay.CaseResult) bool
	// Rubric is the judge's criteria; MetricNames the metrics it adds to
	// the run's.
	Rubric() []assay.JudgeCriterion
	MetricNames() []string
	// NewTally counts the run's judged results (trials: the run makes
	// more than one per case).
	NewTally(trials bool) JudgeTally
	// Warnings are the judge's, worded as remedies.
	Warnings() []string
}

// A JudgeTally counts a run's judged results into its Summary.Judge.
type JudgeTally interface {
	Add(r *assay.CaseResult)
	Summary() *assay.JudgeSummary
}

// NewJudge makes the judge of a definition (harness.JudgeOptions.New).
type NewJudge = func(cfg assay.JudgeConfig, o JudgeOptions) (Judge, error)

// registered holds what RegisterTargets and RegisterJudge registered.
var registered struct {
	sync.Mutex
	targets Targets
	judge   NewJudge
}

// RegisterTargets makes t the Targets of every plan that sets none, as
// database/sql's drivers register themselves: package opener registers
// its own in its init, so a program that imports it (blank or not) opens
// target specs. A later call replaces an earlier one; a nil t panics.
func RegisterTargets(t Targets) {
	if t == nil {
		panic("seam: RegisterTargets with nil Targets")
	}
	registered.Lock()
	defer registered.Unlock()
	registered.targets = t
}

// RegisterJudge makes newJudge the maker of the judge of every plan that
// sets none (harness.JudgeOptions.New); package opener registers its
// own in its init. A later call replaces an earlier one; a nil newJudge
// panics.
func RegisterJudge(newJudge NewJudge) {
	if newJudge == nil {
		panic("seam: RegisterJudge with nil func")
	}
	registered.Lock()
	defer registered.Unlock()
	registered.judge = newJudge
}

// RegisteredTargets is the Targets last registered; nil when none is.
func RegisteredTargets() Targets {
	registered.Lock()
	defer registered.Unlock()
	return registered.targets
}

// RegisteredJudge is the judge maker last registered; nil when none is.
func RegisteredJudge() NewJudge {
	registered.Lock()
	defer registered.Unlock()
	return registered.judge
}
