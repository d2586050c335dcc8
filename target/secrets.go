package target

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/assay-eval/assay"
)

// Secrets in target files.
//
// Any "${VAR}" in a string value of a target file is replaced, when the
// target is opened, by the value of the environment variable VAR (through
// Options.Getenv); an unset or empty VAR is an error. "$${" writes a literal
// "${". Every expanded value is treated as a secret: descriptions show the
// file as written (with "${VAR}"), and error messages and the text fields of
// observations have each expanded value of four or more bytes replaced by
// "${VAR}" before they leave the target, so a token echoed by a failing
// service does not reach a record, a report or a --record file.
//
// A header (or body field, or command env entry) whose name reads like a
// credential — a word token, key, apikey, secret, password, passwd, cookie,
// authorization, auth, credential(s), session — and whose value is a literal
// (no "${VAR}" and no template) is refused unless
// Options.AllowLiteralSecrets is set: credentials belong in the environment,
// not in a file that gets committed. Descriptions replace the value of any
// field with such a name by "[redacted]" unless it is written as "${VAR}".

// secretWords are the name parts that mark a field as a credential.
var secretWords = map[string]bool{
	"token": true, "key": true, "apikey": true, "secret": true, "password": true,
	"passwd": true, "cookie": true, "authorization": true, "auth": true,
	"credential": true, "credentials": true, "session": true, "bearer": true,
}

// isSecretName reports whether a header or field name reads like a
// credential. Names are split into words at non-letters and at lower-to-upper
// case changes: "X-Api-Key", "kbToken" and "KB_TOKEN" are secret names,
// "max_tokens" and "k" are not.
func isSecretName(name string) bool {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// secrets records the values expanded from the environment.
type secrets struct {
	names    map[string]string // value -> VAR
	replacer *strings.Replacer
}

func newSecrets() *secrets { return &secrets{names: map[string]string{}} }

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

// seal builds the redactor; call once after every expansion.
func (sc *secrets) seal() {
	if len(sc.names) == 0 {
		return
	}
	vals := make([]string, 0, len(sc.names))
	for v := range sc.names {
		vals = append(vals, v)
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, "${"+sc.names[v]+"}")
	}
	sc.replacer = strings.NewReplacer(pairs...)
}

// redact replaces every secret value in s by its ${VAR}.
func (sc *secrets) redact(s string) string {
	if sc == nil || sc.replacer == nil || s == "" {
		return s
	}
	return sc.replacer.Replace(s)
}

// redactError returns err with secrets removed from its message.
func (sc *secrets) redactError(err error) error {
	if err == nil || sc == nil || sc.replacer == nil {
		return err
	}
	e := assay.AsError(err)
	c := *e
	c.Message = sc.redact(c.Message)
	return &c
}

// redactObservation removes secrets from the text an observation carries.
func (sc *secrets) redactObservation(o *assay.Observation) {
	if sc == nil || sc.replacer == nil {
		return
	}
	o.Answer = sc.redact(o.Answer)
	o.Outcome = sc.redact(o.Outcome)
	for i := range o.Retrieved {
		h := &o.Retrieved[i]
		h.ID, h.Title, h.Path, h.Text = sc.redact(h.ID), sc.redact(h.Title), sc.redact(h.Path), sc.redact(h.Text)
	}
	for i := range o.Citations {
		c := &o.Citations[i]
		c.ID, c.Title, c.Path, c.Quote = sc.redact(c.ID), sc.redact(c.Title), sc.redact(c.Path), sc.redact(c.Quote)
	}
	for i := range o.Tools {
		t := &o.Tools[i]
		t.Error = sc.redact(t.Error)
		if len(t.Args) > 0 {
			t.Args = assay.RawJSON(sc.redact(string(t.Args)))
		}
	}
	for k, v := range o.Fields {
		if s, ok := v.(string); ok {
			o.Fields[k] = sc.redact(s)
		}
	}
	if o.Error != nil {
		e := *o.Error
		e.Message = sc.redact(e.Message)
		o.Error = &e
	}
}

// redactConfig returns a copy of a plain config tree in which the values of
// credential-named fields are "[redacted]" unless written as ${VAR}.
func redactConfig(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if s, ok := val.(string); ok && isSecretName(k) && !strings.Contains(s, "${") {
				out[k] = "[redacted]"
				continue
			}
			out[k] = redactConfig(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redactConfig(val)
		}
		return out
	}
	return v
}

// finish ends an observation of a configured target: the exchange's error,
// or else the error the mapped observation carries, becomes obs.Error
// (redacted, and returned), and every secret is taken out of obs.
func (sc *secrets) finish(obs assay.Observation, err error) (assay.Observation, error) {
	if err == nil && obs.Error != nil {
		err = obs.Error
	}
	if err != nil {
		e := assay.AsError(sc.redactError(err))
		obs.Error = e
		sc.redactObservation(&obs)
		return obs, e
	}
	sc.redactObservation(&obs)
	return obs, nil
}
