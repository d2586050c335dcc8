package grade

import (
	"testing"

	"github.com/assay-eval/assay"
)

// checkEq fails t unless got is the check (kind, pass, detail).
func checkEq(t *testing.T, got assay.Check, kind string, pass bool, detail string) {
	t.Helper()
	want := assay.Check{Kind: kind, Pass: pass, Detail: detail}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestAnswerIncludes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string
		want   []string
		cs     bool
		pass   bool
		detail string
	}{
		{"all present", "Tokens are hashed with SHA-256 and salted", []string{"sha-256", "salted"}, false, true, ""},
		{"case differs but insensitive", "SHA-256", []string{"sha-256"}, false, true, ""},
		{"case differs and sensitive", "SHA-256", []string{"sha-256"}, true, false, `missing "sha-256"`},
		{"one missing", "hashed with bcrypt", []string{"hashed", "sha-256"}, false, false, `missing "sha-256"`},
		{"two missing", "nothing", []string{"a b", "c"}, false, false, `missing "a b", "c"`},
		{"empty answer", "", []string{"x"}, false, false, `missing "x"`},
		{"unicode folding", "ÜBER alles", []string{"über"}, false, true, ""},
		{"no wants", "anything", nil, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, AnswerIncludes(tt.answer, tt.want, tt.cs), "answer_includes", tt.pass, tt.detail)
		})
	}
}

func TestAnswerIncludesAny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string
		want   []string
		cs     bool
		pass   bool
		detail string
	}{
		{"second present", "the free-tier quota", []string{"free tier", "free-tier"}, false, true, ""},
		{"none present", "the paid plan", []string{"free tier", "free-tier"}, false, false, `none of "free tier", "free-tier"`},
		{"case sensitive miss", "Free Tier", []string{"free tier"}, true, false, `none of "free tier"`},
		{"case insensitive hit", "Free Tier", []string{"free tier"}, false, true, ""},
		{"empty list passes", "x", nil, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, AnswerIncludesAny(tt.answer, tt.want, tt.cs), "answer_includes_any", tt.pass, tt.detail)
		})
	}
}

func TestAnswerExcludes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer string
		banned []string
		cs     bool
		pass   bool
		detail string
	}{
		{"absent", "hashed with SHA-256", []string{"md5"}, false, true, ""},
		{"present any case", "hashed with MD5", []string{"md5"}, false, false, `found "md5"`},
		{"present other case but sensitive", "hashed with MD5", []string{"md5"}, true, true, ""},
		{"two found", "md5 and sha1", []string{"sha1", "md5", "crc"}, false, false, `found "sha1", "md5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, AnswerExcludes(tt.answer, tt.banned, tt.cs), "answer_excludes", tt.pass, tt.detail)
		})
	}
}

func TestAnswerMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answer  string
		pattern string
		pass    bool
		detail  string
	}{
		{"matches inside", "uses SHA256 today", `(?i)sha-?256`, true, ""},
		{"case matters without flag", "uses SHA256", `sha-?256`, false, "no match for sha-?256"},
		{"anchored whole answer", "42", `^\d+$`, true, ""},
		{"anchored fails", "42 apples", `^\d+$`, false, `no match for ^\d+$`},
		{"invalid pattern", "x", `(`, false, "invalid pattern: missing closing ): `(`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkEq(t, AnswerMatches(tt.answer, tt.pattern), "answer_matches", tt.pass, tt.detail)
		})
	}
}
