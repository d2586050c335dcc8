package target

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/target/targettest"
	"github.com/assay-eval/assay/trec"
)

const ragFile = `{"run_id": "r1", "topic_id": "2024-1", "topic": "how are tokens stored", "references": ["sec", "exp"], "response_length": 9, "answer": [{"text": "Tokens are hashed with SHA-256.", "citations": [0]}, {"text": "They expire.", "citations": [1, 0]}, {"text": "Ask an admin.", "citations": []}]}

{"metadata": {"team_id": "t", "run_id": "r1", "narrative_id": 7, "narrative": "東京について"}, "references": ["tokyo"], "answer": [{"text": "東京は日本の首都です。", "citations": [0]}]}
`

func TestTrecRAGReadsBothYears(t *testing.T) {
	t.Parallel()
	tg, err := Open("trecrag:"+writeFile(t, "a.jsonl", ragFile), Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := tg.Observe(context.Background(), assay.Case{ID: "2024-1"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Answer != "Tokens are hashed with SHA-256.\nThey expire.\nAsk an admin." {
		t.Errorf("answer %q", o.Answer)
	}
	if got := o.Ranking(); !reflect.DeepEqual(got, []string{"sec", "exp"}) {
		t.Errorf("ranking %v", got)
	}
	var cites [][]string
	for _, s := range grade.CitedSentences(o) {
		var keys []string
		for _, c := range s.Cites {
			keys = append(keys, c.Key)
		}
		cites = append(cites, keys)
	}
	if want := [][]string{{"sec"}, {"exp", "sec"}, nil}; !reflect.DeepEqual(cites, want) {
		t.Errorf("sentence citations %q, want %q", cites, want)
	}
	o, err = tg.Observe(context.Background(), assay.Case{ID: "7"})
	if err != nil || o.Answer != "東京は日本の首都です。" || len(o.Citations) != 1 {
		t.Errorf("2025 line: %+v, %v", o, err)
	}
	o, _ = tg.Observe(context.Background(), assay.Case{ID: "nope"})
	if o.Error == nil {
		if _, err := tg.Observe(context.Background(), assay.Case{ID: "nope"}); err == nil {
			t.Error("a topic without an answer is not an error")
		}
	}
	if d := tg.(*TrecRAG).Describe(); d.Kind != "trecrag" || d.Config["run_id"] != "r1" {
		t.Errorf("describe %+v", d)
	}
}

func TestTrecRAGErrorsArePositioned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"not JSON", "{\"topic_id\": \"1\"}\n{oops}\n", "a.jsonl:2:2: malformed answer line"},
		{"no topic", `{"references": []}`, "a.jsonl:1: answer line has no topic_id"},
		{"citation out of range", `{"topic_id": "1", "references": ["d"], "answer": [{"text": "x", "citations": [1]}]}`, `a.jsonl:1: topic "1": answer[0] cites 1, which is not an index into the 1 references (0 to 0)`},
		{"wrong type", `{"topic_id": "1", "references": "d"}`, "a.jsonl:1:"},
		{"bad id", `{"topic_id": 1.5}`, "a.jsonl:1: topic_id: want a string or an integer, got a number"},
		{"repeated topic", "{\"topic_id\": \"1\"}\n{\"topic_id\": 1}\n", `a.jsonl:2: topic_id "1" already has an answer at line 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenTrecRAG(writeFile(t, "a.jsonl", tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestTrecRAGRoundTrip: an answer written by RAGWriter from an observation
// (RAGAnswerOf) and read back (trecrag:) gives the same sentences, the same
// citations and the same attribution.
func TestTrecRAGRoundTrip(t *testing.T) {
	t.Parallel()
	obs := assay.Observation{
		Retrieved: []assay.Hit{
			{ID: "sec", Text: "Invitation tokens are hashed with SHA-256 before they are stored."},
			{ID: "exp", Text: "An invitation expires after seven days."},
			{ID: "tokyo", Text: "東京は日本の首都です。"},
		},
		Answer:    "Invitation tokens are hashed with SHA-256 [1]. They never expire [2, 1].\nThanks! 東京は日本の首都です。[3]",
		Citations: []assay.Citation{{ID: "other", Quote: "thanks", Start: new(int)}},
	}
	a := RAGAnswerOf("q1", "how are tokens stored?", "run-1", obs)
	var b strings.Builder
	w := trec.NewRAGWriter(&b)
	if err := w.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"run_id":"run-1","topic_id":"q1","topic":"how are tokens stored?","references":["sec","exp","tokyo","other"],"response_length":11,"answer":[{"text":"Invitation tokens are hashed with SHA-256.","citations":[0,3]},{"text":"They never expire.","citations":[1,0]},{"text":"Thanks!","citations":[]},{"text":"東京は日本の首都です。","citations":[2]}]}` + "\n"
	if b.String() != want {
		t.Errorf("line\n%s\nwant\n%s", b.String(), want)
	}
	var back trec.RAGAnswer
	if err := ReadTrecRAG(strings.NewReader(b.String()), "x", func(_ int, r trec.RAGAnswer) error { back = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, a) {
		t.Errorf("read back %+v\nwant %+v", back, a)
	}
	// The observation read back has the same attribution, sentence for
	// sentence, as the original (the quote of the unretrieved citation
	// aside: the format keeps only document ids).
	obs.Citations = nil
	orig, om := grade.Attribute(obs, "", nil)
	ro := RAGObservation(back)
	for i := range obs.Retrieved {
		ro.Retrieved[i].Text = obs.Retrieved[i].Text
	}
	ro.Citations = ro.Citations[:0:0]
	for _, c := range RAGObservation(back).Citations {
		if c.ID != "other" {
			ro.Citations = append(ro.Citations, c)
		}
	}
	got, gm := grade.Attribute(ro, "", nil)
	if !reflect.DeepEqual(got, orig) || !reflect.DeepEqual(gm, om) {
		t.Errorf("attribution after the round trip\n%+v %v\nwant\n%+v %v", got, gm, orig, om)
	}
}

func TestRAGWriterRefusesBadCitations(t *testing.T) {
	t.Parallel()
	w := trec.NewRAGWriter(&strings.Builder{})
	err := w.Add(trec.RAGAnswer{TopicID: "q", References: []string{"a"}, Answer: []trec.RAGSentence{{Text: "x", Citations: []int{2}}}})
	if err == nil || !strings.Contains(err.Error(), "cites 2") {
		t.Fatalf("error %v", err)
	}
	if err := w.Add(trec.RAGAnswer{}); err == nil || errors.Unwrap(err) == nil {
		t.Fatalf("empty topic_id: %v", err)
	}
}

// FuzzReadTrecRAG: any input reads without panicking; every answer read
// passes Check and gives an observation whose citations lie inside its
// answer.
func FuzzReadTrecRAG(f *testing.F) {
	for _, s := range strings.Split(ragFile, "\n") {
		f.Add(s)
	}
	f.Add(`{"topic_id": "1", "references": ["a"], "answer": [{"text": "a\nb", "citations": [0, 0]}]}`)
	f.Add(`{"topic_id": 12345678901234567890}`)
	f.Add(`[[[[[[[[[[`)
	f.Fuzz(func(t *testing.T, s string) {
		_ = ReadTrecRAG(strings.NewReader(s), "f", func(_ int, a trec.RAGAnswer) error {
			if err := a.Check(); err != nil {
				t.Fatalf("read an answer that fails Check: %v", err)
			}
			o := RAGObservation(a)
			n := len([]rune(o.Answer))
			for _, c := range o.Citations {
				if *c.Start < 0 || *c.End > n || *c.Start > *c.End {
					t.Fatalf("citation [%d, %d) outside an answer of %d code points", *c.Start, *c.End, n)
				}
			}
			grade.Attribute(o, "", nil)
			return nil
		})
	})
}

// TestConformanceTrecRAG: a TREC RAG answer file written (RAGAnswerOf,
// RAGWriter) from the reference system's answers passes the target
// conformance suite.
func TestConformanceTrecRAG(t *testing.T) {
	t.Parallel()
	s := targettest.Suite()
	var b strings.Builder
	w := trec.NewRAGWriter(&b)
	for _, c := range s.Cases {
		if err := w.Add(RAGAnswerOf(c.ID, c.Query, "conformance", targettest.Answer(s, c.Query, 3))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, "answers.jsonl", b.String())
	targettest.Run(t, func(t *testing.T, s *assay.Suite) assay.Target {
		return mustOpen(t, "trecrag:"+p, Options{Suite: s})
	}, targettest.Config{})
}
