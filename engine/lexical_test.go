package engine

import (
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// lexicalCorpus is a small original corpus with one document per token
// class the regression matrix exercises, and distractors for each.
var lexicalCorpus = []assay.Document{
	{ID: "realtime", Title: "Sync engine", Text: "The board uses a real-time channel to push multi-agent updates."},
	{ID: "real-estate", Title: "Offices", Text: "Real estate costs rose. The time to sign a lease was long."},
	{ID: "models", Title: "Model notes", Text: "We compared gpt-4 with a smaller model on recall."},
	{ID: "adr-54", Title: "DEC-0054 cache invalidation", Text: "Decision record for cache keys."},
	{ID: "adr-55", Title: "DEC-0055 retry budget", Text: "Decision record 0054 was superseded by this one for retries."},
	{ID: "config", Title: "Settings", Text: "Set max_retry_count in the worker config; see worker.pool.size for threads."},
	{ID: "retry-prose", Title: "Retrying", Text: "The count of retries is capped at five per worker."},
	{ID: "title-hit", Title: "Invitation tokens", Text: "How links are created and how long they last."},
	{ID: "body-hit", Title: "Email", Text: "Messages sometimes mention invitation tokens in passing, among many other words about email delivery, bounce handling and templates."},
	{ID: "docs/security/hashing.md", Title: "Hashing", Path: "docs/security/hashing.md", Text: "Passwords use argon2."},
	{ID: "mentions-path", Title: "Index", Text: "A page about security and other hashing topics."},
	{ID: "zh-hans", Title: "数据库", Text: "我们使用数据库连接池来提高性能。"},
	{ID: "zh-hant", Title: "資料庫", Text: "系統使用資料庫備份與還原。"},
	{ID: "ja", Title: "東京", Text: "東京の天気はとても良いです。カタカナのテストもあります。"},
	{ID: "ko", Title: "한국어", Text: "서울은 대한민국의 수도입니다."},
	{ID: "plain", Title: "Gardening", Text: "Tomatoes need sun and water."},
}

// TestLexicalMatrix is the regression matrix of analysis: one row per
// token class. Any later change to analysis first adds a row here.
func TestLexicalMatrix(t *testing.T) {
	t.Parallel()
	ix, err := Build(lexicalCorpus, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		query string
		want  string // top document; "" = no result at all
		// notIn are documents that must not be retrieved at all.
		notIn []string
	}{
		{name: "hyphen compound whole", query: "real-time", want: "realtime"},
		{name: "hyphen compound by parts", query: "real time channel", want: "realtime"},
		{name: "hyphen compound multi-agent", query: "multi-agent", want: "realtime"},
		{name: "hyphen compound with digit", query: "gpt-4", want: "models"},
		{name: "hyphen compound spaced", query: "gpt 4", want: "models"},
		{name: "digit-hyphen id whole beats its number", query: "DEC-0054", want: "adr-54"},
		{name: "digit-hyphen id lower case", query: "dec-0055", want: "adr-55"},
		{name: "digit-hyphen id by number", query: "0055", want: "adr-55", notIn: []string{"realtime"}},
		{name: "underscore identifier whole", query: "max_retry_count", want: "config"},
		{name: "underscore identifier by parts", query: "max retry count", want: "config"},
		{name: "dotted name whole", query: "worker.pool.size", want: "config"},
		{name: "dotted name part", query: "pool", want: "config"},
		{name: "title outranks body", query: "invitation tokens", want: "title-hit"},
		{name: "file path", query: "docs/security/hashing.md", want: "docs/security/hashing.md"},
		{name: "file name", query: "hashing.md", want: "docs/security/hashing.md"},
		{name: "stemmed plural", query: "tomato", want: "plain"},
		{name: "case folding", query: "TOMATOES", want: "plain"},
		{name: "simplified chinese", query: "数据库性能", want: "zh-hans", notIn: []string{"zh-hant"}},
		{name: "traditional chinese", query: "資料庫備份", want: "zh-hant", notIn: []string{"zh-hans"}},
		{name: "japanese kanji", query: "東京", want: "ja"},
		{name: "japanese kana", query: "カタカナ", want: "ja"},
		{name: "japanese mixed", query: "天気", want: "ja"},
		{name: "composed hangul", query: "서울", want: "ko"},
		{name: "decomposed hangul is composed by NFKC", query: "\u1109\u1165\u110b\u116e\u11af", want: "ko"},
		{name: "fullwidth latin folds", query: "ＴＯＭＡＴＯＥＳ", want: "plain"},
		{name: "control bytes", query: "\x00\x01\x02\x1b[31m", want: ""},
		{name: "invalid utf-8", query: "\xff\xfe\xfd", want: ""},
		{name: "invalid utf-8 around a word", query: "\xfftomatoes\xfe", want: "plain"},
		{name: "empty", query: "", want: ""},
		{name: "only stop words", query: "the and of to", want: ""},
		{name: "only punctuation", query: "?!...---///", want: ""},
		{name: "10000 unknown terms", query: strings.Repeat("zzyzx ", 10000), want: ""},
		{name: "10000 terms, one known", query: strings.Repeat("qwv ", 9999) + "tomatoes", want: "plain", notIn: []string{"realtime", "config"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ix.Search(Query{Text: tc.query, K: len(lexicalCorpus)})
			if tc.want == "" {
				if len(res) != 0 {
					t.Fatalf("got %d results (top %s), want none", len(res), res[0].ID)
				}
				return
			}
			if len(res) == 0 {
				t.Fatalf("no results, want %s first", tc.want)
			}
			if res[0].ID != tc.want {
				t.Errorf("top = %s (%.3f), want %s; ranking %v", res[0].ID, res[0].Score, tc.want, ids(res))
			}
			if len(res) == len(lexicalCorpus) {
				t.Errorf("query matched every document")
			}
			for _, bad := range tc.notIn {
				for _, r := range res {
					if r.ID == bad {
						t.Errorf("%s retrieved, want it absent", bad)
					}
				}
			}
		})
	}
}

// TestMalformedDocuments: documents with control bytes, invalid UTF-8 or
// nothing indexable are indexed without error, stay findable by their valid
// words, and do not match unrelated queries.
func TestMalformedDocuments(t *testing.T) {
	t.Parallel()
	docs := []assay.Document{
		{ID: "nul", Text: "alpha\x00beta\x1b[0m gamma"},
		{ID: "bad-utf8", Text: "\xffdelta\xfe epsilon \xc3"},
		{ID: "empty"},
		{ID: "punct", Text: "!!! ... --- ///"},
		{ID: "long", Text: strings.Repeat("z", 300) + " zeta"},
	}
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"beta": "nul", "gamma": "nul", "delta": "bad-utf8", "epsilon": "bad-utf8", "zeta": "long"} {
		res := ix.Search(Query{Text: q})
		if len(res) != 1 || res[0].ID != want {
			t.Errorf("%s: %v, want [%s]", q, ids(res), want)
		}
	}
	if res := ix.Search(Query{Text: strings.Repeat("z", 300)}); len(res) != 0 {
		t.Errorf("an over-long token matched: %v", ids(res))
	}
	if s := ix.Stats(); s.DocCount != 3 {
		t.Errorf("documents with terms = %d, want 3", s.DocCount)
	}
}

