package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// MatrixSchema names the JSON document of a variant matrix.
const MatrixSchema = "assay.matrix/v1"

// MatrixText writes one table across the runs of a variant matrix (a row
// per variant: status, cases, pass rate, every metric, p95 latency, gates),
// the ordering checks, then each variant's failing cases.
func MatrixText(w io.Writer, runs []*assay.Run, orderings gate.Verdict, o TextOptions) error {
	p := &printer{w: w}
	if len(runs) == 0 {
		p.f("no variant ran\n")
		return p.err
	}
	first := runs[0]
	p.f("assay run matrix · suite %s · %s · group %s\n\n", first.Suite.Name, count(len(runs), "variant", "variants"), ShortID(first.Group))
	metrics := MetricOrder(first)
	names := make([]string, len(runs))
	width := len("variant")
	for i, r := range runs {
		names[i] = gate.VariantName(r.Variant)
		width = max(width, displayWidth(names[i]))
	}
	p.f("%s  %-10s  %5s  %9s", padRight("variant", width), "status", "cases", "pass rate")
	for _, m := range metrics {
		p.f("  %*s", max(8, len(m)), m)
	}
	p.f("  %8s  %s\n", "p95 ms", "gates")
	for i, r := range runs {
		s := r.Summary
		p.f("%s  %-10s  %5d  %9s", padRight(names[i], width), r.Status, s.Cases, Percent(s.PassRate))
		for _, m := range metrics {
			if v, ok := s.Metrics[m]; ok {
				p.f("  %*.4f", max(8, len(m)), v.Mean)
			} else {
				p.f("  %*s", max(8, len(m)), "-")
			}
		}
		lat := "-"
		if s.LatencyMs.N > 0 {
			lat = Millis(s.LatencyMs.P95)
		}
		passed := 0
		for _, g := range r.Gates {
			if g.Pass {
				passed++
			}
		}
		gates := "-"
		if len(r.Gates) > 0 {
			mark := "✓"
			if passed < len(r.Gates) {
				mark = "✗"
			}
			gates = mark + " " + itoa(passed) + "/" + itoa(len(r.Gates))
		}
		p.f("  %8s  %s\n", lat, gates)
	}
	if len(orderings.Results) > 0 {
		p.nl()
		p.f("orderings\n")
		for _, g := range orderings.Results {
			mark := "✓"
			if !g.Pass {
				mark = "✗"
			}
			p.f("  %s %s", mark, g.Expr)
			if g.Detail != "" {
				p.f("  %s", g.Detail)
			}
			p.nl()
		}
	}
	for i, r := range runs {
		var failedGates []string
		for _, g := range r.Gates {
			if !g.Pass {
				val := "n/a"
				if g.Value != nil {
					val, _ = gate.FormatPair(*g.Value, g.Bound)
				}
				failedGates = append(failedGates, g.Expr+" (observed "+val+")")
			}
		}
		if len(failedGates) > 0 {
			p.nl()
			p.f("%s: ✗ %s\n", names[i], strings.Join(failedGates, "; ✗ "))
		}
	}
	return p.err
}

// MatrixJSON writes the assay.matrix/v1 document: the group id, one
// assay.run/v1 document per variant, and the ordering results. Each run's
// cases are read through its EachCase and written as they come.
func MatrixJSON(w io.Writer, group string, runs []*assay.Run, orderings gate.Verdict) error {
	res := orderings.Results
	if res == nil {
		res = []assay.GateResult{}
	}
	var hb bytes.Buffer
	enc := json.NewEncoder(&hb)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Schema    string             `json:"schema"`
		Group     string             `json:"group"`
		Pass      bool               `json:"pass"`
		Runs      []*assay.Run       `json:"runs"`
		Orderings []assay.GateResult `json:"orderings"`
	}{MatrixSchema, group, orderings.Pass, []*assay.Run{}, res}); err != nil {
		return err
	}
	head := hb.Bytes()
	const empty = "\n  \"runs\": []"
	i := bytes.Index(head, []byte(empty))
	if i < 0 {
		return fmt.Errorf("encode matrix %s: runs field not found", group)
	}
	if len(runs) == 0 {
		_, err := w.Write(head)
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(head[:i])
	bw.WriteString("\n  \"runs\": [")
	for j, r := range runs {
		if j > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := writeRunDocument(bw, r, "    "); err != nil {
			return err
		}
	}
	bw.WriteString("\n  ]")
	bw.Write(head[i+len(empty):])
	return bw.Flush()
}

func itoa(n int) string { return strconv.Itoa(n) }
