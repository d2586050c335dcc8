package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"
)

// The example workflow examples/ci/github-actions.yml is tested by running
// its run: steps, read from the YAML, in testscripts (ghstep JOB ID), so a
// script cannot drift from the workflow. TestWorkflowStepsScripted checks
// that every run: step is run by some script.

// ciWorkflow is the path of the example workflow, under the repository root.
const ciWorkflow = "examples/ci/github-actions.yml"

// ciAction is the repository's GitHub Action (composite); ghstep -f
// ciAction runs its steps as job "runs".
const ciAction = "action.yml"

// ciWorkflows are every example workflow, and the action, whose run: steps
// scripts run (ghstep -f FILE for all but ciWorkflow).
var ciWorkflows = []string{ciWorkflow, "examples/ci/github-actions-shards.yml", ciAction, "install/action.yml"}

// ciUnscripted are the run: steps no script runs: building assay from its
// source (the scripts run the assay under test).
var ciUnscripted = map[string]bool{"ratchet/build": true}

type workflow struct {
	Env  map[string]string      `yaml:"env"`
	Jobs map[string]workflowJob `yaml:"jobs"`
	// An action's inputs and steps (runs.steps), read as job "runs".
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs *workflowJob `yaml:"runs"`
}

type workflowJob struct {
	Env   map[string]string `yaml:"env"`
	Steps []workflowStep    `yaml:"steps"`
}

type workflowStep struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	Env  map[string]string `yaml:"env"`
}

func readWorkflow(path string) (*workflow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if wf.Runs != nil {
		wf.Jobs = map[string]workflowJob{"runs": *wf.Runs}
	}
	return &wf, nil
}

// stepOutputRef is the one expression ghstep evaluates in a step's env:
// ${{ steps.ID.outputs.NAME }}, read from what step ID of the same job wrote
// to $GITHUB_OUTPUT when a script ran it.
var stepOutputRef = regexp.MustCompile(`^\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}$`)

// matrixOrSecretRef is ${{ matrix.NAME }} (a -matrix NAME=VALUE of ghstep),
// ${{ secrets.NAME }} (the script's $NAME), ${{ inputs.NAME }} (an
// action's input: -input NAME=VALUE, else its default) or
// ${{ github.NAME }} (the script's $GITHUB_NAME, as the runner sets it;
// github.action_path is the action file's directory under $ROOT unless
// set).
var matrixOrSecretRef = regexp.MustCompile(`^\$\{\{\s*(matrix|secrets|inputs|github)\.([A-Za-z0-9_-]+)\s*\}\}$`)

