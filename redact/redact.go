package redact

import (
	"encoding/base64"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinLen is the shortest value treated as a secret, in bytes.
const MinLen = 4

// Redacted shows a secret that has no name.
const Redacted = "[redacted]"

// maxDepth is how many levels of escapes are decoded.
const maxDepth = 3

// Secret is one secret value and the name it is shown as.
type Secret struct {
	Name  string // shown as ${Name}; "" shows [redacted]
	Value string
}

// Placeholder is what the secret is replaced by.
func (s Secret) Placeholder() string {
	if s.Name == "" {
		return Redacted
	}
	return "${" + s.Name + "}"
}

// BasicAuth returns the base64 forms of user:pass (standard and URL
// alphabets, padded or not) under name, as net/http sends URL user info.
func BasicAuth(name, user, pass string) []Secret {
	raw := []byte(user + ":" + pass)
	seen := map[string]bool{}
	var out []Secret
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		v := enc.EncodeToString(raw)
		if !seen[v] {
			seen[v] = true
			out = append(out, Secret{Name: name, Value: v})
		}
	}
	return out
}

// A Redactor replaces secret values. The zero value and nil redact
// nothing. It is safe for concurrent use; Add may be called at any time.
type Redactor struct {
	mu      sync.RWMutex
	secrets []Secret // as added, longest value first
	all     []Secret // secrets and their encoded forms, longest value first
	encoded []Secret // the encoded forms alone
	// minEncoded is the shortest encoded form: text without a run of that
	// many base64 characters holds none (a cheap test before the search).
	minEncoded int
	rep        *strings.Replacer
	maxLen     int
}

// New returns a Redactor of the given secrets.
func New(secrets ...Secret) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add adds secrets; values shorter than MinLen and repeats are ignored.
func (r *Redactor) Add(secrets ...Secret) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for _, s := range secrets {
		if len(s.Value) < MinLen {
			continue
		}
		dup := false
		for _, have := range r.secrets {
			if have.Value == s.Value {
				dup = true
				break
			}
		}
		if !dup {
			r.secrets = append(r.secrets, s)
			changed = true
		}
	}
	if !changed {
		return
	}
	// Longest first, so a secret containing another is replaced whole;
	// then by value, so the order is deterministic.
	sort.SliceStable(r.secrets, func(i, j int) bool {
		a, b := r.secrets[i], r.secrets[j]
		if len(a.Value) != len(b.Value) {
			return len(a.Value) > len(b.Value)
		}
		return a.Value < b.Value
	})
	r.all = withEncoded(r.secrets)
	r.encoded, r.minEncoded = nil, 0
	for _, e := range r.all {
		if !slices.ContainsFunc(r.secrets, func(s Secret) bool { return s.Value == e.Value }) {
			r.encoded = append(r.encoded, e)
			if r.minEncoded == 0 || len(e.Value) < r.minEncoded {
				r.minEncoded = len(e.Value)
			}
		}
	}
	pairs := make([]string, 0, 2*len(r.all))
	for _, s := range r.all {
		pairs = append(pairs, s.Value, s.Placeholder())
	}
	r.rep = strings.NewReplacer(pairs...)
	r.maxLen = len(r.all[0].Value)
}

// MinEncodedLen is the shortest secret whose base64 forms are secrets too.
// A shorter value's base64 core is a few characters that ordinary base64
// text would hold by chance.
const MinEncodedLen = 12

// withEncoded returns the secrets and, for each of MinEncodedLen bytes or
// more, the base64 forms a token takes when it is encoded inside a longer
// text (a bearer token in a base64 blob, a JWT-like echo, a log line
// encoded whole): for each of the three alignments of the token in the
// encoded bytes, in the standard and the URL alphabet, the characters
// that depend on the token alone. Longest value first.
func withEncoded(secrets []Secret) []Secret {
	all := append([]Secret(nil), secrets...)
	seen := make(map[string]bool, len(secrets))
	for _, s := range secrets {
		seen[s.Value] = true
	}
	for _, s := range secrets {
		if len(s.Value) < MinEncodedLen {
			continue
		}
		for _, v := range encodedCores(s.Value) {
			if !seen[v] {
				seen[v] = true
				all = append(all, Secret{Name: s.Name, Value: v})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if len(a.Value) != len(b.Value) {
			return len(a.Value) > len(b.Value)
		}
		return a.Value < b.Value
	})
	return all
}

// encodedCores is the base64 text v gives at each alignment, in both
// alphabets, without the characters that also depend on the bytes around
// it.
func encodedCores(v string) []string {
	var out []string
	for o := 0; o < 3; o++ {
		raw := make([]byte, o+len(v))
		copy(raw[o:], v)
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			e := enc.EncodeToString(raw)
			from := (8*o + 5) / 6      // the first character of v's bits only
			to := 8 * (o + len(v)) / 6 // past the last one
			out = append(out, e[from:to])
		}
	}
	return out
}

