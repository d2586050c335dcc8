package agreement

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadLabels(t *testing.T) {
	t.Parallel()
	in := `{"case": "q1", "criterion": "relevance", "label": true, "labeller": "ann", "time": "2026-12-01T10:00:00Z"}

{"case": "q2", "criterion": "relevance", "score": 0.25, "labeller": "ann", "time": ""}
{"case": "q3", "criterion": "relevance", "label": null, "labeller": "", "time": "", "query": "why?"}
`
	l, err := ReadLabels(strings.NewReader(in), "labels.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rows) != 2 || l.Unlabelled != 1 || l.Rows[1].Line != 3 || *l.Rows[1].Score != 0.25 {
		t.Fatalf("%+v", l)
	}
}

// TestReadLabelsErrorsArePositioned: each fault names the file, line and,
// where the decoder knows it, the column.
func TestReadLabelsErrorsArePositioned(t *testing.T) {
	t.Parallel()
	ok := `{"case": "q1", "criterion": "relevance", "label": true}` + "\n"
	for _, tc := range []struct{ in, want string }{
		{`{"case": "q1", "criterion": "relevance", "label": "yes"}`, `l.jsonl:1:55: field label: want true, false or null, got a JSON string`},
		{ok + `{"case": "q1", "criterion": "relevance", "label": tru}`, `l.jsonl:2:`},
		{`{"case": "q1", "criterion": "relevance", "lable": true}`, `l.jsonl:1: not a label`},
		{`{"criterion": "relevance", "label": true}`, `l.jsonl:1: no case id`},
		{`{"case": "q1", "label": true}`, `l.jsonl:1: no criterion`},
		{`{"case": "q1", "criterion": "r", "label": true, "score": 1}`, `l.jsonl:1: both label and score`},
		{`{"case": "q1", "criterion": "r", "score": 1e999}`, `l.jsonl:1:`},
		{`{"case": "q1", "criterion": "r", "label": true, "time": "yesterday"}`, `l.jsonl:1: time "yesterday": want RFC 3339`},
		{ok + ok, `l.jsonl:2: case "q1", criterion "relevance" labelled twice by "" (first on line 1)`},
		{`{"case": "q1", "criterion": "r", "label": true} {}`, `l.jsonl:1:49: more than one JSON value`},
		{`{"case": "q1", "criterion": "r", "label": true, "x": "` + strings.Repeat("a", MaxLabelLine) + `"}`, `l.jsonl:1: larger than the 1 MiB limit for a line`},
	} {
		_, err := ReadLabels(strings.NewReader(tc.in), "l.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%.60q: %v, want %s...", tc.in, err, tc.want)
		}
	}
}

// TestTemplateReadsBack: a template is a labels file with every row
// unlabelled, and never carries a score.
func TestTemplateReadsBack(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteTemplate(&b, []TemplateRow{{"q1", "relevance", "how?", "so."}, {"q1", "groundedness", "how?", "so."}}); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLabels(&b, "t")
	if err != nil || len(l.Rows) != 0 || l.Unlabelled != 2 {
		t.Fatalf("%+v %v\n%s", l, err, b.String())
	}
}

func FuzzReadLabels(f *testing.F) {
	f.Add([]byte(`{"case": "q1", "criterion": "relevance", "label": true, "labeller": "ann", "time": "2026-12-01T10:00:00Z"}` + "\n"))
	f.Add([]byte(`{"case": "q2", "criterion": "relevance", "score": 0.5}` + "\n" + `{"case": "q2", "criterion": "relevance", "label": null}`))
	f.Add([]byte("{\"case\": \"\\u0000\", \"criterion\": \"x\", \"label\": false}\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ReadLabels(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		for _, r := range l.Rows {
			if r.Case == "" || r.Criterion == "" || (r.Label == nil) == (r.Score == nil) {
				t.Fatalf("accepted a bad row %+v", r)
			}
		}
		if _, err := Compute(rubric, NewScores(nil), l, Options{Resamples: 10}); err != nil && !strings.HasPrefix(err.Error(), "f.jsonl:") {
			t.Fatalf("compute: %v", err)
		}
	})
}
