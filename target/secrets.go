package target

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// Secrets in target files.
//
// Any "${VAR}" in a string value of a target file is replaced, when the
// target is opened, by the value of the environment variable VAR (through
// Options.Getenv); an unset or empty VAR is an error. "$${" writes a literal
// "${". Every expanded value is a secret, and so are the base64 forms of URL
// user info (what net/http sends as Authorization: Basic) and any literal
// credential AllowLiteralSecrets let through. Targets that have secrets
// offer them as the optional capability assay.SecretHolder.
//
// Observe returns the raw observation: grading must see what the system
// returned (a token whose value is also a corpus word would otherwise change
// the grades). The runner redacts each graded result once, with package
// redact, before it is stored, recorded or shown; cmd/assay redacts the run,
// every output file, stdout and stderr with the same list. Inside the target
// only the text that is cut is redacted, whole and before the cut: the body
// snippet of a non-2xx response or of a body that is not JSON, the tail of a
// command's stderr, and the messages of setup and cleanup steps.
//
// Descriptions show the file as written (with "${VAR}"), with the value of
// any credential-named field, URL user info and credential query values,
// and credential command arguments shown as "[redacted]".
//
// Literal credentials are refused unless Options.AllowLiteralSecrets is set
// (credentials belong in the environment, not in a file that gets
// committed): a header, body field or command env entry whose name reads
// like a credential (redact.IsSecretName) with a literal value (no "${VAR}"
// and no template); user info in a URL (http://bob:pw@host) whose password
// (or, without one, user name) is not written as ${VAR}; a query parameter
// named like a credential (?api_key=...) with a literal value; and a command
// argument that is the value of a credential-looking flag ("--api-key X",
// "--password=X"; redact.CredentialArgs). The shorthands (http://... and
// command:'...' specs) follow the same rule; a literal credential let
// through is then a secret like an expanded one.

// secrets records the values expanded from the environment.
type secrets struct {
	names map[string]string // value -> VAR
	red   *redact.Redactor
}

func newSecrets() *secrets { return &secrets{names: map[string]string{}, red: redact.New()} }

// expand replaces ${VAR} in s. It returns whether s referred to any variable.
func (sc *secrets) expand(s string, getenv func(string) string) (string, bool, error) {
	if !strings.Contains(s, "${") {
		return s, false, nil
	}
	var b strings.Builder
	used := false
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1])
			b.WriteString("${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", false, errors.New("unclosed ${ (write $${ for a literal ${)")
		}
		name := s[i+2 : i+end]
		if !validVarName(name) {
			return "", false, fmt.Errorf("bad variable name ${%s}", name)
		}
		val := ""
		if getenv != nil {
			val = getenv(name)
		}
		if val == "" {
			return "", false, fmt.Errorf("${%s} is not set in the environment", name)
		}
		used = true
		if len(val) >= 4 {
			sc.names[val] = name
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
	return b.String(), used, nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// seal adds every expanded value to the redactor; call after expansion.
func (sc *secrets) seal() {
	for v, name := range sc.names {
		sc.red.Add(redact.Secret{Name: name, Value: v})
	}
}

// add makes more values secret (the base64 form of URL user info, a
// literal credential allowed by AllowLiteralSecrets).
func (sc *secrets) add(s ...redact.Secret) { sc.red.Add(s...) }

// list returns the secrets, for the Secrets capability.
func (sc *secrets) list() []redact.Secret {
	if sc == nil {
		return nil
	}
	return sc.red.Secrets()
}

// redact replaces every secret value in s by its ${VAR}.
func (sc *secrets) redact(s string) string {
	if sc == nil {
		return s
	}
	return sc.red.String(s)
}

// redactError returns err with secrets removed from its message.
func (sc *secrets) redactError(err error) error {
	if err == nil || sc.redactor().Empty() {
		return err
	}
	e := *assay.AsError(err)
	e.Message = sc.redact(e.Message)
	return &e
}

// redactor is the rule snippets are cut with (nil redacts nothing).
func (sc *secrets) redactor() *redact.Redactor {
	if sc == nil {
		return nil
	}
	return sc.red
}

// redactConfig returns a copy of a plain config tree in which the values of
// credential-named fields are "[redacted]" unless written as ${VAR}.
func redactConfig(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if s, ok := val.(string); ok && redact.IsSecretName(k) && !strings.Contains(s, "${") {
				out[k] = "[redacted]"
				continue
			}
			if l, ok := val.([]any); ok && (k == "command" || k == "run" || k == "serve") {
				out[k] = redactArgList(l)
				continue
			}
			out[k] = redactConfig(val)
		}
		return out
	case string:
		if strings.Contains(x, "://") && redact.LiteralInURL(x) != "" {
			if u, err := url.Parse(x); err == nil && u.Host != "" {
				return redact.URL(u)
			}
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redactConfig(val)
		}
		return out
	}
	return v
}

// redactArgList is redactArgs over a command list as written.
func redactArgList(l []any) []any {
	words := make([]string, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			return l
		}
		words[i] = s
	}
	out := make([]any, len(l))
	for i, w := range redactArgs(words) {
		out[i] = w
	}
	return out
}

// finish ends an observation of a configured target: the exchange's error,
// or else the error the mapped observation carries, becomes obs.Error (and
// is returned). The observation is raw: the runner grades it as the system
// returned it and redacts what it keeps (Secrets).
func finish(obs assay.Observation, err error) (assay.Observation, error) {
	if err == nil && obs.Error != nil {
		err = obs.Error
	}
	if err != nil {
		e := assay.AsError(err)
		obs.Error = e
		return obs, e
	}
	return obs, nil
}
