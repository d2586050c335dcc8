package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"
)

// The Kubernetes recipes examples/ci/kubernetes-*.yaml are tested by
// running their containers' shell, read from the manifests, in testscripts
// (kubejob), as the GitHub workflows' run: steps are (ghstep).

// kubeJobs are the example Job manifests, under the repository root.
var kubeJobs = []string{"examples/ci/kubernetes-shards.yaml", "examples/ci/kubernetes-merge.yaml"}

type kubeJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Name    string   `yaml:"name"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string         `yaml:"name"`
						Value     *string        `yaml:"value"`
						ValueFrom map[string]any `yaml:"valueFrom"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readKubeJob(path string) (*kubeJob, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var j kubeJob
	if err := yaml.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// cmdKubeJob is the testscript command
//
//	[!] kubejob [-index I] [-env NAME=VALUE]... FILE
//
// It runs the first container of the Job in FILE (one of kubeJobs) as its
// pod would: its command and args (sh -c SCRIPT) in the script's current
// directory, with the container's env on top of the script's. A value
// taken from a secret (valueFrom) is the script's $NAME; -env replaces a
// value (a path inside the image, such as the suite's). -index I is the
// pod's JOB_COMPLETION_INDEX, which an Indexed Job must be given, from 0
// to completions-1.
func cmdKubeJob(ts *testscript.TestScript, neg bool, args []string) {
	index, over := -1, map[string]string{}
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-index":
			i, err := strconv.Atoi(args[1])
			if err != nil {
				ts.Fatalf("kubejob: bad -index %q", args[1])
			}
			index = i
		case "-env":
			k, v, _ := strings.Cut(args[1], "=")
			over[k] = v
		default:
			ts.Fatalf("kubejob: unknown option %s", args[0])
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: kubejob [-index I] [-env NAME=VALUE]... FILE")
	}
	j, err := readKubeJob(filepath.Join(ts.Getenv("ROOT"), args[0]))
	ts.Check(err)
	if j.Kind != "Job" || len(j.Spec.Template.Spec.Containers) == 0 {
		ts.Fatalf("kubejob: %s is not a Job with a container", args[0])
	}
	c := j.Spec.Template.Spec.Containers[0]
	cmd := append(append([]string(nil), c.Command...), c.Args...)
	if len(cmd) == 0 {
		ts.Fatalf("kubejob: container %s has no command", c.Name)
	}
	saved := map[string]string{}
	set := func(k, v string) {
		if _, done := saved[k]; !done {
			saved[k] = ts.Getenv(k)
		}
		ts.Setenv(k, v)
	}
	indexed := j.Spec.CompletionMode == "Indexed"
	switch {
	case indexed && (index < 0 || index >= j.Spec.Completions):
		ts.Fatalf("kubejob: %s is an Indexed Job of %d completions: give -index 0..%d", args[0], j.Spec.Completions, j.Spec.Completions-1)
	case !indexed && index >= 0:
		ts.Fatalf("kubejob: %s is not an Indexed Job: no -index", args[0])
	case indexed:
		set("JOB_COMPLETION_INDEX", strconv.Itoa(index))
	}
	for _, e := range c.Env {
		switch {
		case over[e.Name] != "":
			set(e.Name, over[e.Name])
		case e.Value != nil:
			set(e.Name, *e.Value)
		case e.ValueFrom == nil:
			ts.Fatalf("kubejob: env %s has neither value nor valueFrom", e.Name)
		}
	}
	err = ts.Exec(cmd[0], cmd[1:]...)
	for k, v := range saved {
		ts.Setenv(k, v)
	}
	if neg {
		if err == nil {
			ts.Fatalf("kubejob %s succeeded unexpectedly", args[0])
		}
		return
	}
	ts.Check(err)
}

// TestKubernetesJobsScripted checks that every example Job manifest is
// run by a kubejob line of some testdata/script/*.txtar.
func TestKubernetesJobsScripted(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	scripts, err := filepath.Glob(filepath.Join(root, "testdata", "script", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	line := regexp.MustCompile(`(?m)^\s*!?\s*kubejob\s+(?:-\S+\s+\S+\s+)*(\S+)\s*$`)
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			ran[m[1]] = true
		}
	}
	for _, path := range kubeJobs {
		if _, err := readKubeJob(filepath.Join(root, path)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if !ran[path] {
			t.Errorf("%s is run by no testscript (add 'kubejob %s' to one)", path, path)
		}
	}
}
