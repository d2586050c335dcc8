package redact_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/assay-eval/assay/redact"
)

const tok = "sk-live/Abc123Def456"

func newR() *redact.Redactor { return redact.New(redact.Secret{Name: "TOK", Value: tok}) }

func TestStringForms(t *testing.T) {
	t.Parallel()
	r := newR()
	for in, want := range map[string]string{
		"a " + tok + " b":                          "a ${TOK} b",
		`\u0073k-live\/Abc123Def456`:               "${TOK}",
		`x \u0073k\u002dlive/Abc123Def456 y`:       "x ${TOK} y",
		"sk-live%2FAbc123Def456&q=1":               "${TOK}&q=1",
		`\\u0073k-live\\/Abc123Def456`:             "${TOK}",
		`{"a":"\u0073k-live\/Abc123Def456","b":1}`: `{"a":"${TOK}","b":1}`,
		"nothing here":                             "nothing here",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMinLen(t *testing.T) {
	t.Parallel()
	r := redact.New(redact.Secret{Name: "X", Value: "abc"}, redact.Secret{Name: "D", Value: "demo"})
	if got := r.String("abc demo"); got != "abc ${D}" {
		t.Errorf("got %q", got)
	}
}

// TestHeadTailRedactBeforeCut: a cut that lands inside the token leaves
// no part of it.
func TestHeadTailRedactBeforeCut(t *testing.T) {
	t.Parallel()
	r := newR()
	for pad := 0; pad < 60; pad++ {
		s := strings.Repeat("x", pad) + tok + strings.Repeat("y", 60)
		if got := r.Head(s, 30); strings.Contains(got, tok[:8]) || strings.Contains(got, "sk-live") {
			t.Fatalf("Head pad %d: %q", pad, got)
		}
		s = strings.Repeat("y", 60) + tok + strings.Repeat("x", pad)
		got := r.Tail([]byte(s), 30, false)
		for i := 0; i+8 <= len(tok); i++ {
			if strings.Contains(got, tok[i:i+8]) {
				t.Fatalf("Tail pad %d: %q", pad, got)
			}
		}
		// A stream cut inside the token: its end is dropped.
		cut := []byte(tok[pad%len(tok):] + strings.Repeat("z", 400))
		got = r.Tail(cut, 1000, true)
		if strings.Contains(got, "Def456") && pad%len(tok) < len(tok)-6 {
			t.Fatalf("Tail of a cut stream keeps %q", got)
		}
	}
}

type inner struct {
	Name string
	M    map[string]any
}

type outer struct {
	S    string
	P    *inner
	L    []inner
	Raw  json.RawMessage
	Any  any
	Keys map[string]string
	F    func() `json:"-"`
	n    string
}

func TestValueDeep(t *testing.T) {
	t.Parallel()
	r := newR()
	in := outer{
		S:    "x" + tok,
		P:    &inner{Name: tok, M: map[string]any{tok: []any{tok, map[string]any{"k": tok}}, "n": 1.5}},
		L:    []inner{{Name: tok}},
		Raw:  json.RawMessage(`{"a":"\u0073k-live\/Abc123Def456"}`),
		Any:  tok,
		Keys: map[string]string{tok: "v"},
		n:    tok,
	}
	out := redact.Value(r, in)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "Abc123") {
		t.Errorf("secret left in %s", b)
	}
	if !json.Valid(out.Raw) {
		t.Errorf("raw json made invalid: %s", out.Raw)
	}
	if in.P.Name != tok || in.L[0].Name != tok || in.Keys[tok] != "v" {
		t.Errorf("input changed")
	}
	if out.n != tok {
		t.Errorf("unexported field not kept")
	}
}

// A run without secrets redacts every result through Value: it must not
// copy the result to the heap for nothing (a large struct, each case).
func TestValueWithoutSecretsAllocatesNothing(t *testing.T) {
	in := outer{S: "plain", P: &inner{Name: "n"}, L: []inner{{Name: "l"}}}
	var out outer
	for name, r := range map[string]*redact.Redactor{"nil": nil, "empty": redact.New()} {
		if n := testing.AllocsPerRun(100, func() { out = redact.Value(r, in) }); n != 0 {
			t.Errorf("Value with a %s redactor: %v allocations a call, want 0", name, n)
		}
	}
	if out.S != "plain" || out.P != in.P {
		t.Errorf("Value with no secret changed its value: %+v", out)
	}
}

func TestWriterSplitsNoSecret(t *testing.T) {
	t.Parallel()
	r := newR()
	var buf bytes.Buffer
	w := redact.NewWriter(&buf, r)
	text := "error: " + tok + " done\nnext " + tok
	for i := 0; i < len(text); i++ {
		w.Write([]byte{text[i]})
	}
	w.Flush()
	if got := buf.String(); got != "error: ${TOK} done\nnext ${TOK}" {
		t.Errorf("got %q", got)
	}
	// A long line without a newline is written in pieces, never splitting
	// a secret.
	buf.Reset()
	w = redact.NewWriter(&buf, r)
	long := strings.Repeat(tok+"-", 20000)
	for i := 0; i < len(long); i += 777 {
		w.Write([]byte(long[i:min(i+777, len(long))]))
	}
	w.Flush()
	if strings.Contains(buf.String(), "Abc123") {
		t.Errorf("long line leaks")
	}
}

func TestBasicAuth(t *testing.T) {
	t.Parallel()
	r := redact.New(redact.BasicAuth("U", "bob", "pw-secret")...)
	if got := r.String("Basic Ym9iOnB3LXNlY3JldA=="); got != "Basic ${U}" {
		t.Errorf("got %q", got)
	}
}

func TestArgs(t *testing.T) {
	t.Parallel()
	got := redact.Args([]string{"prog", "--api-key", "K1", "--password=P1", "-k", "5", "--key-file", "f", "--token", "-v"})
	want := []string{"prog", "--api-key", "[redacted]", "--password=[redacted]", "-k", "5", "--key-file", "f", "--token", "-v"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q", got)
	}
}

func TestIsSecretName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"Authorization": true, "Cookie": true, "X-Api-Key": true, "KB_TOKEN": true, "kbToken": true, "password": true,
		"api_key": true, "max_tokens": false, "k": false, "question": false, "keyword": false, "monkey": false,
	} {
		if redact.IsSecretName(name) != want {
			t.Errorf("IsSecretName(%q) = %v", name, !want)
		}
	}
}

