package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/cmd/assay/internal/cli"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// The bodies of the CLI's commands (ListRuns, RunGate, Compare, Import,
// Lint, PruneStore, ServeBuiltin, ...) as a library caller sees them: the
// texts they write and the kinds of their errors.

func kindOf(t *testing.T, err error) harness.Kind {
	t.Helper()
	var he *harness.Error
	if !errors.As(err, &he) {
		t.Fatalf("error %v is not a harness.Error", err)
	}
	return he.Kind
}

func TestStoreRootFlagThenEnvThenDefault(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "ASSAY_STORE" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		flag, env, want string
		explicit        bool
	}{
		{"flagdir", "envdir", "flagdir", true},
		{"", "envdir", "envdir", true},
		{"", "", cli.DefaultStoreDir, false},
	} {
		dir, explicit := cli.StoreRoot(tc.flag, env(tc.env))
		if dir != tc.want || explicit != tc.explicit {
			t.Errorf("StoreRoot(%q) with $ASSAY_STORE=%q = %q, %v; want %q, %v", tc.flag, tc.env, dir, explicit, tc.want, tc.explicit)
		}
	}
}

func TestListRunsOfAMissingStore(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "none")
	var out bytes.Buffer
	if err := cli.ListRuns(ctx, cli.ListPlan{StoreDir: missing, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "no runs yet (the store "+missing+" does not exist)") {
		t.Errorf("default store missing: %q", out.String())
	}
	out.Reset()
	if err := cli.ListRuns(ctx, cli.ListPlan{StoreDir: missing, JSON: "-", Stdout: &out}); err != nil || out.String() != "[]\n" {
		t.Errorf("--json - of a missing store: %q, %v; want \"[]\\n\"", out.String(), err)
	}
	err := cli.ListRuns(ctx, cli.ListPlan{StoreDir: missing, Explicit: true, Stdout: &out})
	if err == nil || kindOf(t, err) != harness.Input || !strings.Contains(err.Error(), "no run store at") {
		t.Errorf("chosen store missing: %v, want an Input error", err)
	}
	for _, p := range []cli.ListPlan{{Status: "done"}, {Limit: -1}} {
		p.StoreDir, p.Stdout = missing, &out
		if err := cli.ListRuns(ctx, p); err == nil || kindOf(t, err) != harness.Usage {
			t.Errorf("ListRuns(%+v) = %v, want a Usage error", p, err)
		}
	}
}

func TestListRunsSaysWhatTheLimitLeftOut(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	t0 := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	for i := range 3 {
		saveRun(t, st, "kb", t0.Add(time.Duration(i)*time.Hour), true, nil)
	}
	var out, errOut bytes.Buffer
	p := cli.ListPlan{StoreDir: dir, Limit: 2, Stdout: &out, Stderr: &errOut}
	if err := cli.ListRuns(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") || lines[3] != "(2 of 3 runs; --limit 0 lists all)" {
		t.Errorf("listing:\n%s", out.String())
	}
	out.Reset()
	p.Suite = "other"
	if err := cli.ListRuns(context.Background(), p); err != nil || !strings.HasPrefix(out.String(), "no run matches (the store") {
		t.Errorf("no match: %q, %v", out.String(), err)
	}
}

func TestWriteRunOfAStoppedRun(t *testing.T) {
	run := &assay.Run{RunID: "0193a1b2-7c3d-7e4f-8a5b-0123456789ab", Status: assay.StatusIncomplete,
		Cases: []assay.CaseResult{{ID: "q1", Checks: []assay.Check{{Kind: "answer_includes", Pass: true}}}}}
	var out bytes.Buffer
	if err := cli.WriteRun(&out, run, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "the run stopped before it finished; the summary covers the 1 case trials it recorded") {
		t.Errorf("no note on the stopped run:\n%s", out.String())
	}
}

// gatedRun stores one complete run (pass rate 1) and returns the store.
func gatedRun(t *testing.T) (dir, id string) {
	dir = t.TempDir()
	id = saveRun(t, openStore(t, dir), "kb", time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC), true, nil)
	return dir, id
}

