package target

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness/seam"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/redact"
)

// Options are what Open needs besides the spec: the harness's seam
// type, so that the harness and this package share one.
type Options = seam.TargetOptions

// Kinds lists the target spec forms, for messages.
var Kinds = []string{"builtin", "builtin:rm3", "builtin:hybrid", "replay:FILE", "http://HOST/PATH", "https://HOST/PATH", "command:'CMD ARGS'", "trec:RUNFILE", "trecrag:ANSWERS.jsonl", "FILE.yaml"}

// IsFile reports whether spec names a target file: a path ending in .yaml,
// .yml or .json that is none of the prefixed forms (replay:, trec:, ...).
func IsFile(spec string) bool {
	for _, p := range []string{"builtin:", "builtin?", "replay:", "trec:", "trecrag:", "command:", "http://", "https://"} {
		if strings.HasPrefix(spec, p) {
			return false
		}
	}
	return strings.HasSuffix(spec, ".yaml") || strings.HasSuffix(spec, ".yml") || strings.HasSuffix(spec, ".json")
}

// Open returns the target a spec names. An empty spec means builtin.
func Open(spec string, o Options) (assay.Target, error) {
	switch {
	case spec == "" || spec == "builtin" || strings.HasPrefix(spec, "builtin:") || strings.HasPrefix(spec, "builtin?"):
		if spec == "" {
			spec = "builtin"
		}
		return newBuiltin(spec, o)
	case spec == "replay:" || spec == "trec:" || spec == "trecrag:":
		return nil, fmt.Errorf("target %q needs a file, as %sFILE", spec, spec)
	case strings.HasPrefix(spec, "replay:"):
		r, err := OpenReplay(strings.TrimPrefix(spec, "replay:"))
		if err != nil {
			return nil, err
		}
		return r, nil
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		return newHTTPShorthand(spec, o)
	case strings.HasPrefix(spec, "command:"):
		return newCommandShorthand(strings.TrimPrefix(spec, "command:"), o)
	case strings.HasPrefix(spec, "trec:"):
		return newTrecRun(strings.TrimPrefix(spec, "trec:"), o)
	case strings.HasPrefix(spec, "trecrag:"):
		return newTrecRAG(strings.TrimPrefix(spec, "trecrag:"), o)
	case IsFile(spec):
		return openFile(spec, o)
	}
	if hint := suggestSpec(spec); hint != "" {
		return nil, fmt.Errorf("unknown target %q (did you mean %q?)", spec, hint)
	}
	return nil, fmt.Errorf("unknown target %q (valid: %s)", spec, strings.Join(Kinds, ", "))
}

// suggestSpec returns the spec a mistyped one most likely meant (htp://x ->
// http://x, HTTP://x -> http://x, buildin -> builtin, replay -> replay:FILE,
// localhost:8080/ask -> http://localhost:8080/ask), or "".
func suggestSpec(spec string) string {
	schemes := []string{"http", "https"}
	kinds := []string{"builtin", "replay", "command", "trec", "trecrag"}
	if scheme, rest, ok := strings.Cut(spec, "://"); ok {
		if s := closest(strings.ToLower(scheme), schemes); s != "" {
			return s + "://" + rest
		}
		return ""
	}
	if prefix, rest, ok := strings.Cut(spec, ":"); ok {
		p := strings.ToLower(prefix)
		if (p == "http" || p == "https") && strings.HasPrefix(rest, "/") {
			return p + "://" + strings.TrimLeft(rest, "/")
		}
		if k := closest(p, kinds); k != "" {
			return k + ":" + rest
		}
		if isHostPort(prefix, rest) {
			return "http://" + spec
		}
		return ""
	}
	switch strings.ToLower(spec) {
	case "rm3", "bm25+rm3":
		return "builtin:rm3"
	case "bm25":
		return "builtin"
	}
	switch k := closest(strings.ToLower(spec), kinds); k {
	case "":
	case "builtin":
		return k
	case "command":
		return "command:'CMD ARGS'"
	case "trec":
		return "trec:RUNFILE"
	case "trecrag":
		return "trecrag:ANSWERS.jsonl"
	default:
		return k + ":FILE"
	}
	return ""
}

// closest is w itself when it is one of known (a kind or scheme written
// without what must follow it), else the nearest of them (diag.Nearest).
func closest(w string, known []string) string {
	if slices.Contains(known, w) {
		return w
	}
	return diag.Nearest(w, known)
}

// isHostPort reports whether host:rest looks like an address without its
// scheme (localhost:8080/ask, 127.0.0.1:3001).
func isHostPort(host, rest string) bool {
	port, _, _ := strings.Cut(rest, "/")
	if host == "" || port == "" || strings.Trim(port, "0123456789") != "" {
		return false
	}
	return host == "localhost" || strings.Trim(host, "0123456789.") == "" || strings.Contains(host, ".")
}

// Close closes t when it has a Close method.
func Close(t assay.Target) error {
	if c, ok := t.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// Secrets returns the secrets of t (what it expanded from the
// environment, and the forms derived from them), or nil when it has none.
// Everything kept or shown of a run of t must be redacted with them.
func Secrets(t assay.Target) []redact.Secret {
	if s, ok := t.(assay.SecretHolder); ok {
		return s.Secrets()
	}
	return nil
}

// Describe returns t's description, or one naming only its kind.
func Describe(t assay.Target, spec string) assay.TargetInfo {
	return assay.Describe(t, spec)
}
