package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assay-eval/assay/examples/http-knowlex/kb"
	"github.com/assay-eval/assay/internal/largetest"
	"github.com/assay-eval/assay/internal/shareddata"
	"github.com/assay-eval/assay/llm/llmtest"
	"github.com/assay-eval/assay/store/postgres/pgtest"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite expected sections of testscripts and golden files")

func TestMain(m *testing.M) {
	if os.Getenv(workerEnvVar) == "1" {
		os.Exit(serveWorker())
	}
	testscript.Main(withWorkers{m}, map[string]func(){
		// knowlex is the example Knowlex-style service of examples/http-knowlex.
		"knowlex": func() {
			os.Exit(kb.Main(os.Args[1:], os.Stdout, os.Stderr, os.Getenv, os.Environ()))
		},
		// judgestub is a stand-in OpenAI-compatible judge (judgestub_test.go).
		"judgestub": stubMain("judgestub"),
		// convstub is a stand-in chat service that checks the history of
		// a conversation's turns (convstub_test.go).
		"convstub": stubMain("convstub"),
		// usagestub is a stand-in system that reports usage (usagestub_test.go).
		"usagestub": stubMain("usagestub"),
		// llmtest is the OpenAI-compatible stand-in (llm/llmtest.Main).
		"llmtest": func() { os.Exit(llmtest.Main(os.Args[1:], os.Stdout, os.Stderr, os.Environ())) },
		// assay is the real binary's main, signals included; it also
		// writes its own peak resident set where runMeasured asks.
		"assay": func() {
			code := mainCode()
			writePeak(os.Getenv(peakFileEnv))
			os.Exit(code)
		},
	})
}