func ids(res []Result) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.ID
	}
	return out
}

func TestAnalyze(t *testing.T) {
	t.Parallel()
	en, _ := LookupLanguage("en")
	for _, tc := range []struct {
		in   string
		want string // terms joined by space; overlap terms marked with +
	}{
		{"Real-time sync", "real time +real-time sync"},
		{"DEC-0054", "dec 0054 +dec-0054"},
		{"max_retry_count", "max retri count +max_retry_count"},
		{"the model's results", "model result"},
		{"Running runners ran", "run runner ran"},
		{"3.5 percent", "3 5 +3.5 percent"},
		{"1,000 users", "1 000 +1,000 user"},
		{"a, b", "b"},
		{"東京都", "東京 京都"},
		{"日", "日"},
		{"don't", "don"},
		{"é", "é"},
		{"", ""},
	} {
		var got []string
		for _, tok := range en.Analyze(tc.in) {
			if tok.Overlap {
				got = append(got, "+"+tok.Term)
			} else {
				got = append(got, tok.Term)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("Analyze(%q) = %q, want %q", tc.in, g, tc.want)
		}
	}
}

func TestLookupLanguage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"en": "en", "English": "en", "de-CH": "de", "pt_BR": "pt", "french": "fr", "en-porter2": "en", "porter": "en-porter", "simple": "simple", "zh": "cjk", "ja-JP": "cjk"} {
		l, err := LookupLanguage(in)
		if err != nil || l.Name != want {
			t.Errorf("LookupLanguage(%q) = %v, %v; want %s", in, l, err, want)
		}
	}
	if _, err := LookupLanguage("klingon"); err == nil || !strings.Contains(err.Error(), "valid: cjk, de, en") {
		t.Errorf("LookupLanguage(klingon) error = %v, want the list of valid names", err)
	}
}
