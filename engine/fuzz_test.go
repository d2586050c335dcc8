package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAnalyze: analysis never panics and yields valid, non-empty terms
// within the token length bound.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"real-time DEC-0054", "max_retry_count worker.pool.size", "東京の天気", "\xff\xfe", "l'homme d'état", "3.5,1,000", ""} {
		f.Add(s)
	}
	langs := []*Language{languages["en"], languages["de"], languages["fr"], languages["simple"]}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range langs {
			for _, tok := range l.Analyze(s) {
				if tok.Term == "" || !utf8.ValidString(tok.Term) || len(tok.Term) > 4*maxTokenBytes {
					t.Fatalf("%s: bad term %q from %q", l.Name, tok.Term, s)
				}
			}
		}
	})
}

// FuzzSplitSentences: splitting never panics, and every sentence is
// trimmed, non-empty text of the input's words.
func FuzzSplitSentences(f *testing.F) {
	for _, s := range []string{"One. Two! Three?", "e.g. Dr. Smith", "# H\n- a\n- b\n```\ncode\n```", "東京です。", "| a | b |", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sent := range SplitSentences(s) {
			if sent == "" || sent != strings.TrimSpace(sent) {
				t.Fatalf("bad sentence %q from %q", sent, s)
			}
		}
	})
}

// FuzzSearchAnswer: any query against a small index returns at most k
// results and an answer or a refusal, never a panic.
func FuzzSearchAnswer(f *testing.F) {
	ix, err := Build(lexicalCorpus, DefaultOptions())
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"real-time", "\x00", "数据库", "What is the capital of France?", strings.Repeat("a ", 500)} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, q string, k int) {
		k = k%50 + 1
		if k < 1 {
			k = 1
		}
		res := ix.Search(Query{Text: q, K: k})
		if len(res) > k {
			t.Fatalf("%d results for k=%d", len(res), k)
		}
		a := ix.Answer(Query{Text: q, K: k}, res)
		if a.Refused != (a.Text == RefusalText) || (!a.Refused && len(a.Sentences) == 0) {
			t.Fatalf("inconsistent answer %+v", a)
		}
	})
}
