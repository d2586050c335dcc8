package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// BadgeSchemaVersion is the shields.io endpoint schema version.
const BadgeSchemaVersion = 1

// BadgeJSON is a shields.io endpoint badge
// (https://shields.io/badges/endpoint-badge): serve the file and point
// https://img.shields.io/endpoint?url=... at it.
type BadgeJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
	IsError       bool   `json:"isError,omitempty"`
}

// Badge colours by gate status.
const (
	BadgePass       = "brightgreen" // every gate held
	BadgeFail       = "red"         // a gate failed
	BadgeNoGates    = "blue"        // no gate was checked
	BadgeIncomplete = "lightgrey"   // the run did not complete
)

// Badge writes a shields.io endpoint JSON for the run: the label is the
// suite name, the message the pass rate and the p95 latency
// ("80% · p95 2.3s"; the headline metric when no case was graded), the
// colour the gate status: brightgreen when every gate of verdict held, red
// when one failed, blue with no gates, lightgrey (isError) for an
// incomplete run. With an empty verdict the gates the run recorded decide.
func Badge(w io.Writer, run *assay.Run, verdict gate.Verdict) error {
	b := BadgeFor(run, verdict)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// BadgeFor is the badge Badge writes.
func BadgeFor(run *assay.Run, verdict gate.Verdict) BadgeJSON {
	b := BadgeJSON{SchemaVersion: BadgeSchemaVersion, Label: nonEmpty(run.Suite.Name, "assay")}
	results := verdict.Results
	pass := verdict.Pass
	if len(results) == 0 && len(run.Gates) > 0 {
		results = run.Gates
		pass = true
		for _, g := range results {
			pass = pass && g.Pass
		}
	}
	var parts []string
	if run.Status == assay.StatusIncomplete {
		parts = append(parts, "incomplete")
	}
	s := run.Summary
	switch {
	case s.PassRate != nil:
		parts = append(parts, badgePct(*s.PassRate))
	default:
		if h := headlineMetric(run); h != "" {
			parts = append(parts, fmt.Sprintf("%s %.2f", h, s.Metrics[h].Mean))
		}
	}
	if s.LatencyMs.N > 0 {
		parts = append(parts, "p95 "+badgeMs(s.LatencyMs.P95))
	}
	if len(parts) == 0 {
		parts = append(parts, "no results")
	}
	b.Message = strings.Join(parts, " · ")
	switch {
	case run.Status == assay.StatusIncomplete:
		b.Color, b.IsError = BadgeIncomplete, true
	case len(results) == 0:
		b.Color = BadgeNoGates
	case pass:
		b.Color = BadgePass
	default:
		b.Color = BadgeFail
	}
	return b
}

// badgePct is a rate as a whole percentage, one decimal when rounding
// would claim 100% or 0% falsely.
func badgePct(v float64) string {
	p := v * 100
	s := fmt.Sprintf("%.0f%%", p)
	if (s == "100%" && v < 1) || (s == "0%" && v > 0) {
		s = fmt.Sprintf("%.1f%%", p)
	}
	return s
}

// badgeMs is a latency: "850ms" under a second, "2.3s" above, and "0.4ms"
// under a millisecond (never a false "0ms").
func badgeMs(v float64) string {
	if v > 0 && v < 0.95 {
		return fmt.Sprintf("%.1fms", max(v, 0.1))
	}
	if v < 1000 {
		return fmt.Sprintf("%.0fms", v)
	}
	return fmt.Sprintf("%.1fs", v/1000)
}