// Secrets returns the secrets as added (not their encoded forms), longest
// first.
func (r *Redactor) Secrets() []Secret {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Secret(nil), r.secrets...)
}

// Empty reports whether there is nothing to redact.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) == 0
}

// margin is the longest text one secret can span, escaped.
func (r *Redactor) margin() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	// \u escapes six bytes per byte; %25 escapes of %XX nine; a generous
	// bound for three levels.
	return 12*r.maxLen + 64
}

// String returns s with every secret replaced by its placeholder.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	r.mu.RLock()
	rep, plain, secrets, encoded, minEncoded := r.rep, r.secrets, r.all, r.encoded, r.minEncoded
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	if containsAny(s, plain) || (minEncoded > 0 && hasBase64Run(s, minEncoded) && containsAny(s, encoded)) {
		s = rep.Replace(s)
	}
	if !strings.ContainsAny(s, `\%`) {
		return s
	}
	return redactDecoded(s, secrets)
}

func containsAny(s string, secrets []Secret) bool {
	for _, sec := range secrets {
		if strings.Contains(s, sec.Value) {
			return true
		}
	}
	return false
}

// hasBase64Run reports whether s has n base64 characters in a row (either
// alphabet). It looks at every n-th byte first: a run of n holds one of
// them, and ordinary text rarely has a long run.
func hasBase64Run(s string, n int) bool {
	for i := n - 1; i < len(s); {
		if !isB64[s[i]] {
			i += n
			continue
		}
		// s[i] may be inside a run: measure the run through it.
		lo := i
		for lo > 0 && isB64[s[lo-1]] {
			lo--
		}
		hi := i + 1
		for hi < len(s) && isB64[s[hi]] && hi-lo < n {
			hi++
		}
		if hi-lo >= n {
			return true
		}
		i = hi + n
	}
	return false
}

var isB64 = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		t[c] = true
	}
	return t
}()

// Bytes is String for a byte slice.
func (r *Redactor) Bytes(b []byte) []byte {
	if r.Empty() || len(b) == 0 {
		return b
	}
	return []byte(r.String(string(b)))
}

// Tail returns the last n bytes of b redacted whole, as String would. When
// cut is true, b is itself the end of a longer stream (its first bytes may
// be the end of a secret cut off): the first bytes that could belong to a
// cut secret are dropped before redacting.
func (r *Redactor) Tail(b []byte, n int, cut bool) string {
	if cut && !r.Empty() {
		m := r.margin()
		if m >= len(b) {
			return ""
		}
		b = b[m:]
	}
	s := r.String(string(b))
	if len(s) > n {
		s = s[len(s)-n:]
		// Start at a rune boundary.
		for k := 0; k < utf8.UTFMax && s != "" && !utf8.RuneStart(s[0]); k++ {
			s = s[1:]
		}
	}
	return s
}

// Head returns the first n bytes of s redacted whole, with "..." when it
// was longer. It is the cut for text that comes from outside (a response
// body, a judge's answer): the secrets are replaced before the cut, so a
// cut that lands inside one leaves none of it.
func (r *Redactor) Head(s string, n int) string {
	s = r.String(s)
	if len(s) > n {
		i := n
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "..."
	}
	return s
}

