package cli

import (
	"fmt"
	"strings"

	"github.com/assay-eval/assay/store"
)

// CILabels are the labels a run takes from a CI's variables when --label
// does not give them: for each label, the variables read, the first one
// set (non-empty) wins. GitHub Actions sets GITHUB_HEAD_REF on pull
// requests only (the PR's branch; GITHUB_REF_NAME is then "N/merge"),
// GitLab CI_MERGE_REQUEST_SOURCE_BRANCH_NAME in merge request pipelines
// only.
var CILabels = []struct {
	Label string
	Vars  []string
}{
	{store.LabelBranch, []string{"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME"}},
	{store.LabelCommit, []string{"GITHUB_SHA", "CI_COMMIT_SHA"}},
	{store.LabelEnv, []string{"CI_ENVIRONMENT_NAME", "ASSAY_ENV"}},
}

// ParseLabels reads --label KEY=VALUE flags (each key once) into a map;
// KEY= (no value) is kept as "" for RunLabels to drop.
func ParseLabels(flags []string) (map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(flags))
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		k = strings.TrimSpace(k)
		err := store.CheckLabelKey(k)
		switch {
		case !ok:
			err = fmt.Errorf("want KEY=VALUE")
		case err == nil && v != "":
			err = store.CheckLabel(k, v)
		}
		if err != nil {
			return nil, usageError("for example --label env=staging (KEY of letters, digits, '_', '.' and '-')", "--label %q: %v", f, err)
		}
		if _, dup := out[k]; dup {
			return nil, usageError("give each label once", "--label %s given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// RunLabels are the labels of a run (assay run, assay merge): those of
// --label, then for each of CILabels not given, the first of its
// variables that getenv finds set. --label KEY= (no value) keeps the
// label KEY off the run. A CI value that breaks the label rules is an
// error naming its variable.
func RunLabels(flags []string, getenv func(string) string) (map[string]string, error) {
	given, err := ParseLabels(flags)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, v := range given {
		if v != "" {
			out[k] = v
		}
	}
	if getenv != nil {
		for _, l := range CILabels {
			if _, ok := given[l.Label]; ok {
				continue
			}
			for _, name := range l.Vars {
				v := getenv(name)
				if v == "" {
					continue
				}
				if err := store.CheckLabel(l.Label, v); err != nil {
					return nil, usageError(fmt.Sprintf("give --label %s=VALUE, or --label %s= to record none", l.Label, l.Label), "$%s: %v", name, err)
				}
				out[l.Label] = v
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	if err := store.CheckLabels(out); err != nil {
		return nil, usageError("", "--label: %v", err)
	}
	return out, nil
}
