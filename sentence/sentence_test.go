package sentence

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"plain", "One thing. Two things! Three?", []string{"One thing.", "Two things!", "Three?"}},
		{"abbreviations do not split", "Use a hash, e.g. SHA-256, for tokens. Dr. Smith agreed.", []string{"Use a hash, e.g. SHA-256, for tokens.", "Dr. Smith agreed."}},
		{"decimals do not split", "The score rose to 3.5 points. It was 0.9 before.", []string{"The score rose to 3.5 points.", "It was 0.9 before."}},
		{"initials do not split", "Written by J. R. Tolkien. Read it.", []string{"Written by J. R. Tolkien.", "Read it."}},
		{"lower case continues", "See fig. three for more. Then stop.", []string{"See fig. three for more.", "Then stop."}},
		{"closing quote stays", `He said "stop." Then left.`, []string{`He said "stop."`, "Then left."}},
		{"marker after the mark stays", "Tokens are hashed.[1] They expire.[2, 3] Done.", []string{"Tokens are hashed.[1]", "They expire.[2, 3]", "Done."}},
		{"marker before the mark", "Tokens are hashed [1]. They expire [2].", []string{"Tokens are hashed [1].", "They expire [2]."}},
		{"a line break ends a sentence", "First line\nsecond line\n\nThird.", []string{"First line", "second line", "Third."}},
		{"cjk ends need no space", "東京は日本の首都です。大阪は大きい！本当？", []string{"東京は日本の首都です。", "大阪は大きい！", "本当？"}},
		{"cjk closers and markers stay", "彼は「東京です。」と言った。[1]次です。", []string{"彼は「東京です。」", "と言った。[1]", "次です。"}},
		{"mixed cjk and latin", "SHA-256 を使います。Tokens expire.", []string{"SHA-256 を使います。", "Tokens expire."}},
		{"no mark runs to the end", "  no final mark  ", []string{"no final mark"}},
		{"empty", "", nil},
		{"white space only", " \n\t\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Strings(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestMarker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		nums []int
		ok   bool
	}{
		{"[1]", []int{1}, true},
		{"[2, 3]", []int{2, 3}, true},
		{"[ 4 ,5 ]", []int{4, 5}, true},
		{"[]", nil, false},
		{"[a]", nil, false},
		{"[1", nil, false},
		{"[1234567]", nil, false},
		{"x", nil, false},
	} {
		nums, end, ok := Marker(tc.in, 0)
		if ok != tc.ok || !reflect.DeepEqual(nums, tc.nums) || ok && end != len(tc.in) {
			t.Errorf("Marker(%q) = %v, %d, %v; want %v, %v", tc.in, nums, end, ok, tc.nums, tc.ok)
		}
	}
}

// FuzzSplit: splitting never panics; the spans are in order, do not
// overlap, lie inside the text, are trimmed and non-empty, and no
// non-space character of the text is outside every span.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"One. Two! Three?", "e.g. Dr. Smith", "a.[1] b", "東京です。大阪", "x\n\ny", "[99999999", "\xff. \xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		for _, sp := range Split(s) {
			if sp.Start < prev || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("bad span %v (previous end %d) in %q", sp, prev, s)
			}
			text := sp.Text(s)
			if text != strings.TrimFunc(text, unicode.IsSpace) && utf8.ValidString(text) {
				t.Fatalf("untrimmed sentence %q from %q", text, s)
			}
			if gap := s[prev:sp.Start]; strings.TrimFunc(gap, unicode.IsSpace) != "" && utf8.ValidString(gap) {
				t.Fatalf("text %q left out between sentences of %q", gap, s)
			}
			prev = sp.End
		}
		if tail := s[prev:]; strings.TrimFunc(tail, unicode.IsSpace) != "" && utf8.ValidString(tail) {
			t.Fatalf("text %q left out at the end of %q", tail, s)
		}
	})
}
