package grade

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/canonjson/canonfill"
)

// encoderLine is the line CaseHash digested before appendHashed: the
// reflective encoding/json Encoder's.
func encoderLine(t testing.TB, h *hashed) []byte {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(h); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hashStrings are the strings the random cases draw from: every escape
// encoding/json makes (quotes, backslashes, control bytes, HTML
// characters, invalid UTF-8, U+2028 and U+2029) beside plain text.
var hashStrings = []string{
	"", "a", "how often is the kettle descaled 7", `quo"te`, `back\slash`, "tab\tnl\nret\r", "\b\f\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "bad \xff\xfe utf8", "trunc \xe2\x82", "line\u2028para\u2029", "ünïcødé 日本語 😀", "a.md", "B.md",
}

func randStrings(r *rand.Rand) []string {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	ss := make([]string, 1+r.IntN(3))
	for i := range ss {
		ss[i] = hashStrings[r.IntN(len(hashStrings))]
	}
	return ss
}

func randBoolPtr(r *rand.Rand) *bool {
	if r.IntN(3) == 0 {
		return nil
	}
	b := r.IntN(2) == 0
	return &b
}

func randHashed(r *rand.Rand) hashed {
	s := func() string { return hashStrings[r.IntN(len(hashStrings))] }
	h := hashed{
		Query: s(), K: r.IntN(30) - 5, CaseSensitive: randBoolPtr(r), Markers: randStrings(r), Relevant: randStrings(r),
		Surface: s(), NoVitalZero: r.IntN(2) == 0, Turns: randStrings(r),
		Expect: assay.Expect{
			AnswerIncludes: randStrings(r), AnswerIncludesAny: randStrings(r), AnswerExcludes: randStrings(r),
			AnswerMatches: s(), CaseSensitive: randBoolPtr(r), Retrieves: randStrings(r), Cites: randStrings(r),
			CitesAny: randStrings(r), Cited: randStrings(r), CitedAny: randStrings(r), CitesOnlySurfaced: r.IntN(2) == 0,
			NoCitations: r.IntN(2) == 0, Refusal: randBoolPtr(r), CallsTool: randStrings(r), CallsAnyTool: r.IntN(2) == 0,
			NeverCalls: randStrings(r), StopsAtApproval: r.IntN(2) == 0, Outcome: s(), JSONSchema: s(),
			JSONSchemaPath: s(), MaxTurns: r.IntN(4) - 1,
		},
	}
	if r.IntN(2) == 0 {
		h.Judgments = map[string]int{}
		for range r.IntN(4) {
			h.Judgments[s()] = r.IntN(5) - 1
		}
	}
	if r.IntN(2) == 0 {
		h.Vars = map[string]string{}
		for range r.IntN(4) {
			h.Vars[s()] = s()
		}
	}
	if r.IntN(8) == 0 { // an Expect with every field empty: expect is {}
		h.Expect = assay.Expect{}
	}
	return h
}

// TestAppendHashedMatchesEncoder pins that the encoding without reflection
// is byte for byte the reflective one's, so that no case hash changes.
func TestAppendHashedMatchesEncoder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		h := randHashed(r)
		got, ok := appendHashed(nil, &h)
		if !ok {
			t.Fatalf("case %d: appendHashed declined a case without latency, tools, judge or nuggets", i)
		}
		if want := encoderLine(t, &h); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestAppendHashedDeclines pins the fallback: the fields appendHashed does
// not write make it decline, and CaseHash then still hashes the
// reflective encoding.
func TestAppendHashedDeclines(t *testing.T) {
	t.Parallel()
	ms := 3.5
	for name, e := range map[string]assay.Expect{
		"max_latency_ms": {MaxLatencyMs: &ms},
		"tools":          {Tools: &assay.ToolTrajectory{}},
		"judge":          {Judge: map[string]float64{"x": 0.5}},
		"nuggets":        {Nuggets: []assay.Nugget{{Text: "t"}}},
	} {
		h := hashed{Query: "q", Expect: e}
		if out, ok := appendHashed([]byte("x"), &h); ok || string(out) != "x" {
			t.Errorf("%s: appendHashed = %q, %v; want it to decline and append nothing", name, out, ok)
		}
		c := assay.Case{Query: "q", K: 10, Expect: e}
		if got, want := CaseHash(c, Options{}), "sha256:"; len(got) != len(want)+64 {
			t.Errorf("%s: CaseHash = %q", name, got)
		}
	}
}

// TestCaseHashAllocations pins the cut: hashing a plain case allocates
// only the returned string (the reflective encoding allocated more).
func TestCaseHashAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates (sync.Pool drops items)")
	}
	c := assay.Case{Query: "how often is the kettle descaled 0", Expect: assay.Expect{AnswerIncludes: []string{"month"}}}
	o := Options{K: 10}
	CaseHash(c, o)
	if n := testing.AllocsPerRun(200, func() { CaseHash(c, o) }); n > 1 {
		t.Errorf("CaseHash allocates %v times per case, want at most 1", n)
	}
}

func FuzzAppendHashed(f *testing.F) {
	f.Add("how often", "a.md", "month", "<&>", 10, true, uint8(0))
	f.Add("bad \xff", "\u2028", "\x00", `"\`, -1, false, uint8(255))
	f.Fuzz(func(t *testing.T, query, id, text, other string, k int, b bool, mask uint8) {
		h := hashed{Query: query, K: k, Surface: other}
		ss := []string{text, other, id}
		if mask&1 != 0 {
			h.CaseSensitive = &b
			h.Markers = ss
		}
		if mask&2 != 0 {
			h.Judgments = map[string]int{id: k, text: 1, other: 0}
			h.Vars = map[string]string{id: text, other: query}
		}
		if mask&4 != 0 {
			h.Relevant, h.Turns = ss, ss[1:]
		}
		if mask&8 != 0 {
			h.Expect = assay.Expect{AnswerIncludes: ss, AnswerMatches: text, Refusal: &b, Outcome: other, JSONSchema: id, MaxTurns: k}
		}
		if mask&16 != 0 {
			h.Expect.Cites, h.Expect.CitedAny, h.Expect.NeverCalls, h.Expect.CallsAnyTool = ss, ss[:1], ss[2:], b
		}
		got, ok := appendHashed(nil, &h)
		if !ok {
			t.Fatal("appendHashed declined")
		}
		if want := encoderLine(t, &h); !bytes.Equal(got, want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}

// TestAppendHashedWritesEveryField sets each field of the hashed form, and
// of its expectations, in turn (package canonfill): a field added to
// hashed or assay.Expect and not to appendHashed fails here instead of
// leaving two different cases with one hash.
func TestAppendHashedWritesEveryField(t *testing.T) {
	h := hashed{Query: "q", K: 10}
	written := 0
	canonfill.Each(&h, func(path string) {
		got, ok := appendHashed(nil, &h)
		if !ok {
			return
		}
		written++
		if want := encoderLine(t, &h); !bytes.Equal(got, want) {
			t.Errorf("%s set: appendHashed wrote\n%s\nthe encoder\n%s", path, got, want)
		}
	})
	if written < 20 {
		t.Errorf("appendHashed wrote %d of the forms with one field set; want most of them", written)
	}
}
