package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/propose"
	"github.com/assay-eval/assay/redact"
	"github.com/assay-eval/assay/report"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
	"github.com/assay-eval/assay/target"
	"github.com/assay-eval/assay/traces"
)

// TracesImportPlan is `assay traces import FILE... -o replay.jsonl`.
type TracesImportPlan struct {
	Files []string
	// Out is the replay file written ("-": Stdout).
	Out string
	// JSON writes the assay.traces-import/v1 report to that file ("-":
	// Stdout).
	JSON string
	// Stdout gets the replay file or the report when they are "-"; Stderr
	// the text report.
	Stdout, Stderr io.Writer
	Secrets        *redact.Redactor
	// Conversations groups the observations of one session into the turns
	// of one conversation case (traces.GroupConversations).
	Conversations bool
}

// TracesImportSchema names the report document of assay traces import.
const TracesImportSchema = "assay.traces-import/v1"

// TracesImport reads OTLP/JSON exports (package traces) and writes their
// observations as a replay file, redacted, and a report of what was found
// and skipped.
func TracesImport(p TracesImportPlan) error {
	if p.Out == "" {
		return usageError("assay traces import FILE... -o replay.jsonl", "traces import needs -o FILE (the replay file to write, - for stdout)")
	}
	if err := DistinctOutputs([]Output{{"-o", p.Out}, {"--json", p.JSON}}); err != nil {
		return err
	}
	for _, f := range p.Files {
		if p.Out != "-" && atomicfile.SameFile(f, p.Out) {
			return usageError("", "-o %s: is one of the trace exports read", p.Out)
		}
	}
	res, err := traces.Import(p.Files)
	if err != nil {
		return inputError(err)
	}
	if p.Conversations {
		traces.GroupConversations(res)
	}
	secrets := redact.New()
	if p.Secrets != nil {
		secrets.Add(p.Secrets.Secrets()...)
		p.Secrets.Add(res.Secrets...)
	}
	secrets.Add(res.Secrets...)
	err = WriteTo(p.Stdout, secrets, p.Out, func(w io.Writer) error {
		for _, o := range res.Observations {
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return inputError(fmt.Errorf("-o %s: %w", p.Out, err))
	}
	if p.JSON != "" {
		doc := struct {
			Schema string `json:"schema"`
			Out    string `json:"out"`
			*traces.Result
		}{TracesImportSchema, p.Out, res}
		if err := WriteJSON(p.Stdout, secrets, p.JSON, doc); err != nil {
			return inputError(fmt.Errorf("--json %s: %w", p.JSON, err))
		}
	}
	writeImportText(p.Stderr, res, p.Out)
	return nil
}

func writeImportText(w io.Writer, res *traces.Result, out string) {
	spans := 0
	for _, f := range res.Files {
		spans += f.Spans
	}
	fmt.Fprintf(w, "assay: read %d span(s) from %d file(s): %d observation(s), %d skipped\n", spans, len(res.Files), len(res.Found), len(res.Skipped))
	for _, f := range res.Found {
		var facts []string
		facts = append(facts, fmt.Sprintf("%d retrieved", f.Retrieved))
		if f.Answer {
			facts = append(facts, "answer")
		}
		if f.Tools > 0 {
			facts = append(facts, fmt.Sprintf("%d tool call(s)", f.Tools))
		}
		if f.Feedback != "" {
			facts = append(facts, "feedback "+f.Feedback)
		}
		fmt.Fprintf(w, "  found    %s  %s  %s\n", report.Escape(f.Case), report.Escape(f.Service), strings.Join(facts, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "  skipped  %s  %s  %s: %s\n", report.Escape(s.File), report.Escape(s.TraceID), report.Escape(s.Name), report.Escape(s.Reason))
	}
	if out != "-" {
		fmt.Fprintf(w, "assay: wrote %s\n", out)
	}
}

// ProposePlan is `assay propose REPLAY... -o candidates.jsonl`.
type ProposePlan struct {
	Files []string
	// Out is the candidate suite written (JSONL; "-": Stdout).
	Out string
	// Name is the candidate suite's name (default "candidates").
	Name string
	// Suite is the golden set whose cases a candidate must not repeat.
	Suite string
	// Run is a run of the imported observations (a run.json or its
	// directory).
	Run string
	// JSON writes the assay.propose/v1 counts to that file.
	JSON    string
	Options propose.Options
	Stdout  io.Writer
	Stderr  io.Writer
	Secrets *redact.Redactor
}

// ProposeSchema names the report document of assay propose.
const ProposeSchema = "assay.propose/v1"

// Propose reads imported observations and writes the candidate cases
// package propose picks, as a JSONL suite with review: pending.
func Propose(p ProposePlan) error {
	if p.Out == "" {
		return usageError("assay propose replay.jsonl -o candidates.jsonl", "propose needs -o FILE (the candidate suite to write, - for stdout)")
	}
	if err := DistinctOutputs([]Output{{"-o", p.Out}, {"--json", p.JSON}}); err != nil {
		return err
	}
	if err := p.Options.PII.Check(); err != nil {
		return usageError("--keep-pii takes "+strings.Join(redact.PIIKinds, ", "), "--keep-pii: %v", err)
	}
	for _, in := range append(append([]string{}, p.Files...), p.Suite) {
		if in != "" && p.Out != "-" && atomicfile.SameFile(in, p.Out) {
			return usageError("", "-o %s: is one of the files read", p.Out)
		}
	}
	var obs []assay.Observation
	for _, f := range p.Files {
		o, err := target.ReadTrace(f)
		if err != nil {
			return inputError(err)
		}
		obs = append(obs, o...)
	}
	opt := p.Options
	if p.Suite != "" {
		s, err := suite.Load(p.Suite)
		if err != nil {
			return inputError(err)
		}
		opt.Existing = s.Cases
	}
	if p.Run != "" {
		run, err := store.LoadRun(p.Run)
		if err != nil {
			return inputError(err)
		}
		opt.Run = run
	}
	opt.Secrets = p.Secrets
	res, err := propose.Propose(obs, opt)
	if err != nil {
		return usageError("", "%v", err)
	}
	name := p.Name
	if name == "" {
		name = "candidates"
	}
	s := &assay.Suite{Name: name, Description: "cases proposed from production traces; review each, then remove its review field", Cases: res.Cases}
	err = WriteTo(p.Stdout, p.Secrets, p.Out, func(w io.Writer) error { return suite.WriteNativeJSONL(w, s, suite.ExportOptions{}) })
	if err != nil {
		return inputError(fmt.Errorf("-o %s: %w", p.Out, err))
	}
	if p.JSON != "" {
		doc := struct {
			Schema string `json:"schema"`
			Out    string `json:"out"`
			*propose.Result
		}{ProposeSchema, p.Out, res}
		if err := WriteJSON(p.Stdout, p.Secrets, p.JSON, doc); err != nil {
			return inputError(fmt.Errorf("--json %s: %w", p.JSON, err))
		}
	}
	var by []string
	for _, r := range propose.Reasons {
		if n := res.Picked[r]; n > 0 {
			by = append(by, fmt.Sprintf("%s %d", r, n))
		}
	}
	picked := "none"
	if len(by) > 0 {
		picked = strings.Join(by, ", ")
	}
	fmt.Fprintf(p.Stderr, "assay: %d observation(s); picked: %s\n", res.Observations, picked)
	fmt.Fprintf(p.Stderr, "assay: %d candidate(s); dropped %d duplicate(s), %d already in the suite, %d without a query\n", res.Candidates, res.Duplicates, res.Existing, res.NoQuery)
	if p.Out != "-" {
		fmt.Fprintf(p.Stderr, "assay: wrote %s (review: pending; assay lint lists the cases to review)\n", p.Out)
	}
	return nil
}
