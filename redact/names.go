package redact

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// secretWords are the name parts that mark a field as a credential.
var secretWords = map[string]bool{
	"token": true, "key": true, "apikey": true, "secret": true, "password": true,
	"passwd": true, "cookie": true, "authorization": true, "auth": true,
	"credential": true, "credentials": true, "session": true, "bearer": true,
	"pwd": true, "passphrase": true,
}

// nameWords splits a name into lower-case words at non-letters and at
// lower-to-upper case changes.
func nameWords(name string) []string {
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
	return words
}

// IsSecretName reports whether a header, field, query parameter or flag
// name reads like a credential: one of its words (split at non-letters and
// at lower-to-upper case changes) is token, key, apikey, secret, password,
// passwd, pwd, passphrase, cookie, authorization, auth, credential(s),
// session or bearer.
// "X-Api-Key", "kbToken" and "KB_TOKEN" are secret names; "max_tokens",
// "k" and "keyword" are not.
func IsSecretName(name string) bool {
	for _, w := range nameWords(name) {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// isSecretFlag is IsSecretName for a command-line flag, except a flag that
// names where a credential is (--key-file, --password-path, --token-dir)
// rather than the credential itself.
func isSecretFlag(name string) bool {
	w := nameWords(name)
	if len(w) == 0 {
		return false
	}
	switch w[len(w)-1] {
	case "file", "path", "dir", "env", "name", "id":
		return false
	}
	return IsSecretName(name)
}

// URL returns u as text with its user info and the values of query
// parameters named like credentials replaced by [redacted].
func URL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(Redacted)
	}
	q := c.Query()
	changed := false
	for k := range q {
		if IsSecretName(k) {
			q.Set(k, Redacted)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return strings.ReplaceAll(c.String(), "%5Bredacted%5D", Redacted)
}

// CredentialArg is a command-line argument that holds a credential.
type CredentialArg struct {
	Index  int    // the argument holding the value
	Flag   string // the flag naming it ("--api-key")
	Inline bool   // --flag=VALUE: the value is after "=" in Index
}

// CredentialArgs finds the arguments of argv (argv[0] is the program)
// that hold a credential: the value of a flag named like one, as
// "--api-key VALUE", "--password=VALUE" or "-token VALUE".
func CredentialArgs(argv []string) []CredentialArg {
	var out []CredentialArg
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !isSecretFlag(name) {
			continue
		}
		flag := a
		if eq {
			flag = a[:len(a)-len(val)-1]
			if val != "" {
				out = append(out, CredentialArg{Index: i, Flag: flag, Inline: true})
			}
			continue
		}
		if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") && argv[i+1] != "" {
			out = append(out, CredentialArg{Index: i + 1, Flag: flag})
			i++
		}
	}
	return out
}

// Args returns a copy of argv with the credentials CredentialArgs finds
// replaced by [redacted].
func Args(argv []string) []string {
	out := append([]string(nil), argv...)
	for _, c := range CredentialArgs(argv) {
		if c.Inline {
			out[c.Index] = c.Flag + "=" + Redacted
		} else {
			out[c.Index] = Redacted
		}
	}
	return out
}

// IsLiteral reports whether a value as written holds a credential in the
// clear: it is not empty and is neither ${VAR} nor a template.
func IsLiteral(written string) bool {
	return written != "" && !strings.Contains(written, "${") && !strings.Contains(written, "{{")
}

// SplitURL splits a URL as written into its user info (and whether it has
// one) and its raw query, without parsing templates.
func SplitURL(s string) (user, pass string, hasUser, hasPass bool, query string) {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth = rest[:i]
	}
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		hasUser = true
		user, pass, hasPass = strings.Cut(auth[:at], ":")
	}
	if _, q, ok := strings.Cut(rest, "?"); ok {
		query, _, _ = strings.Cut(q, "#")
	}
	return
}

// LiteralInURL says what literal credential the URL as written holds ("" for
// none): user info whose password (or, without one, user name) is not
// written as ${VAR}, or a credential-named query parameter with a literal
// value.
func LiteralInURL(written string) string {
	user, pass, hasUser, hasPass, query := SplitURL(written)
	if hasUser {
		if (hasPass && IsLiteral(pass)) || (!hasPass && IsLiteral(user)) {
			return "user info in the url"
		}
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if IsSecretName(k) && IsLiteral(v) {
			return fmt.Sprintf("query parameter %s", k)
		}
	}
	return ""
}
