package diag

import "testing"

func TestPosErrorPrints(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    *PosError
		want string
	}{
		{&PosError{File: "s.yaml", Line: 3, Col: 7, Msg: "m"}, "s.yaml:3:7: m"},
		{&PosError{File: "s.yaml", Line: 3, Msg: "m"}, "s.yaml:3: m"},
		{&PosError{File: "s.yaml", Msg: "m"}, "s.yaml: m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%#v: got %q, want %q", c.e, got, c.want)
		}
	}
	if got := Errorf("f", 1, 2, "bad %q", "a\nb").Error(); got != `f:1:2: bad "a\nb"` {
		t.Errorf("Errorf: got %q", got)
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"name", "name", 0}, {"nmae", "name", 1}, {"", "abc", 3},
		{"kitten", "sitting", 3}, {"pass_rat", "pass_rate", 1}, {"ca", "abc", 3},
		{"héllo", "hello", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	known := []string{"name", "cases", "answer_includes", "http", "https"}
	for _, c := range []struct{ s, want string }{
		{"nmae", "name"},                      // a swap is one edit
		{"Name", "name"},                      // case alone is always suggested
		{"answer_include", "answer_includes"}, // long: up to three edits
		{"answr_inclds", "answer_includes"},   // three edits
		{"htp", "http"},                       // short: one edit
		{"xyz", ""},                           // nothing close
		{"name", ""},                          // a known word needs no suggestion
		{"casesXYZ", ""},                      // three edits for 8 letters is too many
	} {
		if got := Nearest(c.s, known); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