func TestRunGateText(t *testing.T) {
	dir, id := gatedRun(t)
	var out, errOut bytes.Buffer
	p := cli.GatePlan{Refs: []string{id}, Gates: []string{"pass_rate >= 0.8"}, StoreDir: dir, Stdout: &out, Stderr: &errOut}
	if err := cli.RunGate(context.Background(), p, time.Now()); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errOut.String())
	}
	want := "run " + id + "  suite kb  complete\n"
	if !strings.HasPrefix(out.String(), want) || !strings.HasSuffix(out.String(), "gates: 1 held, 0 failed\n") {
		t.Errorf("text:\n%s\nwant it to start %q and end with the count", out.String(), want)
	}
	out.Reset()
	p.Gates = []string{"pass_rate >= 1.5"}
	if err := cli.RunGate(context.Background(), p, time.Now()); err == nil || kindOf(t, err) != harness.GateFailed {
		t.Errorf("a failed gate: %v, want GateFailed", err)
	}
	if !strings.HasSuffix(out.String(), "gates: 0 held, 1 failed\n") {
		t.Errorf("text of a failed gate:\n%s", out.String())
	}
	// With an output on stdout, the text goes to Stderr.
	out.Reset()
	errOut.Reset()
	p.Gates, p.JSON = []string{"pass_rate >= 0.8"}, "-"
	if err := cli.RunGate(context.Background(), p, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(errOut.String(), want) || !strings.Contains(out.String(), `"schema"`) || strings.Contains(out.String(), "gates:") {
		t.Errorf("--json -: stdout\n%s\nstderr\n%s", out.String(), errOut.String())
	}
}

func TestRunGateRatchetSetsFloors(t *testing.T) {
	dir, id := gatedRun(t)
	floors := filepath.Join(t.TempDir(), "assay.floors.json")
	var out bytes.Buffer
	p := cli.GatePlan{Refs: []string{id}, Floors: floors, Ratchet: true, StoreDir: dir, Stdout: &out, Stderr: &out}
	if err := cli.RunGate(context.Background(), p, time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "set floor pass_rate") || !strings.HasSuffix(out.String(), "wrote "+floors+"\n") {
		t.Errorf("ratchet text:\n%s", out.String())
	}
	if _, err := os.Stat(floors); err != nil {
		t.Error(err)
	}
}

func TestMatrixCheckWriteText(t *testing.T) {
	m := &cli.MatrixCheck{
		Runs:      []*assay.Run{{RunID: "r1", Suite: assay.SuiteRef{Name: "kb"}, Status: assay.StatusComplete, Variant: map[string]string{"mode": "fast"}}},
		Verdicts:  []gate.Verdict{{Warnings: []string{"need more cases"}}},
		Orderings: &gate.Verdict{},
	}
	var out, warn bytes.Buffer
	m.WriteText(&out, &warn)
	if want := "variant fast  run r1  suite kb  complete\norderings\n"; out.String() != want {
		t.Errorf("text %q, want %q", out.String(), want)
	}
	if want := "assay: warning: need more cases\n"; warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
}