// readOutputs reads a $GITHUB_OUTPUT file of NAME=VALUE lines.
func readOutputs(path string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// cmdGHStep is the testscript command
//
//	[!] ghstep [-f WORKFLOW] [-matrix NAME=VALUE]... [-input NAME=VALUE]... JOB ID
//
// It runs the run: block of step ID of job JOB of the example workflow with
// bash -e (GitHub's default shell on Linux) in the script's current
// directory, with the workflow's, the job's and the step's env on top of
// the script's. $GITHUB_OUTPUT is $WORK/gh/JOB/ID.output, emptied before
// each run (a script greps it); a step env value ${{ steps.S.outputs.N }} is read from the output
// file of step S. -f runs a step of another workflow of ciWorkflows (its
// outputs under $WORK/gh/NAME/JOB/, NAME the file's base name); an env value
// ${{ matrix.NAME }} is the VALUE of -matrix NAME=VALUE, and
// ${{ secrets.NAME }} the script's $NAME. -f action.yml runs a step of the
// action (job "runs"), its ${{ inputs.NAME }} the VALUE of -input
// NAME=VALUE or the input's default; ${{ github.NAME }} is the script's
// $GITHUB_NAME. Any other ${{ }} expression in run: or env: is an error:
// the script could not run what the workflow runs.
func cmdGHStep(ts *testscript.TestScript, neg bool, args []string) {
	file, matrix, inputs := ciWorkflow, map[string]string{}, map[string]string{}
	for len(args) > 2 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-f":
			file = args[1]
		case "-matrix":
			k, v, _ := strings.Cut(args[1], "=")
			matrix[k] = v
		case "-input":
			k, v, _ := strings.Cut(args[1], "=")
			inputs[k] = v
		default:
			ts.Fatalf("ghstep: unknown option %s", args[0])
		}
		args = args[2:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: ghstep [-f WORKFLOW] [-matrix NAME=VALUE]... [-input NAME=VALUE]... JOB ID")
	}
	job, id := args[0], args[1]
	wf, err := readWorkflow(filepath.Join(ts.Getenv("ROOT"), file))
	ts.Check(err)
	j, ok := wf.Jobs[job]
	if !ok {
		ts.Fatalf("ghstep: %s has no job %q", file, job)
	}
	var step *workflowStep
	for i := range j.Steps {
		if j.Steps[i].ID == id {
			step = &j.Steps[i]
		}
	}
	if step == nil || step.Run == "" {
		ts.Fatalf("ghstep: job %s has no run: step with id %q", job, id)
	}
	if strings.Contains(step.Run, "${{") {
		ts.Fatalf("ghstep: step %s/%s: run: holds a ${{ }} expression; move it to env:", job, id)
	}
	dir := filepath.Join(ts.Getenv("WORK"), "gh", job)
	if file != ciWorkflow {
		dir = filepath.Join(ts.Getenv("WORK"), "gh", strings.TrimSuffix(filepath.Base(file), ".yml"), job)
		if filepath.Base(file) == ciAction && file != ciAction {
			dir = filepath.Join(ts.Getenv("WORK"), "gh", strings.ReplaceAll(filepath.Dir(file), "/", "-"), job)
		}
	}
	ts.Check(os.MkdirAll(dir, 0o777))
	script := filepath.Join(dir, id+".sh")
	ts.Check(os.WriteFile(script, []byte(step.Run), 0o666))

	saved := map[string]string{}
	set := func(k, v string) {
		if _, done := saved[k]; !done {
			saved[k] = ts.Getenv(k)
		}
		ts.Setenv(k, v)
	}
	for _, env := range []map[string]string{wf.Env, j.Env, step.Env} {
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := env[k]
			if m := stepOutputRef.FindStringSubmatch(strings.TrimSpace(v)); m != nil {
				v = readOutputs(filepath.Join(dir, m[1]+".output"))[m[2]]
			} else if m := matrixOrSecretRef.FindStringSubmatch(strings.TrimSpace(v)); m != nil && m[1] == "matrix" {
				var ok bool
				if v, ok = matrix[m[2]]; !ok {
					ts.Fatalf("ghstep: step %s/%s: env %s needs -matrix %s=VALUE", job, id, k, m[2])
				}
			} else if m != nil && m[1] == "inputs" {
				in, declared := wf.Inputs[m[2]]
				var given bool
				if v, given = inputs[m[2]]; !given {
					if !declared {
						ts.Fatalf("ghstep: step %s/%s: env %s: %s declares no input %q", job, id, k, file, m[2])
					}
					if v = in.Default; strings.Contains(v, "${{") {
						ts.Fatalf("ghstep: step %s/%s: env %s: input %s defaults to %q: give -input %s=VALUE", job, id, k, m[2], v, m[2])
					}
				}
			} else if m != nil && m[1] == "github" {
				v = ts.Getenv("GITHUB_" + strings.ToUpper(m[2]))
				if m[2] == "action_path" && v == "" {
					v = filepath.Join(ts.Getenv("ROOT"), filepath.Dir(file))
				}
			} else if m != nil {
				v = ts.Getenv(m[2])
			} else if strings.Contains(v, "${{") {
				ts.Fatalf("ghstep: step %s/%s: env %s=%q: only ${{ steps.ID.outputs.NAME }} can be evaluated", job, id, k, v)
			}
			set(k, v)
		}
	}
	// Each run of a step has its own $GITHUB_OUTPUT, as on GitHub.
	output := filepath.Join(dir, id+".output")
	ts.Check(os.WriteFile(output, nil, 0o666))
	withShim(ts, set)
	set("GITHUB_OUTPUT", output)
	err = ts.Exec("bash", "-e", script)
	for k, v := range saved {
		ts.Setenv(k, v)
	}
	if neg {
		if err == nil {
			ts.Fatalf("step %s/%s succeeded unexpectedly", job, id)
		}
		return
	}
	ts.Check(err)
}

// TestWorkflowStepsScripted checks that the example workflows' run: steps
// are what the scripts run: every one has an id and is run by a ghstep line
// of some testdata/script/*.txtar (but the build steps), and none holds a
// ${{ }} expression in its run: block.
func TestWorkflowStepsScripted(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	scripts, err := filepath.Glob(filepath.Join(root, "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{} // FILE JOB/ID
	line := regexp.MustCompile(`(?m)^\s*!?\s*ghstep\s+((?:-\S+\s+\S+\s+)*)(\S+)\s+(\S+)\s*$`)
	file := regexp.MustCompile(`-f\s+(\S+)`)
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			wf := ciWorkflow
			if f := file.FindStringSubmatch(m[1]); f != nil {
				wf = f[1]
			}
			ran[wf+" "+m[2]+"/"+m[3]] = true
		}
	}
	for _, path := range ciWorkflows {
		wf, err := readWorkflow(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for name, job := range wf.Jobs {
			for i, st := range job.Steps {
				if st.Run == "" {
					continue
				}
				steps++
				if st.ID == "" {
					t.Errorf("%s: job %s step %d (%q) has a run: block but no id: a script cannot run it", path, name, i+1, st.Name)
					continue
				}
				if strings.Contains(st.Run, "${{") {
					t.Errorf("%s: step %s/%s: run: holds a ${{ }} expression; move it to env:", path, name, st.ID)
				}
				if key := name + "/" + st.ID; !ran[path+" "+key] && !ciUnscripted[key] {
					flag := ""
					if path != ciWorkflow {
						flag = "-f " + path + " "
					}
					t.Errorf("%s: step %s is run by no testscript (add 'ghstep %s%s %s' to one)", path, key, flag, name, st.ID)
				}
			}
		}
		if steps == 0 {
			t.Fatalf("%s: no run: steps read (is the YAML shape what readWorkflow expects?)", path)
		}
	}
}
