package report

import "testing"

func TestEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, lines string }{
		{"q001", "q001", "q001"},
		{"héllo ünïcode 日本", "héllo ünïcode 日本", "héllo ünïcode 日本"},
		{`a\b (?i)sha-?256`, `a\b (?i)sha-?256`, `a\b (?i)sha-?256`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"a\nb\tc\rd", `a\nb\tc\rd`, "a\nb\tc\\rd"},
		{"nul\x00del\x7f", `nul\x00del\x7f`, `nul\x00del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"bidi\u202egnp.exe", `bidi\u202egnp.exe`, `bidi\u202egnp.exe`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`, `bad\xff\xfeutf8`},
		{"\x1b]8;;http://x\x07link", `\x1b]8;;http://x\alink`, `\x1b]8;;http://x\alink`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := EscapeLines(tc.in); got != tc.lines {
			t.Errorf("EscapeLines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("\x1b[31mx")
	f.Add("ok")
	f.Add("\xff\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Escape(s), EscapeLines(s)} {
			for i := 0; i < len(out); i++ {
				c := out[i]
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Fatalf("control byte %#x in %q", c, out)
				}
			}
			if i := firstUnsafe(out, true); i >= 0 {
				t.Fatalf("unsafe rune at %d in %q", i, out)
			}
		}
	})
}
