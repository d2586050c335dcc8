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
// running their containers, read from the manifests, in testscripts
// (kubejob), as the GitHub workflows' run: steps are (ghstep). The image
// (the repository's Dockerfile) has no shell and assay as its entrypoint:
// a container gives assay's arguments only.

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
						Name      string  `yaml:"name"`
						Value     *string `yaml:"value"`
						ValueFrom *struct {
							FieldRef *struct {
								FieldPath string `yaml:"fieldPath"`
							} `yaml:"fieldRef"`
							SecretKeyRef map[string]any `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
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

// completionIndexField is the downward API field of a pod's index in an
// Indexed Job (the annotation the Job controller sets on each pod).
const completionIndexField = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

// kubeShells are commands a container of the image cannot run: it has
// no shell.
var kubeShells = map[string]bool{"sh": true, "bash": true, "/bin/sh": true, "/bin/bash": true, "ash": true, "dash": true}

// expandKube replaces $(NAME) in s with env's NAME as Kubernetes does in a
// container's command and args: $$ is a literal $, and a reference to a
// name env does not hold stays as written.
func expandKube(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			if end := strings.IndexByte(s[i+2:], ')'); end >= 0 {
				name := s[i+2 : i+2+end]
				if v, ok := env[name]; ok {
					b.WriteString(v)
					i += 2 + end
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cmdKubeJob is the testscript command
//
//	[!] kubejob [-index I] [-env NAME=VALUE]... FILE
//
// It runs the first container of the Job in FILE (one of kubeJobs) as its
// pod would: the image's entrypoint, assay (or the container's command),
// with the container's args, $(NAME) of its env put in, in the script's
// current directory, with the container's env on top of the script's. A
// shell as the command is refused: the image has none. A value taken from
// a secret (secretKeyRef) is the script's $NAME; -env replaces a value (a
// path inside the image, such as the suite's; -env NAME= makes it empty).
// -index I is the pod's index, which an Indexed Job must be given, from 0
// to completions-1: the pod's JOB_COMPLETION_INDEX, and the value of an
// env var taken from the index annotation (fieldRef).
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
			k, v, ok := strings.Cut(args[1], "=")
			if !ok {
				ts.Fatalf("kubejob: -env %q: want NAME=VALUE", args[1])
			}
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
	command := c.Command
	if len(command) == 0 {
		command = []string{"assay"} // the image's ENTRYPOINT
	}
	if kubeShells[command[0]] {
		ts.Fatalf("kubejob: container %s runs %s: the image has no shell; give assay's arguments in args", c.Name, command[0])
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
	env := map[string]string{}
	if indexed {
		env["JOB_COMPLETION_INDEX"] = strconv.Itoa(index)
	}
	for _, e := range c.Env {
		v, overridden := over[e.Name]
		switch {
		case overridden:
		case e.Value != nil:
			v = *e.Value
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			if e.ValueFrom.FieldRef.FieldPath != completionIndexField || !indexed {
				ts.Fatalf("kubejob: env %s: fieldRef %s is not the index of an Indexed Job", e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
			v = strconv.Itoa(index)
		case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
			v = ts.Getenv(e.Name)
		default:
			ts.Fatalf("kubejob: env %s has neither value nor valueFrom", e.Name)
		}
		env[e.Name] = v
		set(e.Name, v)
	}
	argv := make([]string, 0, len(command)-1+len(c.Args))
	for _, a := range append(append([]string(nil), command[1:]...), c.Args...) {
		argv = append(argv, expandKube(a, env))
	}
	withShim(ts, set)
	err = ts.Exec(command[0], argv...)
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
		j, err := readKubeJob(filepath.Join(root, path))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, c := range j.Spec.Template.Spec.Containers {
			if len(c.Command) > 0 {
				t.Errorf("%s: container %s sets command %q: the image's entrypoint is assay, give its arguments in args", path, c.Name, c.Command)
			}
			for _, a := range c.Args {
				if strings.ContainsAny(a, "\n;|&`") || strings.Contains(a, "${") {
					t.Errorf("%s: container %s: arg %q is shell, which the image has not", path, c.Name, a)
				}
			}
		}
		if !ran[path] {
			t.Errorf("%s is run by no testscript (add 'kubejob %s' to one)", path, path)
		}
	}
}

// TestExpandKube: $(NAME) as Kubernetes expands it in args.
func TestExpandKube(t *testing.T) {
	t.Parallel()
	env := map[string]string{"I": "2", "N": "4", "E": ""}
	for in, want := range map[string]string{
		"$(I)/$(N)":       "2/4",
		"--baseline=$(E)": "--baseline=",
		"$$(I)":           "$(I)",
		"$(MISSING)":      "$(MISSING)",
		"$(I":             "$(I",
		"a$":              "a$",
		"$I":              "$I",
	} {
		if got := expandKube(in, env); got != want {
			t.Errorf("expandKube(%q) = %q, want %q", in, got, want)
		}
	}
}
