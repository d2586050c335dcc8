package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// PII is the rule for personal data and credentials in text taken from
// production (the questions, answers and documents of imported traces)
// before it is written anywhere a person or a repository keeps it. It
// replaces, in this order:
//
//   - credential: a credential written in the text itself, which no
//     secret list can know: "Bearer <token>", a key=value or key: value
//     whose key reads like a credential (IsSecretName:
//     password, api_key, token, secret ...), and tokens of a well-known
//     shape (sk-..., ghp_..., xox?-..., AKIA..., a JWT), shown as
//     "[credential]"; "password is VALUE" (or passwd, pwd, passphrase,
//     secret) too, but not "the key is rotated";
//   - email: an e-mail address (local@domain.tld), shown as "[email]";
//   - phone: a phone number, digits in groups of 2 to 4 separated by
//     spaces, dots or hyphens, with at least 9 digits, or at least 7 after
//     a leading "+" or a "(area)" group, shown as "[phone]";
//   - digits: a run of Digits or more digits (card, account and id
//     numbers; default 9), shown as "[number]".
//
// The zero PII applies all four kinds with the default run length. Keep
// names the kinds left as they are.
type PII struct {
	// Keep lists kinds not to replace: "credential", "email", "phone",
	// "digits".
	Keep []string
	// Digits is the shortest run of digits replaced (0: DefaultDigitRun).
	Digits int
}

// PIIKinds are the kinds of the PII rule, in the order they are applied.
var PIIKinds = []string{"credential", "email", "phone", "digits"}

// DefaultDigitRun is the shortest run of digits the PII rule replaces by
// default.
const DefaultDigitRun = 9

var (
	emailRE  = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`)
	phoneRE  = regexp.MustCompile(`(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]\d{2,4}){1,4}`)
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	keyValRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.-]*)(\s*[:=]\s*|\s+is\s+)("[^"]*"|'[^']*'|[^\s,;&"']+)`)
	shapeRE  = regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`)
)

// Check reports a kind in Keep that is not one of PIIKinds, or a negative
// Digits.
func (p PII) Check() error {
	for _, k := range p.Keep {
		if !slices.Contains(PIIKinds, k) {
			return fmt.Errorf("unknown kind of personal data %q (known: %s)", k, strings.Join(PIIKinds, ", "))
		}
	}
	if p.Digits < 0 {
		return fmt.Errorf("digit run must be >= 0 (0: %d), got %d", DefaultDigitRun, p.Digits)
	}
	return nil
}

func (p PII) on(kind string) bool { return !slices.Contains(p.Keep, kind) }

// String replaces the personal data and credentials of s (see PII).
func (p PII) String(s string) string {
	if s == "" {
		return s
	}
	if p.on("credential") {
		s = bearerRE.ReplaceAllString(s, "$1 [credential]")
		s = keyValRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := keyValRE.FindStringSubmatch(m)
			if !IsSecretName(sub[1]) || sub[3] == "[credential]" {
				return m
			}
			// "the key is rotated" is prose: "KEY is VALUE" only for a
			// password or a secret.
			if strings.TrimSpace(sub[2]) == "is" && !isWord(sub[1], "password", "passwd", "pwd", "passphrase", "secret") {
				return m
			}
			return sub[1] + sub[2] + "[credential]"
		})
		s = shapeRE.ReplaceAllString(s, "[credential]")
	}
	if p.on("email") {
		s = emailRE.ReplaceAllString(s, "[email]")
	}
	if p.on("phone") {
		s = phoneRE.ReplaceAllStringFunc(s, func(m string) string {
			n := 0
			for _, c := range m {
				if c >= '0' && c <= '9' {
					n++
				}
			}
			if n >= 9 || (n >= 7 && (strings.HasPrefix(m, "+") || strings.HasPrefix(m, "("))) {
				return "[phone]"
			}
			return m
		})
	}
	if p.on("digits") {
		run := p.Digits
		if run == 0 {
			run = DefaultDigitRun
		}
		s = digitRuns(s, run)
	}
	return s
}

// digitRuns replaces every run of at least n ASCII digits with "[number]".
func digitRuns(s string, n int) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if end-start >= n {
			b.WriteString("[number]")
		} else {
			b.WriteString(s[start:end])
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteByte(s[i])
	}
	flush(len(s))
	return b.String()
}

func isWord(s string, words ...string) bool {
	return slices.Contains(words, strings.ToLower(s))
}
