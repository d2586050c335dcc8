package store

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseLatest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ref    string
		labels map[string]string
		back   int
	}{
		{"latest", nil, 0},
		{"latest~3", nil, 3},
		{"latest@main", map[string]string{"branch": "main"}, 0},
		{"latest@feature/a.b~2", map[string]string{"branch": "feature/a.b"}, 2},
		{"latest@a{b}=c", map[string]string{"branch": "a{b}=c"}, 0},
		{"latest{branch=main,env=staging}", map[string]string{"branch": "main", "env": "staging"}, 0},
		{"latest{ env = prod }~1", map[string]string{"env": "prod"}, 1},
		{`latest{branch="a,b}",x.y-z=1}`, map[string]string{"branch": "a,b}", "x.y-z": "1"}, 0},
	} {
		l, ok, err := parseLatest(c.ref)
		if !ok || err != nil {
			t.Errorf("%s: ok %v, %v", c.ref, ok, err)
			continue
		}
		if !reflect.DeepEqual(l.labels, c.labels) || l.back != c.back {
			t.Errorf("%s = %v ~%d; want %v ~%d", c.ref, l.labels, l.back, c.labels, c.back)
		}
	}
	for _, c := range []struct{ ref, why string }{
		{"latest~", "~N wants N"},
		{"latest~-1", "~N wants N"},
		{"latest~+1", "~N wants N"},
		{"latest@", "no branch after @"},
		{"latest@~1", "no branch after @"},
		{"latest{}", "empty {}"},
		{"latest{env}", "want KEY=VALUE inside {}"},
		{"latest{env=}", "empty value"},
		{"latest{env=a", "no closing }"},
		{"latest{env=a,env=b}", "given twice"},
		{`latest{env="a}`, "unterminated quoted value"},
		{`latest{env="a"x}`, "want ',' or '}'"},
		{"latest{-x=1}", "label key"},
		{"latest{env=a}x", "~N wants N"},
		{"latestfoo", "unknown suffix"},
	} {
		_, ok, err := parseLatest(c.ref)
		if !ok || err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: ok %v, %v; want an error saying %q", c.ref, ok, err, c.why)
		}
	}
	if _, ok, _ := parseLatest("0193a1b2"); ok {
		t.Error("a run id prefix parsed as a latest REF")
	}
}

// FuzzParseLatest: any REF parses or is refused, never panics, and what
// parses holds labels that keep the label rules.
func FuzzParseLatest(f *testing.F) {
	for _, s := range []string{"latest", "latest~2", "latest@main~1", "latest{branch=main,env=staging}", `latest{a="x,}"}~0`, "latest{", "latest@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		l, ok, err := parseLatest(ref)
		if !ok || err != nil {
			return
		}
		if err := CheckLabels(l.labels); err != nil {
			t.Errorf("%q parsed to labels that break the rules: %v", ref, err)
		}
		if l.back < 0 {
			t.Errorf("%q parsed to ~%d", ref, l.back)
		}
	})
}
