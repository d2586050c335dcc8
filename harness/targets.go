package harness

import (
	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/cache"
)

// Targets opens the targets a plan names by SPEC (Plan.Target: builtin,
// http://..., replay:FILE, a target file, ...). Package opener's Targets,
// through package target, is the one the assay command uses. A plan
// whose System is set needs none: the harness reaches the kinds of target
// only through this interface, so that a program that runs a Go value
// (package assaytest) links none of them (no HTTP client, no templates,
// no search engine).
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
	// c (Plan.Cache); nil when a target of info's kind is not answered
	// from the cache. c's redactor holds t's secrets. The target returned
	// may have a Warnings() []string method: what the cache could not do.
	Cache(t assay.Target, info assay.TargetInfo, c *cache.Cache, o CacheOptions) assay.Target
}

// TargetOptions are what Targets.Open needs besides the spec.
type TargetOptions struct {
	// Suite is the suite being run (its corpus feeds builtin).
	Suite *assay.Suite
	// Getenv expands ${VAR} in target files (Plan.Getenv).
	Getenv func(string) string
	// AllowLiteralSecrets and Keep are the plan's.
	AllowLiteralSecrets bool
	Keep                bool
	// Variant is the variant of a matrix the target is opened for (nil:
	// none).
	Variant map[string]string
	// CacheDir is the store's cache directory ("": none).
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

