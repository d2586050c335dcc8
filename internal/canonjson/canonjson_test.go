package canonjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/canonjson/canonfill"
)

// strs are the strings random values draw from: every escape
// encoding/json makes (quotes, backslashes, control bytes, HTML
// characters, invalid UTF-8, U+2028 and U+2029) beside plain text.
var strs = []string{
	"", "a", "c000042", "how often is the kettle descaled 7", `quo"te`, `back\slash`, "tab\tnl\nret\r", "\b\f\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "bad \xff\xfe utf8", "trunc \xe2\x82", "line\u2028para\u2029", "ünïcødé 日本語 😀", "a.md", "B.md",
}

type gen struct{ r *rand.Rand }

func (g gen) s() string { return strs[g.r.IntN(len(strs))] }

func (g gen) ss() []string {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	ss := make([]string, 1+g.r.IntN(3))
	for i := range ss {
		ss[i] = g.s()
	}
	return ss
}

func (g gen) b() bool { return g.r.IntN(2) == 0 }

func (g gen) bp() *bool {
	if g.r.IntN(3) == 0 {
		return nil
	}
	b := g.b()
	return &b
}

func (g gen) sm() map[string]string {
	if g.b() {
		return nil
	}
	m := map[string]string{}
	for range g.r.IntN(4) {
		m[g.s()] = g.s()
	}
	return m
}

func (g gen) expect() assay.Expect {
	if g.r.IntN(8) == 0 {
		return assay.Expect{}
	}
	return assay.Expect{
		AnswerIncludes: g.ss(), AnswerIncludesAny: g.ss(), AnswerExcludes: g.ss(), AnswerMatches: g.s(),
		CaseSensitive: g.bp(), Retrieves: g.ss(), Cites: g.ss(), CitesAny: g.ss(), Cited: g.ss(), CitedAny: g.ss(),
		CitesOnlySurfaced: g.b(), NoCitations: g.b(), Refusal: g.bp(), CallsTool: g.ss(), CallsAnyTool: g.b(),
		NeverCalls: g.ss(), StopsAtApproval: g.b(), Outcome: g.s(), JSONSchema: g.s(), JSONSchemaPath: g.s(),
		MaxTurns: g.r.IntN(4) - 1,
	}
}

func (g gen) kase() assay.Case {
	c := assay.Case{
		ID: g.s(), Query: g.s(), Tags: g.sm(), Guards: g.s(), K: g.r.IntN(30) - 5, Relevant: g.ss(),
		Expect: g.expect(), Surface: g.s(), Vars: g.sm(), Review: g.s(), Provenance: g.sm(),
		Source: g.s(), Position: g.r.IntN(9), Turn: g.r.IntN(3), History: []assay.Message{{Role: "user", Content: g.s()}},
	}
	if g.b() {
		c.Judgments = map[string]int{}
		for range g.r.IntN(4) {
			c.Judgments[g.s()] = g.r.IntN(5) - 1
		}
	}
	return c
}

func marshal(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppendCaseIsMarshal pins AppendCase and AppendExpect to
// json.Marshal, byte for byte, over random cases.
func TestAppendCaseIsMarshal(t *testing.T) {
	t.Parallel()
	g := gen{rand.New(rand.NewPCG(3, 4))}
	for i := range 20000 {
		c := g.kase()
		got, ok := AppendCase(nil, &c)
		if !ok {
			t.Fatalf("case %d: AppendCase declined a plain case", i)
		}
		if want := marshal(t, &c); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
		got, _ = AppendExpect(nil, &c.Expect)
		if want := marshal(t, &c.Expect); !bytes.Equal(got, want) {
			t.Fatalf("case %d expect:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestDeclines pins the fallback: the fields not written make both
// functions decline and append nothing.
func TestDeclines(t *testing.T) {
	t.Parallel()
	ms := 3.5
	for name, c := range map[string]assay.Case{
		"max_latency_ms": {Expect: assay.Expect{MaxLatencyMs: &ms}},
		"tools":          {Expect: assay.Expect{Tools: &assay.ToolTrajectory{}}},
		"judge":          {Expect: assay.Expect{Judge: map[string]float64{"x": 0.5}}},
		"nuggets":        {Expect: assay.Expect{Nuggets: []assay.Nugget{{Text: "t"}}}},
		"turns":          {Turns: []assay.Turn{{Query: "q"}}},
	} {
		if out, ok := AppendCase([]byte("x"), &c); ok || string(out) != "x" {
			t.Errorf("%s: AppendCase = %q, %v; want it to decline", name, out, ok)
		}
		if name == "turns" {
			continue
		}
		if out, ok := AppendExpect([]byte("x"), &c.Expect); ok || string(out) != "x" {
			t.Errorf("%s: AppendExpect = %q, %v; want it to decline", name, out, ok)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), marshal(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

func FuzzAppendCase(f *testing.F) {
	f.Add("c1", "how often", "month", "<&>", 10, true, uint8(0))
	f.Add("\xff", "\u2028", "\x00", `"\`, -1, false, uint8(255))
	f.Fuzz(func(t *testing.T, id, query, text, other string, k int, b bool, mask uint8) {
		c := assay.Case{ID: id, Query: query, K: k, Surface: other}
		ss := []string{text, other, id}
		if mask&1 != 0 {
			c.Tags, c.Provenance = map[string]string{id: text, other: query}, map[string]string{text: id}
		}
		if mask&2 != 0 {
			c.Judgments = map[string]int{id: k, text: 1, other: 0}
			c.Vars = map[string]string{id: text, other: query}
		}
		if mask&4 != 0 {
			c.Relevant, c.Guards, c.Review = ss, text, other
		}
		if mask&8 != 0 {
			c.Expect = assay.Expect{AnswerIncludes: ss, AnswerMatches: text, Refusal: &b, CaseSensitive: &b, Outcome: other, JSONSchema: id, MaxTurns: k}
		}
		if mask&16 != 0 {
			c.Expect.Cites, c.Expect.CitedAny, c.Expect.NeverCalls, c.Expect.CallsAnyTool, c.Expect.NoCitations = ss, ss[:1], ss[2:], b, !b
		}
		got, ok := AppendCase(nil, &c)
		if !ok {
			t.Fatal("AppendCase declined")
		}
		if want := marshal(t, &c); !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// TestEveryFieldIsWritten sets each field of a case and of its
// expectations in turn (package canonfill) and checks that whatever the
// encoders write is json.Marshal's: a field added to assay.Case or
// assay.Expect and not to AppendCase or AppendExpect (or to Plain, when
// it is not written) changes the hashes the encodings feed, so it fails
// here instead of hashing two different cases alike.
func TestEveryFieldIsWritten(t *testing.T) {
	var c assay.Case
	c.ID, c.Query = "a", "q"
	written := 0
	canonfill.Each(&c, func(path string) {
		if got, ok := AppendCase(nil, &c); ok {
			written++
			want, err := json.Marshal(&c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s set: AppendCase wrote\n%s\njson.Marshal\n%s", path, got, want)
			}
		}
		if got, ok := AppendExpect(nil, &c.Expect); ok {
			want, err := json.Marshal(&c.Expect)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s set: AppendExpect wrote\n%s\njson.Marshal\n%s", path, got, want)
			}
		}
	})
	if written < 20 {
		t.Errorf("AppendCase wrote %d of the cases with one field set; want most of them", written)
	}
}