// Clip returns s redacted whole, then cut to at most n characters (runes),
// the last of them "…" when it was cut. n < 1 gives "".
func (r *Redactor) Clip(s string, n int) string {
	s = r.String(s)
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// Clip is Redactor.Clip with nothing to redact: the cut for text that was
// redacted where it entered (the records of a run, which reports and the
// UI show), never for text from outside.
func Clip(s string, n int) string { return (*Redactor)(nil).Clip(s, n) }

// redactDecoded finds secrets in the decoded views of s and replaces the
// spans of s they came from.
func redactDecoded(s string, secrets []Secret) string {
	// Cheap check first: decode the text alone, level by level, and build
	// the offset views only when a decoded level holds a secret.
	found := false
	t := s
	for range maxDepth {
		d, changed := decodeText(t)
		if !changed {
			break
		}
		t = d
		for _, sec := range secrets {
			if strings.Contains(t, sec.Value) {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return s
	}
	type span struct {
		start, end int
		repl       string
	}
	var spans []span
	v := identity(s)
	for range maxDepth {
		nv, changed := v.decode()
		if !changed {
			break
		}
		v = nv
		for _, sec := range secrets {
			from := 0
			for {
				i := strings.Index(v.text[from:], sec.Value)
				if i < 0 {
					break
				}
				i += from
				j := i + len(sec.Value) - 1
				spans = append(spans, span{int(v.start[i]), int(v.end[j]), sec.Placeholder()})
				from = i + len(sec.Value)
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	pos := 0
	for i := 0; i < len(spans); {
		sp := spans[i]
		end := sp.end
		j := i + 1
		for j < len(spans) && spans[j].start < end {
			end = max(end, spans[j].end)
			j++
		}
		b.WriteString(s[pos:sp.start])
		b.WriteString(sp.repl)
		pos = end
		i = j
	}
	b.WriteString(s[pos:])
	return b.String()
}

// view is a decoded text with, for each of its bytes, the span [start,
// end) of the original text it came from.
type view struct {
	text       string
	start, end []int32
}

func identity(s string) view {
	v := view{text: s, start: make([]int32, len(s)), end: make([]int32, len(s))}
	for i := range s {
		v.start[i], v.end[i] = int32(i), int32(i+1)
	}
	return v
}

// decode decodes one level of escapes of v.
func (v view) decode() (view, bool) {
	out := view{start: make([]int32, 0, len(v.text)), end: make([]int32, 0, len(v.text))}
	var b strings.Builder
	changed := false
	s := v.text
	for i := 0; i < len(s); {
		dec, n := unescapeAt(s, i)
		if n == 0 {
			b.WriteByte(s[i])
			out.start = append(out.start, v.start[i])
			out.end = append(out.end, v.end[i])
			i++
			continue
		}
		changed = true
		st, en := v.start[i], v.end[i+n-1]
		for k := 0; k < len(dec); k++ {
			b.WriteByte(dec[k])
			out.start = append(out.start, st)
			out.end = append(out.end, en)
		}
		i += n
	}
	out.text = b.String()
	return out, changed
}

// decodeText decodes one level of escapes of s.
func decodeText(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		dec, n := unescapeAt(s, i)
		if n == 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		changed = true
		b.WriteString(dec)
		i += n
	}
	return b.String(), changed
}

// unescapeAt decodes the escape at s[i:], returning its text and length
// (0 when there is none).
func unescapeAt(s string, i int) (string, int) {
	switch s[i] {
	case '%':
		if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			return string([]byte{unhex(s[i+1])<<4 | unhex(s[i+2])}), 3
		}
	case '\\':
		if i+1 >= len(s) {
			return "", 0
		}
		switch s[i+1] {
		case '/', '\\', '"', '\'':
			return s[i+1 : i+2], 2
		case 'n':
			return "\n", 2
		case 't':
			return "\t", 2
		case 'r':
			return "\r", 2
		case 'b':
			return "\b", 2
		case 'f':
			return "\f", 2
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return "", 0
			}
			if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				if r2, ok := hex4(s, i+8); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					return string(rune((r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000)), 12
				}
			}
			return string(rune(r)), 6
		case 'x':
			if i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]) {
				return string([]byte{unhex(s[i+2])<<4 | unhex(s[i+3])}), 4
			}
		}
	}
	return "", 0
}

func hex4(s string, i int) (int, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	r := 0
	for k := i; k < i+4; k++ {
		if !isHex(s[k]) {
			return 0, false
		}
		r = r<<4 | int(unhex(s[k]))
	}
	return r, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