// repoRoot is the module root (two levels above this package).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestScripts runs testdata/script/*.txtar. $ROOT is the repository root and
// $SHARED the shared data directory beside it. A script that reads $SHARED
// starts with `[!shared] skip 'REASON'`: the condition is false when
// ../shared is missing (the script is skipped), and an error under CI (the
// script fails), as internal/shareddata decides for Go tests. The part of a
// script that generates 100,000 cases or hundreds of megabytes runs under
// the [large] condition, true when ASSAY_TEST_LARGE=1 (internal/largetest),
// and a smaller form of the same check under [!large].
//
// The scripts run as inProcessScript rewrites them: most `exec assay`
// lines run in a worker process that is started once (inprocess_test.go),
// not as a process each.
func TestScripts(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	shared, sharedErr := shareddata.Find(root)
	dir := filepath.Join(root, "testdata", "script")
	var shimEnv []string
	if !*update && os.Getenv(execEnvVar) != "1" {
		shimEnv = startShim(t)
		var err error
		if dir, err = inProcessScripts(dir, t.TempDir(), shimEnv != nil); err != nil {
			t.Fatal(err)
		}
		t.Logf("scripts rewritten to run assay in workers are in %s (%s=1 runs them as written)", dir, execEnvVar)
	}
	testscript.Run(t, testscript.Params{
		Dir:           dir,
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("ROOT", root)
			e.Setenv("SHARED", shared)
			e.Setenv("NO_COLOR", "1")
			for _, kv := range shimEnv {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			names := make([]string, 0, len(e.Vars))
			for _, kv := range e.Vars {
				if k, _, ok := strings.Cut(kv, "="); ok {
					names = append(names, k)
				}
			}
			e.Values[envNamesKey{}] = names
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "postgres" {
				// [!postgres] skip 'REASON': a PostgreSQL server is at
				// $ASSAY_TEST_POSTGRES; unset is a skip, and under CI an error
				// (the rule of package pgtest).
				if os.Getenv(pgtest.EnvVar) == "" && shareddata.Required() {
					return false, fmt.Errorf("%s is not set: CI must start PostgreSQL and set it (see .ci/run)", pgtest.EnvVar)
				}
				return os.Getenv(pgtest.EnvVar) != "", nil
			}
			if cond == "large" {
				// [large] CMD: CMD generates or reads 100,000 cases or
				// hundreds of megabytes (package largetest).
				return largetest.Enabled(), nil
			}
			if cond != "shared" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if sharedErr != nil && shareddata.Required() {
				return false, fmt.Errorf("%v (CI must provide ../shared)", sharedErr)
			}
			return sharedErr == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// assay-worker ARGS... is `exec assay ARGS...` run in a
			// worker (inProcessScript writes it).
			"assay-worker": cmdAssay,
			// ghstep JOB ID runs a run: step of examples/ci/github-actions.yml
			// (-f action.yml: of the action)
			// (ci_workflow_test.go).
			"ghstep": cmdGHStep,
			// shim-exec PROGRAM ARGS... is `exec PROGRAM ARGS...` with the
			// assay that PROGRAM starts run in a worker (inProcessScript
			// writes it for knowlex and llmtest).
			"shim-exec": cmdShimExec,
			// glstep JOB runs the script: of a job of
			// examples/ci/gitlab-ci.yml (gitlab_ci_test.go).
			"glstep": cmdGLStep,
			// kubejob [-index I] FILE runs the container of a Job of
			// examples/ci/kubernetes-*.yaml (kube_job_test.go).
			"kubejob": cmdKubeJob,
			// exitcode N CMD ARGS... runs CMD and asserts its exit status is
			// exactly N; its stdout and stderr stay for stdout/stderr checks.
			// exitcode N assay-worker ARGS... runs assay in a worker
			// (inProcessScript writes it).
			// http [-host HOST] METHOD URL requests URL from a server the
			// script started (retrying for 10 s while it starts) and prints
			// "status N" and the body on stdout; -host sends HOST as the
			// Host header (what a browser sends for a name that resolves
			// to the server).
			"http": func(ts *testscript.TestScript, neg bool, args []string) {
				host := ""
				if len(args) > 2 && args[0] == "-host" {
					host, args = args[1], args[2:]
				}
				if neg || len(args) != 2 {
					ts.Fatalf("usage: http [-host HOST] METHOD URL")
				}
				req, err := http.NewRequest(args[0], args[1], nil)
				ts.Check(err)
				if host != "" {
					req.Host = host
				}
				var resp *http.Response
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
					if resp, err = http.DefaultClient.Do(req); err == nil || time.Now().After(deadline) {
						break
					}
				}
				ts.Check(err)
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				ts.Check(err)
				fmt.Fprintf(ts.Stdout(), "status %d\n%s", resp.StatusCode, b)
			},
			// listening ADDR waits (up to 30 s) until a server the script
			// started in the background accepts connections on ADDR, so
			// the command after it never races the server's start.
			"listening": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: listening HOST:PORT")
				}
				var err error
				for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					var c net.Conn
					if c, err = net.DialTimeout("tcp", args[0], time.Second); err == nil {
						c.Close()
						return
					}
					if time.Now().After(deadline) {
						break
					}
				}
				ts.Fatalf("nothing listens on %s after 30 s: %v", args[0], err)
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N CMD [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exitcode: bad status %q", args[0])
				}
				got := 0
				if args[1] == "assay-worker" {
					got = runAssay(ts, args[2:])
				} else if args[1] == "shim-exec" && len(args) > 2 {
					got = shimExec(ts, args[2:])
				} else {
					err = ts.Exec(args[1], args[2:]...)
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						got = ee.ExitCode()
					} else if err != nil {
						ts.Fatalf("exitcode: %v", err)
					}
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			// pgstore VAR sets $VAR to the URL of a Postgres store of the
			// script's own (a fresh schema of $ASSAY_TEST_POSTGRES's
			// database, dropped when the script ends), and $VAR_AT to the part
			// after its user info (HOST:PORT/DB?QUERY), for a script to give
			// its own (postgres://postgres:$${PW}@$VAR_AT). After
			// [!postgres] skip.
			// pgstore -empty VAR makes the schema without assay's tables
			// (before `assay store migrate`).
			"pgstore": func(ts *testscript.TestScript, neg bool, args []string) {
				newSchema := pgtest.NewSchema
				if len(args) == 2 && args[0] == "-empty" {
					newSchema, args = pgtest.NewEmptySchema, args[1:]
				}
				if neg || len(args) != 1 {
					ts.Fatalf("usage: pgstore [-empty] VAR")
				}
				base := os.Getenv(pgtest.EnvVar)
				if base == "" {
					ts.Fatalf("%s is not set: start the script with [!postgres] skip 'REASON'", pgtest.EnvVar)
				}
				u, schema, err := newSchema(base)
				if err != nil {
					ts.Fatalf("pgstore: %v", err)
				}
				ts.Defer(func() { pgtest.DropSchema(base, schema) })
				ts.Setenv(args[0], u)
				_, at, _ := strings.Cut(u, "@")
				ts.Setenv(args[0]+"_AT", at)
			},
			// pgrole VAR STORE reader|writer sets $VAR to the URL of the
			// store $STORE (made by pgstore) as a new login role with the
			// rights docs/store.md gives a reader or a writer, dropped when
			// the script ends; pgrole VAR owner sets $VAR to a new, empty
			// schema owned by a new role, as that role.
			"pgrole": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 || len(args) > 3 {
					ts.Fatalf("usage: pgrole VAR STORE reader|writer, or pgrole VAR owner")
				}
				var u string
				var drop func() error
				var err error
				if args[1] == "owner" {
					u, drop, err = pgtest.NewOwner(os.Getenv(pgtest.EnvVar))
				} else if len(args) == 3 {
					u, drop, err = pgtest.NewRole(os.Getenv(pgtest.EnvVar), ts.Getenv(args[1]), args[2])
				} else {
					ts.Fatalf("usage: pgrole VAR STORE reader|writer, or pgrole VAR owner")
				}
				if err != nil {
					ts.Fatalf("pgrole: %v", err)
				}
				ts.Defer(func() { drop() })
				ts.Setenv(args[0], u)
			},
			// pgexec STORE SQL runs one statement in the store $STORE (made
			// by pgstore), as its user.
			"pgexec": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: pgexec STORE SQL")
				}
				if err := pgtest.Exec(ts.Getenv(args[0]), args[1]); err != nil {
					ts.Fatalf("pgexec: %v", err)
				}
			},
			// sqlite DB SQL runs one statement in the SQLite database DB
			// (a store's index, assay.db).
			"sqlite": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: sqlite DB SQL")
				}
				db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
				ts.Check(err)
				defer db.Close()
				_, err = db.Exec(args[1])
				ts.Check(err)
			},
			// jsonpart FILE prints the parts of a run JSON that a replay must
			// reproduce (summary, segments, gates, cases), indented. A case's
			// source is left out: the same cases read from another file (a
			// JSONL suite, a cases file, an import) are at other positions.
			"jsonpart": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: jsonpart FILE")
				}
				var doc map[string]any
				if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				part := map[string]any{}
				for _, k := range []string{"summary", "segments", "gates", "cases"} {
					part[k] = doc[k]
				}
				if cases, ok := doc["cases"].([]any); ok {
					for _, c := range cases {
						if m, ok := c.(map[string]any); ok {
							delete(m, "source")
						}
					}
				}
				b, _ := json.MarshalIndent(part, "", "  ")
				ts.Stdout().Write(append(b, '\n'))
			},
			// jsonfacts FILE prints the graded facts of a run JSON, one line
			// each (of an assay.compare/v1 document: see compareFacts)
			// each, for cmp against values worked out by hand: every case
			// (in order), then the summary and each segment, as JSON with
			// sorted keys and numbers at 12 significant digits. Left out: a
			// case's tags and source and the engine's top_score, and the
			// unjudged shares and upper bounds at every level (facts of
			// their own, pinned elsewhere); a case's hash must be a sha256
			// and is left out too.
			"jsonfacts": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: jsonfacts FILE")
				}
				src := ts.ReadFile(args[0])
				if strings.Contains(src, `"schema": "assay.compare/v1"`) {
					compareFacts(ts, args[0], src)
					return
				}
				d := json.NewDecoder(strings.NewReader(src))
				d.UseNumber()
				var doc struct {
					Cases    []map[string]any          `json:"cases"`
					Summary  map[string]any            `json:"summary"`
					Segments map[string]map[string]any `json:"segments"`
				}
				if err := d.Decode(&doc); err != nil {
					ts.Fatalf("%s: %v", args[0], err)
				}
				hash := regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
				line := func(prefix string, v any) {
					b, err := json.Marshal(factsOf(v))
					ts.Check(err)
					fmt.Fprintf(ts.Stdout(), "%s%s\n", prefix, b)
				}
				for _, c := range doc.Cases {
					if h, _ := c["hash"].(string); !hash.MatchString(h) {
						ts.Fatalf("case %v: hash %q is not a sha256", c["id"], h)
					}
					for _, k := range []string{"hash", "tags", "source", "top_score"} {
						delete(c, k)
					}
					line("", c)
				}
				line("summary ", doc.Summary)
				names := make([]string, 0, len(doc.Segments))
				for name := range doc.Segments {
					names = append(names, name)
				}
				sort.Strings(names)
				for _, name := range names {
					line("segment "+name+" ", doc.Segments[name])
				}
			},
			// gen FILE HEAD ITEM N [TAIL] writes FILE: HEAD, then ITEM N
			// times with {i} replaced by 0, 1, ..., then TAIL; \n in them is
			// a newline. Scripts make large inputs with it.
			"gen": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 4 || len(args) > 5 {
					ts.Fatalf("usage: gen FILE HEAD ITEM N [TAIL]")
				}
				n, err := strconv.Atoi(args[3])
				if err != nil || n < 0 {
					ts.Fatalf("gen: bad count %q", args[3])
				}
				nl := strings.NewReplacer(`\n`, "\n")
				head, item := nl.Replace(args[1]), nl.Replace(args[2])
				f, err := os.Create(ts.MkAbs(args[0]))
				ts.Check(err)
				w := bufio.NewWriterSize(f, 1<<20)
				w.WriteString(head)
				indexed := strings.Contains(item, "{i}")
				for i := range n {
					if indexed {
						w.WriteString(strings.ReplaceAll(item, "{i}", strconv.Itoa(i)))
					} else {
						w.WriteString(item)
					}
				}
				if len(args) == 5 {
					w.WriteString(nl.Replace(args[4]))
				}
				ts.Check(w.Flush())
				ts.Check(f.Close())
			},
			// within SECONDS MIB N CMD ARGS... runs CMD and asserts that it
			// exits with status N having used under SECONDS of CPU time (user
			// and system, all threads: on an idle machine it bounds the wall
			// time too, and it does not grow when other tests share the
			// cores) with a peak resident set under MIB MiB; its stdout and
			// stderr stay for stdout/stderr checks, as exitcode's do (so a
			// script need not run a large input twice). CMD runs with GOMEMLIMIT at 3/4 of MIB (unless
			// the script sets one), so that the peak measures what the
			// program holds rather than how late a collector starved of CPU
			// by parallel tests ran: a program that holds more than the
			// limit still exceeds MIB.
			"within": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 4 {
					ts.Fatalf("usage: within SECONDS MIB N CMD [ARGS...]")
				}
				secs, err1 := strconv.ParseFloat(args[0], 64)
				mib, err2 := strconv.Atoi(args[1])
				want, err3 := strconv.Atoi(args[2])
				if err1 != nil || err2 != nil || err3 != nil {
					ts.Fatalf("within: bad limits %q", args[:3])
				}
				path := args[3]
				for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
					if p := filepath.Join(dir, args[3]); fileExists(p) {
						path = p
						break
					}
				}
				cmd := exec.Command(path, args[4:]...)
				cmd.Dir = ts.Getenv("WORK")
				if d := ts.MkAbs("."); d != "" {
					cmd.Dir = d
				}
				env := os.Environ()
				for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "NO_COLOR", "ROOT", "SHARED"} {
					env = append(env, k+"="+ts.Getenv(k))
				}
				if ts.Getenv("GOMEMLIMIT") == "" {
					env = append(env, fmt.Sprintf("GOMEMLIMIT=%dMiB", mib*3/4))
				}
				cmd.Env = env
				cmd.Stdout, cmd.Stderr = ts.Stdout(), ts.Stderr()
				m, err := runMeasured(cmd)
				if err != nil {
					ts.Fatalf("within: %v", err)
				}
				got, cpu, rss := m.code, m.cpu, m.rssMiB
				ts.Logf("%s: exit %d in %v (CPU %v), peak RSS %d MiB", args[3], got, m.took.Round(time.Millisecond), cpu.Round(time.Millisecond), rss)
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
				if raceEnabled {
					// The binary under test is race-instrumented (5-10x the CPU
					// and memory): the bounds hold for the real binary, which
					// the plain go test ./... run checks.
					return
				}
				if cpu.Seconds() > secs {
					ts.Fatalf("used %v of CPU, want under %vs", cpu, secs)
				}
				if rss > mib {
					ts.Fatalf("peak RSS %d MiB, want under %d MiB", rss, mib)
				}
			},
			// lines N FILE asserts FILE has exactly N lines.
			"lines": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: lines N FILE")
				}
				want, _ := strconv.Atoi(args[0])
				got := bytes.Count([]byte(ts.ReadFile(args[1])), []byte("\n"))
				if (got == want) == neg {
					ts.Fatalf("%s has %d lines, want %d", args[1], got, want)
				}
			},
		},
	})
}