// TestBearerTokenEncodedFormsAreRedacted: an endpoint that echoes the
// Authorization header base64-encoded (in the standard or the URL
// alphabet, padded or not, at any position of a longer encoded text)
// leaves no 8-character run of the token's encoding.
func TestBearerTokenEncodedFormsAreRedacted(t *testing.T) {
	t.Parallel()
	r := newR()
	for pre := 0; pre < 6; pre++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			plain := strings.Repeat("h", pre) + "Authorization: Bearer " + tok + "\r\nAccept: */*"
			blob := enc.EncodeToString([]byte(plain))
			got := r.String("echo " + blob + " end")
			// What the token alone encodes to, at this alignment.
			tokStart := pre + len("Authorization: Bearer ")
			from, to := (8*tokStart+5)/6, 8*(tokStart+len(tok))/6
			core := blob[from:to]
			for i := 0; i+8 <= len(core); i++ {
				if strings.Contains(got, core[i:i+8]) {
					t.Fatalf("pre %d %v: %q of the encoded token left in %q", pre, enc == base64.URLEncoding || enc == base64.RawURLEncoding, core[i:i+8], got)
				}
			}
			if !strings.Contains(got, "${TOK}") {
				t.Fatalf("no placeholder in %q", got)
			}
		}
	}
}

// TestBearerTokenSplitOverLinesIsRedacted: "Bearer" at the end of one
// line and the token at the start of the next (a wrapped header, a log
// that breaks lines), written through a Writer in pieces that cut the
// token anywhere, leaves none of it.
func TestBearerTokenSplitOverLinesIsRedacted(t *testing.T) {
	t.Parallel()
	text := "Authorization: Bearer\n" + tok + "\nnext line\r\n  Bearer\r\n\t" + tok + "\n"
	for step := 1; step < len(text); step += 3 {
		var buf bytes.Buffer
		w := redact.NewWriter(&buf, newR())
		for i := 0; i < len(text); i += step {
			w.Write([]byte(text[i:min(i+step, len(text))]))
		}
		w.Flush()
		for i := 0; i+8 <= len(tok); i++ {
			if strings.Contains(buf.String(), tok[i:i+8]) {
				t.Fatalf("step %d: %q left in %q", step, tok[i:i+8], buf.String())
			}
		}
	}
	if got := newR().String("Bearer\n" + tok); got != "Bearer\n${TOK}" {
		t.Errorf("String: %q", got)
	}
}

// TestClipRedactsBeforeTheCut: a clip that lands inside a secret leaves
// no 8-character part of it, at every offset.
func TestClipRedactsBeforeTheCut(t *testing.T) {
	t.Parallel()
	r := newR()
	for pad := 0; pad < 40; pad++ {
		got := r.Clip(strings.Repeat("é", pad)+tok+" tail", 30)
		for i := 0; i+8 <= len(tok); i++ {
			if strings.Contains(got, tok[i:i+8]) {
				t.Fatalf("pad %d: %q", pad, got)
			}
		}
	}
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"ééééé", 3, "éé…"},
		{"x", 0, ""},
	} {
		if got := redact.Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestEncodedFormFoundAtAnyPosition: the quick test for a base64 run
// before the search finds a run that starts or ends anywhere.
func TestEncodedFormFoundAtAnyPosition(t *testing.T) {
	t.Parallel()
	r := newR()
	blob := base64.StdEncoding.EncodeToString([]byte("Bearer " + tok))
	for pre := 0; pre < 40; pre++ {
		for _, sep := range []string{" ", "", "\n"} {
			s := strings.Repeat("ab c", pre/4) + strings.Repeat("d", pre%4) + sep + blob + sep + "tail"
			if got := r.String(s); !strings.Contains(got, "${TOK}") {
				t.Fatalf("pre %d sep %q: not redacted: %q", pre, sep, got)
			}
		}
	}
}
