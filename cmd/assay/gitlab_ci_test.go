package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"
)

// The GitLab example examples/ci/gitlab-ci.yml is tested as the GitHub
// workflows are: its jobs' script: blocks, read from the file, are run by
// testscripts (glstep), and TestGitLabCIShape checks the keys GitLab reads
// (reports, parallel, needs). gitlab-ci-local is not used: it is not
// installed on these machines.

// gitlabCI is the path of the GitLab example, under the repository root.
const gitlabCI = "examples/ci/gitlab-ci.yml"

// gitlabUnscripted are jobs no script runs: the note posts to GitLab's
// API (its shape is checked by TestGitLabCIShape).
var gitlabUnscripted = map[string]bool{"assay-note": true}

type gitlabJob struct {
	Extends      string            `yaml:"extends" json:"extends"`
	Stage        string            `yaml:"stage" json:"stage"`
	Image        string            `yaml:"image" json:"image"`
	Variables    map[string]string `yaml:"variables" json:"variables"`
	BeforeScript []string          `yaml:"before_script" json:"before_script"`
	Script       []string          `yaml:"script" json:"script"`
	Needs        []string          `yaml:"needs" json:"needs"`
	Parallel     int               `yaml:"parallel" json:"parallel"`
	When         string            `yaml:"when" json:"when"`
	Rules        []map[string]any  `yaml:"rules" json:"rules"`
	Cache        map[string]any    `yaml:"cache" json:"cache"`
	Artifacts    struct {
		When    string            `yaml:"when" json:"when"`
		Paths   []string          `yaml:"paths" json:"paths"`
		Reports map[string]string `yaml:"reports" json:"reports"`
	} `yaml:"artifacts" json:"artifacts"`
}

// gitlabKeywords are the top-level keys of a .gitlab-ci.yml that are not
// jobs.
var gitlabKeywords = map[string]bool{"variables": true, "stages": true, "default": true, "include": true, "workflow": true}

type gitlabFile struct {
	Variables map[string]string
	Stages    []string
	Jobs      map[string]gitlabJob
}