func TestCompareText(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	t0 := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	a, b := saveRun(t, st, "kb", t0, true, nil), saveRun(t, st, "kb", t0.Add(time.Hour), true, nil)
	var out, errOut bytes.Buffer
	p := cli.ComparePlan{Base: a, Cand: b, JSON: "-", StoreDir: dir, Stdout: &out, Stderr: &errOut}
	if err := cli.Compare(context.Background(), p); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"assay.compare/v1"`) || errOut.Len() == 0 {
		t.Errorf("--json -: stdout %q, stderr %q", out.String(), errOut.String())
	}
	same := filepath.Join(t.TempDir(), "same.txt")
	p.JSON, p.Markdown = same, same
	if err := cli.Compare(context.Background(), p); err == nil || kindOf(t, err) != harness.Usage {
		t.Errorf("two outputs to one file: %v, want a Usage error", err)
	}
}

func TestImportChecksFormatAndOutput(t *testing.T) {
	var out bytes.Buffer
	err := cli.Import(cli.ImportPlan{Format: "nope", Src: "x", Stdout: &out, Stderr: &out})
	if err == nil || kindOf(t, err) != harness.Usage || !strings.Contains(err.Error(), `unknown format "nope"`) {
		t.Errorf("unknown format: %v", err)
	}
	err = cli.Import(cli.ImportPlan{Format: "kebab", Src: "x.yaml", Out: "suite.yaml", JSONL: true, Stdout: &out, Stderr: &out})
	var he *harness.Error
	if !errors.As(err, &he) || he.Kind != harness.Usage || he.Hint != "assay import kebab x.yaml -o suite.jsonl" {
		t.Errorf("--jsonl with a .yaml output: %#v", err)
	}
}

func TestLintFindsAnErrorAndSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "suite.yaml")
	body := "assay: 1\nname: dup\ncases:\n  - {id: a, query: q, expect: {answer_includes: [x]}}\n  - {id: a, query: r, expect: {answer_includes: [y]}}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := cli.Lint(cli.LintPlan{SuitePath: path, Format: "text", Stdout: &out, Stderr: &errOut})
	if err == nil || kindOf(t, err) != harness.GateFailed {
		t.Fatalf("a duplicate id: %v, want GateFailed", err)
	}
	if !strings.Contains(out.String(), "error") || !strings.HasPrefix(errOut.String(), "assay: ") {
		t.Errorf("stdout %q stderr %q", out.String(), errOut.String())
	}
	if err := cli.Lint(cli.LintPlan{SuitePath: path, Format: "xml", Stdout: &out, Stderr: &errOut}); err == nil || kindOf(t, err) != harness.Usage {
		t.Errorf("--format xml: %v, want a Usage error", err)
	}
}

func TestPruneStoreChecksAgeAndStore(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	if err := cli.PruneStore(ctx, &out, t.TempDir(), store.OpenOptions{}, "soon", cli.PrunePlan{}); err == nil || kindOf(t, err) != harness.Usage {
		t.Errorf("--older-than soon: %v, want a Usage error", err)
	}
	if err := cli.PruneStore(ctx, &out, filepath.Join(t.TempDir(), "none"), store.OpenOptions{}, "", cli.PrunePlan{Keep: 1}); err == nil || kindOf(t, err) != harness.Input {
		t.Errorf("missing store: %v, want an Input error", err)
	}
	dir := t.TempDir()
	st := openStore(t, dir)
	t0 := time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)
	old := saveRun(t, st, "kb", t0, true, nil)
	saveRun(t, st, "kb", t0.Add(time.Hour), true, nil)
	st.Close()
	p := cli.PrunePlan{DryRun: true, Now: t0.Add(30 * 24 * time.Hour)}
	if err := cli.PruneStore(ctx, &out, dir, store.OpenOptions{}, "2d", p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "would delete "+old) || !strings.HasSuffix(out.String(), "would delete 1 run(s), kept 1\n") {
		t.Errorf("dry run:\n%s", out.String())
	}
}

func TestServeBuiltinRefusesBeforeListening(t *testing.T) {
	noCorpus := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(noCorpus, []byte("assay: 1\nname: nc\ncases:\n  - {id: a, query: q, expect: {answer_includes: [x]}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withCorpus := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(withCorpus, []byte("assay: 1\nname: c\ncorpus: [{id: d1, text: hello}]\ncases:\n  - {id: a, query: hello, relevant: [d1]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]cli.ServePlan{
		"http target": {SuitePath: withCorpus, Target: "http://127.0.0.1:1/", Addr: "127.0.0.1:0"},
		"bad addr":    {SuitePath: withCorpus, Target: "builtin", Addr: "nowhere"},
		"no corpus":   {SuitePath: noCorpus, Target: "builtin", Addr: "127.0.0.1:0"},
	} {
		var log bytes.Buffer
		p.Log = &log
		if err := cli.ServeBuiltin(context.Background(), p); err == nil || kindOf(t, err) != harness.Usage || log.Len() != 0 {
			t.Errorf("%s: %v (log %q), want a Usage error before serving", name, err, log.String())
		}
	}
}

func TestMigratedAndCopiedTexts(t *testing.T) {
	var out bytes.Buffer
	cli.Migrated{Store: "s", Version: 3}.WriteText(&out)
	cli.Migrated{Store: "s", Applied: []string{"0002_x"}, Version: 2}.WriteText(&out)
	cli.WriteCopied(&out, "a", "postgres://u:secret@db/x", store.CopyResult{Copied: []string{"r1"}})
	want := "store s: schema up to date (version 3)\nstore s: applied 0002_x\ncopied 1 runs from a to postgres://[redacted]@db/x (0 already there)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func openStore(t testing.TB, dir string) store.Store {
	t.Helper()
	st, err := cli.OpenStore(dir, store.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