// measured is how a finished command went: its exit status, CPU time
// (user and system, all its threads), wall time and peak resident set.
type measured struct {
	code      int
	cpu, took time.Duration
	rssMiB    int
}

// runMeasured runs cmd to its end and measures it. The error is one that
// kept cmd from running or finishing, not a non-zero exit status.
//
// The peak resident set is the child's own high-water mark: the one an
// assay command writes as it exits (writePeak), else sampled from
// /proc/PID/status (VmHWM) while it runs, where the system has it: the
// rusage of a child started by os/exec (vfork, then exec) also counts the
// peak of the test process it was started from, so a test process that once
// held 100 MiB made every child report at least that much. The mark only
// grows, so the last sample misses at most the growth of the last few
// milliseconds; where no sample was taken, the rusage peak stands.
func runMeasured(cmd *exec.Cmd) (measured, error) {
	peakFile, err := os.CreateTemp("", "assay-peak-*")
	if err != nil {
		return measured{}, err
	}
	peakFile.Close()
	defer os.Remove(peakFile.Name())
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, peakFileEnv+"="+peakFile.Name())
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measured{}, err
	}
	done := make(chan struct{})
	sampled := make(chan int)
	go func() {
		peak := 0
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kib := vmHWMKiB(cmd.Process.Pid); kib > peak {
				peak = kib
			}
			select {
			case <-done:
				sampled <- peak
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	hwm := <-sampled
	if kib := readPeak(peakFile.Name()); kib > 0 {
		hwm = kib
	}
	m := measured{took: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		m.code = ee.ExitCode()
	} else if err != nil {
		return m, err
	}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	m.rssMiB = maxRSSMiB(cmd.ProcessState)
	if hwm > 0 {
		m.rssMiB = hwm >> 10
	}
	return m, nil
}

// compareFacts prints what jsonfacts prints of an assay.compare/v1
// document: the verdict, the paired cases and values, the flips, each
// measure's n, exact p, significance and change, and the warnings, one line
// each. The run ids must be ids (36 characters) and are left out, as are
// what the text table pins (deltas, intervals, the verdict's reasons) and
// what no hand works out (effect sizes, power, cases to decide).
func compareFacts(ts *testscript.TestScript, name, src string) {
	d := json.NewDecoder(strings.NewReader(src))
	d.UseNumber()
	var doc struct {
		Verdict      string `json:"verdict"`
		Baseline     string `json:"baseline"`
		Candidate    string `json:"candidate"`
		PairedCases  int    `json:"paired_cases"`
		PairedValues int    `json:"paired_values"`
		Flips        struct {
			PassToFail []string `json:"pass_to_fail"`
			FailToPass []string `json:"fail_to_pass"`
		} `json:"flips"`
		Metrics []struct {
			Name        string      `json:"name"`
			N           int         `json:"n"`
			P           json.Number `json:"p"`
			Significant bool        `json:"significant"`
			Change      string      `json:"change"`
		} `json:"metrics"`
		Warnings []string `json:"warnings"`
	}
	if err := d.Decode(&doc); err != nil {
		ts.Fatalf("%s: %v", name, err)
	}
	id := regexp.MustCompile(`^[0-9a-f-]{36}$`)
	if !id.MatchString(doc.Baseline) || !id.MatchString(doc.Candidate) {
		ts.Fatalf("%s: baseline %q and candidate %q are not run ids", name, doc.Baseline, doc.Candidate)
	}
	out := ts.Stdout()
	j := func(v any) string { b, _ := json.Marshal(factsOf(v)); return string(b) }
	fmt.Fprintf(out, "verdict %s\n", doc.Verdict)
	fmt.Fprintf(out, "paired cases %d, values %d\n", doc.PairedCases, doc.PairedValues)
	fmt.Fprintf(out, "pass to fail %s, fail to pass %s\n", j(doc.Flips.PassToFail), j(doc.Flips.FailToPass))
	for _, m := range doc.Metrics {
		fmt.Fprintf(out, "%s n %d p %s significant %v %s\n", m.Name, m.N, j(m.P), m.Significant, m.Change)
	}
	fmt.Fprintf(out, "warnings %s\n", j(doc.Warnings))
}

// factsOf is v without its "upper" and "unjudged" fields, numbers at 12
// significant digits (what jsonfacts prints).
func factsOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k != "upper" && k != "unjudged" {
				out[k] = factsOf(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = factsOf(x)
		}
		return out
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v
		}
		return json.Number(strconv.FormatFloat(f, 'g', 12, 64))
	}
	return v
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// TestScriptsThatReadSharedSayFirst: every script that reads $SHARED skips
// (or, under CI, fails) through the [!shared] condition before its first
// command, so a clone without ../shared skips it with a reason instead of
// failing on a missing file.
func TestScriptsThatReadSharedSayFirst(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script, _, _ := bytes.Cut(b, []byte("\n-- "))
		if !bytes.Contains(script, []byte("$SHARED")) {
			continue
		}
		first := ""
		for _, line := range strings.Split(string(script), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				first = line
				break
			}
		}
		if !strings.HasPrefix(first, "[!shared] skip ") {
			t.Errorf("%s reads $SHARED but its first command is %q, want [!shared] skip 'REASON'", filepath.Base(f), first)
		}
	}
}