func readGitLabCI(path string) (*gitlabFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	if err := yaml.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	var f struct {
		Variables map[string]string `yaml:"variables" json:"variables"`
		Stages    []string          `yaml:"stages" json:"stages"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	var jobs map[string]gitlabJob
	rest := map[string]any{}
	for k, v := range top {
		if !gitlabKeywords[k] {
			rest[k] = v
		}
	}
	// Through JSON: the values are what the YAML decoder read.
	rb, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(rb, &jobs); err != nil {
		return nil, err
	}
	// extends: a job takes what it does not set from the job it extends.
	for name, j := range jobs {
		for seen := 0; j.Extends != "" && seen < 8; seen++ {
			base, ok := jobs[j.Extends]
			if !ok {
				break
			}
			if j.Script == nil {
				j.Script = base.Script
			}
			if j.BeforeScript == nil {
				j.BeforeScript = base.BeforeScript
			}
			if j.Rules == nil {
				j.Rules = base.Rules
			}
			if j.Artifacts.Reports == nil && j.Artifacts.Paths == nil {
				j.Artifacts = base.Artifacts
			}
			if j.Image == "" {
				j.Image = base.Image
			}
			if j.Stage == "" {
				j.Stage = base.Stage
			}
			vars := map[string]string{}
			for k, v := range base.Variables {
				vars[k] = v
			}
			for k, v := range j.Variables {
				vars[k] = v
			}
			j.Variables = vars
			j.Extends = base.Extends
		}
		jobs[name] = j
	}
	return &gitlabFile{Variables: f.Variables, Stages: f.Stages, Jobs: jobs}, nil
}

// cmdGLStep is the testscript command
//
//	[!] glstep [-var NAME=VALUE]... JOB
//
// It runs the script: of job JOB of the GitLab example (after extends:)
// with sh -e, as a GitLab runner does in an image without bash, in the
// script's current directory, with the file's and the job's variables on
// top of the script's env (a variable the script sets wins: GitLab's
// CI/CD variables) and -var on top of all. before_script (the install
// of the release binary) is not run: the script runs the assay under test.
func cmdGLStep(ts *testscript.TestScript, neg bool, args []string) {
	vars := map[string]string{}
	for len(args) > 1 && args[0] == "-var" {
		k, v, _ := strings.Cut(args[1], "=")
		vars[k] = v
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: glstep [-var NAME=VALUE]... JOB")
	}
	f, err := readGitLabCI(filepath.Join(ts.Getenv("ROOT"), gitlabCI))
	ts.Check(err)
	j, ok := f.Jobs[args[0]]
	if !ok || len(j.Script) == 0 {
		ts.Fatalf("glstep: %s has no job %q with a script", gitlabCI, args[0])
	}
	saved := map[string]string{}
	set := func(k, v string) {
		if _, done := saved[k]; !done {
			saved[k] = ts.Getenv(k)
		}
		ts.Setenv(k, v)
	}
	for _, m := range []map[string]string{f.Variables, j.Variables} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ts.Getenv(k) == "" {
				set(k, m[k])
			}
		}
	}
	for k, v := range vars {
		set(k, v)
	}
	dir := filepath.Join(ts.Getenv("WORK"), "gl")
	ts.Check(os.MkdirAll(dir, 0o777))
	script := filepath.Join(dir, args[0]+".sh")
	ts.Check(os.WriteFile(script, []byte(strings.Join(j.Script, "\n")+"\n"), 0o666))
	withShim(ts, set)
	err = ts.Exec("sh", "-e", script)
	for k, v := range saved {
		ts.Setenv(k, v)
	}
	if neg {
		if err == nil {
			ts.Fatalf("job %s succeeded unexpectedly", args[0])
		}
		return
	}
	ts.Check(err)
}

// TestGitLabCIShape checks what GitLab reads from the example: the Code
// Quality and JUnit reports, the note through the merge request notes API,
// the parallel shards and the merge that needs them, and that every job
// with a script is run by a glstep line of some testscript.
func TestGitLabCIShape(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	f, err := readGitLabCI(filepath.Join(root, gitlabCI))
	if err != nil {
		t.Fatal(err)
	}
	job := func(name string) gitlabJob {
		j, ok := f.Jobs[name]
		if !ok {
			t.Fatalf("%s: no job %s", gitlabCI, name)
		}
		return j
	}
	script := func(j gitlabJob) string { return strings.Join(j.Script, "\n") }

	lint := job("assay-lint")
	if lint.Artifacts.Reports["codequality"] != "gl-code-quality-report.json" || !strings.Contains(script(lint), "--format codeclimate > gl-code-quality-report.json") || lint.Artifacts.When != "always" {
		t.Errorf("assay-lint: want the codeclimate findings as artifacts:reports:codequality (when: always), got %+v / %q", lint.Artifacts, script(lint))
	}
	for _, name := range []string{"assay-eval", "assay-eval-main"} {
		ev := job(name)
		if ev.Artifacts.Reports["junit"] != "reports/junit.xml" || !strings.Contains(script(ev), "--junit reports/junit.xml") {
			t.Errorf("%s: want --junit reports/junit.xml as artifacts:reports:junit, got %+v", name, ev.Artifacts)
		}
	}
	if !strings.Contains(script(job("assay-eval")), `latest@$CI_MERGE_REQUEST_TARGET_BRANCH_NAME`) {
		t.Errorf("assay-eval: a merge request must compare with latest@<target branch>")
	}
	note := job("assay-note")
	ns := script(note)
	for _, want := range []string{"$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes", "PRIVATE-TOKEN: $ASSAY_GITLAB_TOKEN", "-X PUT", "-X POST", "reports/comment.md"} {
		if !strings.Contains(ns, want) {
			t.Errorf("assay-note: script lacks %q", want)
		}
	}
	if !slices.Contains(note.Needs, "assay-eval") {
		t.Errorf("assay-note: needs %v, want assay-eval (its comment.md)", note.Needs)
	}
	shard := job("assay-shard")
	if shard.Parallel < 2 || !strings.Contains(script(shard), `--shard "$((CI_NODE_INDEX - 1))/$CI_NODE_TOTAL"`) {
		t.Errorf("assay-shard: want parallel: N and --shard from CI_NODE_INDEX/CI_NODE_TOTAL, got parallel %d, %q", shard.Parallel, script(shard))
	}
	if m := job("assay-merge"); !slices.Contains(m.Needs, "assay-shard") || !strings.Contains(script(m), "assay merge") {
		t.Errorf("assay-merge: want needs: [assay-shard] and assay merge, got %v", m.Needs)
	}
	for name, j := range f.Jobs {
		if strings.HasPrefix(name, ".") {
			continue
		}
		if j.Stage == "" || !slices.Contains(f.Stages, j.Stage) {
			t.Errorf("job %s: stage %q is not one of %v", name, j.Stage, f.Stages)
		}
	}

	scripts, err := filepath.Glob(filepath.Join(root, "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	line := regexp.MustCompile(`(?m)^\s*!?\s*glstep\s+(?:-var\s+\S+\s+)*(\S+)\s*$`)
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			ran[m[1]] = true
		}
	}
	for name, j := range f.Jobs {
		if strings.HasPrefix(name, ".") || len(j.Script) == 0 || gitlabUnscripted[name] {
			continue
		}
		if !ran[name] {
			t.Errorf("%s: job %s is run by no testscript (add 'glstep %s' to one)", gitlabCI, name, name)
		}
	}
}
