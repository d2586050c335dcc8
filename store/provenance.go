package store

import (
	"context"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/assay-eval/assay"
)

// GitInfo returns the commit of the git repository holding dir and whether
// its tracked files have uncommitted changes, or nil when there is no git
// or no repository. It runs the git command (with a timeout).
func GitInfo(dir string) *assay.GitInfo {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	commit, err := git("rev-parse", "--verify", "HEAD")
	if err != nil || commit == "" {
		return nil
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return &assay.GitInfo{Commit: commit}
	}
	return &assay.GitInfo{Commit: commit, Dirty: status != ""}
}

// Redacted replaces every secret value in a redacted record.
const Redacted = "[redacted]"

// secretName matches field and header names that hold secrets.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw(or)?d|cookie|authori[sz]ation|api[-_]?key|private[-_]?key|access[-_]?key|credential|(^|[-_.])(key|auth|pass|pwd)$)`)

// IsSecretName reports whether a field or header name looks like it holds a
// secret: it contains token, secret, password, cookie, authorization,
// api_key, credential, ... or is (or ends in) key, auth, pass or pwd.
func IsSecretName(name string) bool { return secretName.MatchString(name) }

// Redact returns a deep copy of m fit for a record: the value of every field
// whose name IsSecretName is replaced by "[redacted]" (at any depth, in
// headers too); in string values, the password of a URL and URL query
// parameters named like secrets are redacted; and each of the given secret
// values (for example everything expanded from the environment) is
// replaced wherever it occurs inside a string. m itself is not changed.
func Redact(m map[string]any, secrets ...string) map[string]any {
	if m == nil {
		return nil
	}
	var live []string
	for _, s := range secrets {
		if len(s) >= 3 { // shorter values would redact common text
			live = append(live, s)
		}
	}
	out, _ := redactValue(m, live).(map[string]any)
	return out
}

func redactValue(v any, secrets []string) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if IsSecretName(k) && x != nil && x != "" {
				out[k] = Redacted
				continue
			}
			out[k] = redactValue(x, secrets)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if IsSecretName(k) && x != "" {
				out[k] = Redacted
				continue
			}
			out[k] = redactString(x, secrets)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redactValue(x, secrets)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = redactString(x, secrets)
		}
		return out
	case string:
		return redactString(v, secrets)
	}
	return v
}

func redactString(s string, secrets []string) string {
	for _, sec := range secrets {
		s = strings.ReplaceAll(s, sec, Redacted)
	}
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			changed := false
			if u.User != nil {
				if _, ok := u.User.Password(); ok {
					u.User = url.UserPassword(u.User.Username(), "REDACTED")
					changed = true
				}
			}
			q := u.Query()
			for k := range q {
				if IsSecretName(k) {
					q.Set(k, "REDACTED")
					changed = true
				}
			}
			if changed {
				u.RawQuery = q.Encode()
				s = u.String()
			}
		}
	}
	return s
}
