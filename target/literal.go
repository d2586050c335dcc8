package target

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/assay-eval/assay/redact"
)

// Literal credentials outside named fields: URL user info, credential
// query parameters and credential command arguments (see secrets.go).

// literalHint ends every refusal of a literal credential.
const literalHint = "write it as ${VAR} and set VAR in the environment (or pass --allow-literal-secrets)"

// urlSecrets returns the secrets a URL (expanded) carries besides the
// expanded values: the base64 forms of its user info, as net/http sends
// them; and, when literal is set (a literal credential let through), the
// user info and credential query values themselves.
func urlSecrets(expanded string, literal bool) []redact.Secret {
	user, pass, hasUser, hasPass, query := redact.SplitURL(expanded)
	var out []redact.Secret
	if hasUser {
		if u, err := url.PathUnescape(user); err == nil {
			user = u
		}
		if p, err := url.PathUnescape(pass); err == nil {
			pass = p
		}
		out = append(out, redact.BasicAuth("", user, pass)...)
		if literal {
			out = append(out, redact.Secret{Value: pass})
			if !hasPass {
				out = append(out, redact.Secret{Value: user})
			}
		}
	}
	if literal {
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if redact.IsSecretName(k) && v != "" {
				if uv, err := url.QueryUnescape(v); err == nil {
					v = uv
				}
				out = append(out, redact.Secret{Value: v})
			}
		}
	}
	return out
}

// checkURL refuses a literal credential in a url of a target file and adds
// the secrets the url carries.
func (fc *fileCtx) checkURL(v *node, where, expanded string) error {
	written := v.written
	if written == "" {
		written = expanded
	}
	what := redact.LiteralInURL(written)
	if what != "" && !fc.o.AllowLiteralSecrets {
		return v.errorf("%s: literal credential (%s); %s", where, what, literalHint)
	}
	base, _, _ := strings.Cut(expanded, "{{")
	fc.sc.add(urlSecrets(base, what != "")...)
	return nil
}

// checkArgs refuses a literal credential among a command's arguments
// (argv as written, one string each) and adds the ones let through as
// secrets. expanded are the arguments after ${VAR} expansion.
func checkArgs(written, expanded []string, allow bool, sc *secrets) (int, string, error) {
	for _, c := range redact.CredentialArgs(written) {
		w, e := written[c.Index], expanded[c.Index]
		if c.Inline {
			w, e = w[len(c.Flag)+1:], e[min(len(c.Flag)+1, len(e)):]
		}
		if !redact.IsLiteral(w) {
			continue
		}
		if !allow {
			return c.Index, c.Flag, fmt.Errorf("argument %d: literal credential after %s; %s", c.Index+1, c.Flag, literalHint)
		}
		sc.add(redact.Secret{Value: e})
	}
	return 0, "", nil
}

// redactArgs is redact.Args, except that values written as ${VAR} stay
// visible (they name the variable, not the secret).
func redactArgs(argv []string) []string {
	out := append([]string(nil), argv...)
	for _, c := range redact.CredentialArgs(argv) {
		v := argv[c.Index]
		if c.Inline {
			v = v[len(c.Flag)+1:]
		}
		if !redact.IsLiteral(v) {
			continue
		}
		if c.Inline {
			out[c.Index] = c.Flag + "=" + redact.Redacted
		} else {
			out[c.Index] = redact.Redacted
		}
	}
	return out
}

// shellJoin writes argv back as one command line.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?#~") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
