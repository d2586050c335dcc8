package store

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Label rules. A label key is 1 to 64 bytes of ASCII letters, digits, '_',
// '.' and '-', starting with a letter or digit (branch, commit, env,
// team.name); a value is 1 to 256 bytes of UTF-8 text without control
// characters (a branch name, a commit hash, "staging").
const (
	MaxLabelKey   = 64
	MaxLabelValue = 256
	// MaxLabels bounds the labels of one run, and of one REF.
	MaxLabels = 32
)

// The labels that assay sets from a CI's variables when the caller gives
// them no value: what latest@BRANCH and the runs listing read.
const (
	LabelBranch = "branch"
	LabelCommit = "commit"
	LabelEnv    = "env"
)

// CheckLabel returns an error when key=value breaks the label rules.
func CheckLabel(key, value string) error {
	if err := CheckLabelKey(key); err != nil {
		return err
	}
	switch {
	case value == "":
		return fmt.Errorf("label %s: empty value", key)
	case len(value) > MaxLabelValue:
		return fmt.Errorf("label %s: value of %d bytes, at most %d", key, len(value), MaxLabelValue)
	case !utf8.ValidString(value):
		return fmt.Errorf("label %s: value is not UTF-8 text", key)
	case strings.ContainsFunc(value, unicode.IsControl):
		return fmt.Errorf("label %s: value holds a control character", key)
	}
	return nil
}

// CheckLabelKey returns an error when key breaks the rules of a label key.
func CheckLabelKey(key string) error {
	if key == "" {
		return fmt.Errorf("empty label key")
	}
	if len(key) > MaxLabelKey {
		return fmt.Errorf("label key %q: %d bytes, at most %d", key, len(key), MaxLabelKey)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return fmt.Errorf("label key %q: want letters, digits, '_', '.' and '-', starting with a letter or digit", key)
		}
	}
	return nil
}

// CheckLabels checks every label of m and their number.
func CheckLabels(m map[string]string) error {
	if len(m) > MaxLabels {
		return fmt.Errorf("%d labels, at most %d", len(m), MaxLabels)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := CheckLabel(k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// ParseLabel splits "KEY=VALUE" and checks it (CheckLabel).
func ParseLabel(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("label %q: want KEY=VALUE", s)
	}
	k = strings.TrimSpace(k)
	if err := CheckLabel(k, v); err != nil {
		return "", "", err
	}
	return k, v, nil
}

// HasLabels reports whether labels holds every pair of want (a run
// matches a REF's selection).
func HasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// labelsText is labels as "k=v,k=v" in key order: how a listing and an
// error show them ("" for none).
func labelsText(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+quoteLabel(labels[k]))
	}
	return strings.Join(parts, ",")
}

// quoteLabel quotes a value that a REF's braces could not hold bare.
func quoteLabel(v string) string {
	if strings.ContainsAny(v, `,}"=`) || strings.TrimSpace(v) != v {
		return strconv.Quote(v)
	}
	return v
}

// latestRef is a parsed latest REF: latest[@BRANCH | {K=V,...}][~N].
type latestRef struct {
	labels map[string]string // nil: any run
	back   int               // ~N
}

// parseLatest parses ref when it is a latest REF (ok false otherwise).
func parseLatest(ref string) (l latestRef, ok bool, err error) {
	rest, ok := strings.CutPrefix(ref, "latest")
	if !ok {
		return latestRef{}, false, nil
	}
	bad := func(why string) (latestRef, bool, error) {
		return latestRef{}, true, fmt.Errorf("run reference %q: %s; want latest, latest~N, latest@BRANCH or latest{KEY=VALUE,...}, each with an optional ~N", ref, why)
	}
	switch {
	case rest == "", strings.HasPrefix(rest, "~"):
	case strings.HasPrefix(rest, "@"):
		// A git branch name holds no '~': what follows the first one is N.
		branch, tail, hasTail := strings.Cut(rest[1:], "~")
		if branch == "" {
			return bad("no branch after @")
		}
		if err := CheckLabel(LabelBranch, branch); err != nil {
			return bad(err.Error())
		}
		l.labels = map[string]string{LabelBranch: branch}
		rest = ""
		if hasTail {
			rest = "~" + tail
		}
	case strings.HasPrefix(rest, "{"):
		labels, n, err := parseSelector(rest)
		if err != nil {
			return bad(err.Error())
		}
		l.labels, rest = labels, rest[n:]
	default:
		return bad("unknown suffix")
	}
	if rest != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(rest, "~"))
		if !strings.HasPrefix(rest, "~") || err != nil || v < 0 || strings.HasPrefix(rest, "~+") {
			return bad("~N wants N a whole number, as in latest~1")
		}
		l.back = v
	}
	return l, true, nil
}

// parseSelector reads "{k=v,k=v}" at the start of s (values may be
// double-quoted Go strings, for a ',' or '}' in them) and returns the
// labels and the bytes read.
func parseSelector(s string) (map[string]string, int, error) {
	out := map[string]string{}
	i := 1
	for {
		if i < len(s) && s[i] == '}' && len(out) == 0 {
			return nil, 0, fmt.Errorf("empty {}")
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, 0, fmt.Errorf("want KEY=VALUE inside {}")
		}
		key := strings.TrimSpace(s[i : i+eq])
		if err := CheckLabelKey(key); err != nil {
			return nil, 0, err
		}
		i += eq + 1
		var val string
		if i < len(s) && s[i] == '"' {
			q, err := strconv.QuotedPrefix(s[i:])
			if err != nil {
				return nil, 0, fmt.Errorf("label %s: unterminated quoted value", key)
			}
			val, _ = strconv.Unquote(q)
			i += len(q)
		} else {
			end := strings.IndexAny(s[i:], ",}")
			if end < 0 {
				return nil, 0, fmt.Errorf("no closing }")
			}
			val = strings.TrimSpace(s[i : i+end])
			i += end
		}
		if err := CheckLabel(key, val); err != nil {
			return nil, 0, err
		}
		if _, dup := out[key]; dup {
			return nil, 0, fmt.Errorf("label %s given twice", key)
		}
		out[key] = val
		if len(out) > MaxLabels {
			return nil, 0, fmt.Errorf("more than %d labels", MaxLabels)
		}
		if i >= len(s) {
			return nil, 0, fmt.Errorf("no closing }")
		}
		switch s[i] {
		case '}':
			return out, i + 1, nil
		case ',':
			i++
		default:
			return nil, 0, fmt.Errorf("want ',' or '}' after label %s", key)
		}
	}
}

// IsLatestRef reports whether ref is a latest REF (latest, latest~N,
// latest@BRANCH, latest{K=V,...}): one whose run depends on the suite at
// hand (ResolveEntryIn).
func IsLatestRef(ref string) bool {
	ref = strings.TrimSpace(ref)
	_, ok, _ := parseLatest(ref)
	return ok && !IsPathRef(ref)
}
