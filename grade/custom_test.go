package grade_test

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
)

func TestApplyCustom(t *testing.T) {
	yes, no := true, false
	passing := grade.Custom{Kind: "ok", Func: func(assay.Case, assay.Observation) assay.Check {
		return assay.Check{Kind: "renamed", Pass: true}
	}}
	failing := grade.Custom{Kind: "long", Func: func(_ assay.Case, o assay.Observation) assay.Check {
		return assay.Check{Pass: false, Detail: o.Answer}
	}}
	panics := grade.Custom{Kind: "boom", Func: func(assay.Case, assay.Observation) assay.Check { panic("nil map") }}
	for _, tc := range []struct {
		name   string
		pass   *bool
		obs    assay.Observation
		checks []grade.Custom
		want   *bool
		kinds  string
	}{
		{"passing check keeps a pass", &yes, assay.Observation{}, []grade.Custom{passing}, &yes, "ok"},
		{"failing check fails a passing case", &yes, assay.Observation{Answer: "x"}, []grade.Custom{passing, failing}, &no, "ok long"},
		{"passing check keeps a failure", &no, assay.Observation{}, []grade.Custom{passing}, &no, "ok"},
		{"ungraded case is graded", nil, assay.Observation{}, []grade.Custom{passing}, &yes, "ok"},
		{"panic fails its check", nil, assay.Observation{}, []grade.Custom{panics}, &no, "boom"},
		{"errored observation is not checked", nil, assay.Observation{Error: &assay.Error{Class: assay.ErrTimeout}}, []grade.Custom{failing}, nil, ""},
		{"no checks change nothing", &yes, assay.Observation{}, nil, &yes, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := assay.CaseResult{Pass: tc.pass}
			grade.ApplyCustom(&r, assay.Case{ID: "q1"}, tc.obs, tc.checks)
			if (r.Pass == nil) != (tc.want == nil) || (r.Pass != nil && *r.Pass != *tc.want) {
				t.Errorf("pass = %v, want %v", fmtPass(r.Pass), fmtPass(tc.want))
			}
			var kinds []string
			for _, c := range r.Checks {
				kinds = append(kinds, c.Kind)
			}
			if got := strings.Join(kinds, " "); got != tc.kinds {
				t.Errorf("kinds = %q, want %q", got, tc.kinds)
			}
			if tc.name == "panic fails its check" && !strings.Contains(r.Checks[0].Detail, "check panicked: nil map") {
				t.Errorf("detail = %q", r.Checks[0].Detail)
			}
		})
	}
}

func fmtPass(p *bool) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestValidCustom(t *testing.T) {
	f := func(assay.Case, assay.Observation) assay.Check { return assay.Check{} }
	for _, tc := range []struct {
		checks []grade.Custom
		want   string
	}{
		{[]grade.Custom{{Kind: "short_answer", Func: f}, {Kind: "policy.v2", Func: f}}, ""},
		{[]grade.Custom{{Kind: "short", Func: nil}}, "has no function"},
		{[]grade.Custom{{Kind: "Short", Func: f}}, "want a lowercase name"},
		{[]grade.Custom{{Kind: "", Func: f}}, "want a lowercase name"},
		{[]grade.Custom{{Kind: "retrieves", Func: f}}, "built-in"},
		{[]grade.Custom{{Kind: "max_turns", Func: f}}, "built-in"},
		{[]grade.Custom{{Kind: "judge.groundedness", Func: f}}, "built-in"},
		{[]grade.Custom{{Kind: "a", Func: f}, {Kind: "a", Func: f}}, "given twice"},
	} {
		got := grade.ValidCustom(tc.checks)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("ValidCustom(%v) = %q, want %q", tc.checks[0].Kind, got, tc.want)
		}
	}
}
