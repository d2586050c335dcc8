package suite

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadLabelsJSONL(t *testing.T) {
	src := `{"case": "q1", "doc": "d3", "grade": 1, "labeller": "ana", "time": "2026-12-07T10:00:00Z", "query": "x"}

{"case": "q1", "doc": "d6", "grade": null, "labeller": ""}
{"case": 7, "doc": 4983, "grade": 0}
`
	got, unlabelled, err := ReadLabels("l.jsonl", strings.NewReader(src), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{
		{Case: "q1", Doc: "d3", Grade: 1, Labeller: "ana", Time: "2026-12-07T10:00:00Z", Line: 1},
		{Case: "7", Doc: "4983", Grade: 0, Line: 4},
	}
	if len(got) != len(want) || unlabelled != 1 {
		t.Fatalf("got %+v, %d unlabelled; want %+v, 1", got, unlabelled, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestReadLabelsErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`{"case": "q1", "doc": "d1", "grade": "high"}`, `l.jsonl:1: grade: want an integer such as 1, got "high"`},
		{"\n" + `{"case": "q1", "doc": "d1", "grade": 1.5}`, `l.jsonl:2: grade: want an integer such as 1, got 1.5`},
		{`{"doc": "d1", "grade": 1}`, `l.jsonl:1: case: missing`},
		{`{"case": "q1", "grade": 1}`, `l.jsonl:1: doc: missing`},
		{`{"case": "q1", "doc": "d1", "grade": 1, "time": "yesterday"}`, `l.jsonl:1: time: want an RFC 3339 time`},
		{`[1, 2]`, `l.jsonl:1:1: want a JSON object per line`},
		{`{"case": "q1", "doc": "d1", "grade": 1, "labeller": 3}`, `l.jsonl:1:`},
		{`{"case": "q1",`, `l.jsonl:1:`},
	} {
		_, _, err := ReadLabels("l.jsonl", strings.NewReader(tc.src), false)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want prefix %q", tc.src, err, tc.want)
		}
	}
}

func TestReadLabelsTSV(t *testing.T) {
	src := "grade\tdoc\tcase\tlabeller\n2\td5\tq2\tana\n\td6\tq2\t\n"
	got, unlabelled, err := ReadLabels("l.tsv", strings.NewReader(src), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || unlabelled != 1 || got[0] != (Label{Case: "q2", Doc: "d5", Grade: 2, Labeller: "ana", Line: 2}) {
		t.Fatalf("got %+v, %d unlabelled", got, unlabelled)
	}
	if _, _, err := ReadLabels("l.tsv", strings.NewReader("case\tdoc\nq1\td1\n"), true); err == nil || !strings.Contains(err.Error(), `no "grade" column`) {
		t.Errorf("header without grade: %v", err)
	}
	if _, _, err := ReadLabels("l.tsv", strings.NewReader("case\tdoc\tgrade\nq1\td1\tx\n"), true); err == nil || !strings.HasPrefix(err.Error(), "l.tsv:2: grade") {
		t.Errorf("bad grade: %v", err)
	}
}

func TestWriteLabelsReadsBack(t *testing.T) {
	in := []Label{{Case: "q1", Doc: "a \"b\" <c>", Grade: -1, Labeller: "ana", Time: "2026-12-07T10:00:00Z", Line: 1}}
	var b bytes.Buffer
	if err := WriteLabels(&b, in); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadLabels("x", &b, false)
	if err != nil || len(got) != 1 || got[0] != in[0] {
		t.Fatalf("read back %+v, %v; want %+v", got, err, in)
	}
}

// FuzzReadLabels: the labels reader (JSONL and TSV) never panics, and what
// it reads writes back and reads again the same.
func FuzzReadLabels(f *testing.F) {
	f.Add([]byte(`{"case": "q1", "doc": "d3", "grade": 1, "labeller": "ana", "time": "2026-12-07T10:00:00Z"}`), false)
	f.Add([]byte(`{"case": 1, "doc": 2, "grade": null}`+"\n"+`{"case": "q", "doc": "d", "grade": -2}`), false)
	f.Add([]byte(`{"case": "q1", "doc": "d3", "grade": 1e400}`), false)
	f.Add([]byte(`[[[[[[[[`), false)
	f.Add([]byte("case\tdoc\tgrade\nq1\td1\t2\n"), true)
	f.Add([]byte("grade\tcase\tdoc\ttime\n1\tq\td\tx\n"), true)
	f.Fuzz(func(t *testing.T, src []byte, tsv bool) {
		got, _, err := ReadLabels("f", bytes.NewReader(src), tsv)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WriteLabels(&b, got); err != nil {
			t.Fatal(err)
		}
		again, _, err := ReadLabels("f", &b, false)
		if err != nil {
			t.Fatalf("labels %+v written as %q do not read back: %v", got, b.String(), err)
		}
		if len(again) != len(got) {
			t.Fatalf("read back %d labels, want %d", len(again), len(got))
		}
		for i := range got {
			a, g := again[i], got[i]
			a.Line, g.Line = 0, 0
			if a != g {
				t.Fatalf("label %d read back %+v, want %+v", i, a, g)
			}
		}
	})
}
