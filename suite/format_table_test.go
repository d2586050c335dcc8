package suite

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

func TestParseMap(t *testing.T) {
	m, err := ParseMap("query=question, expect.answer_includes=answer,tags.topic=cat,expect.refusal=r")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"query": "question", "expect.answer_includes": "answer", "tags.topic": "cat", "expect.refusal": "r"}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("ParseMap = %v, want %v", m, want)
	}
	for in, msg := range map[string]string{
		"qury=q":           `unknown target "qury"`,
		"query":            `"query": want target=column`,
		"query=a,query=b":  `target "query" mapped twice`,
		"tags.=x":          `unknown target "tags."`,
		"expect.cite=docs": "did you mean expect.cites?",
	} {
		if _, err := ParseMap(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseMap(%q) = %v, want an error with %q", in, err, msg)
		}
	}
}

func loadTableString(t *testing.T, name, data string, asCSV bool, o LoadOptions, to tableOptions) (*assay.Suite, error) {
	t.Helper()
	return loadTable(name, []byte(data), asCSV, o, to)
}

func TestLoadTableCSVMapping(t *testing.T) {
	data := "id,question,must,any,never,lang,refuse,docs\n" +
		"q1,What hash?,SHA-256; salt ,,md5,en,,a.md;b.md\n" +
		"\n" +
		"q2,\"Who, exactly?\",,\"[\"\"x\"\", \"\"y;z\"\"]\",,,YES,\n"
	o := LoadOptions{Map: map[string]string{"query": "question", "expect.answer_includes": "must", "expect.answer_includes_any": "any",
		"expect.answer_excludes": "never", "expect.refuse": "refuse", "relevant": "docs"}}
	s, err := loadTableString(t, "g.csv", data, true, o, tableOptions{format: FormatCSV, defaults: tableDefaults})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := []assay.Case{
		{ID: "q1", Query: "What hash?", Source: "g.csv:2", Tags: map[string]string{"lang": "en"}, Judgments: map[string]int{"a.md": 1, "b.md": 1},
			Expect: assay.Expect{AnswerIncludes: []string{"SHA-256", "salt"}, AnswerExcludes: []string{"md5"}}},
		{ID: "q2", Query: "Who, exactly?", Source: "g.csv:4",
			Expect: assay.Expect{AnswerIncludesAny: []string{"x", "y;z"}, Refusal: &yes}},
	}
	if !reflect.DeepEqual(s.Cases, want) {
		t.Fatalf("cases:\n got %+v\nwant %+v", s.Cases, want)
	}
	if s.Format != FormatCSV || len(s.Corpus) != 0 {
		t.Fatalf("suite %q format %q corpus %d", s.Name, s.Format, len(s.Corpus))
	}
}

func TestLoadTableErrorsArePositioned(t *testing.T) {
	csvOpts := tableOptions{format: FormatCSV, defaults: tableDefaults}
	for _, tc := range []struct {
		name, data string
		csv        bool
		m          map[string]string
		want       string
	}{
		{"missing column", "id,q\n1,x\n", true, map[string]string{"query": "question"}, `t:1: mapping query=question: no column "question" (columns: id, q)`},
		{"no query column", "id,q\n1,x\n", true, nil, `t:1: no column query for the query: map one with query=COLUMN (columns: id, q)`},
		{"empty query", "id,query\n1,x\n2,\n", true, nil, `t:3: case "2" has no query (column "query")`},
		{"duplicate id", "id,query\na,x\na,y\n", true, nil, `t:3: duplicate case id "a" (first at line 2)`},
		{"bad bool", "query,r\nx,maybe\n", true, map[string]string{"expect.refuse": "r"}, `t:2: expect.refuse (column "r"): want true or false, got "maybe"`},
		{"bad quote", "query\n\"x\n", true, nil, `t:2:4: extraneous or missing " in quoted-field`},
		{"field count", "query,b\nx\n", true, nil, `t:2:1: wrong number of fields`},
		{"duplicate header", "query,query\nx,y\n", true, nil, `t:1:2: column "query" appears twice in the header`},
		{"jsonl not object", "{\"query\": \"x\"}\n[1]\n", false, nil, `t:2:1: want a JSON object, got a list`},
		{"jsonl syntax", "{\"query\": \"x\"}\n{\"query\": }\n", false, nil, `t:2:11: invalid character '}' looking for beginning of value`},
		{"jsonl object for string", "{\"query\": {\"a\": 1}}\n", false, nil, `t:1: query (column "query"): want a string, got an object`},
		{"jsonl list item", "{\"query\": \"x\", \"m\": [[1]]}\n", false, map[string]string{"expect.answer_includes": "m"}, `t:1: expect.answer_includes (column "m"): want a list of strings, got an item that is a list`},
		{"array item", "[\n {\"query\": \"x\"},\n 7\n]\n", false, nil, `t:3:2: want an object for each item, got a number`},
		{"array syntax", "[\n {\"query\": \"x\"},\n {\"query\" 1}\n]\n", false, nil, `t:3:11: invalid character '1' after object key`},
		{"array trailing", "[{\"query\": \"x\"}] {}", false, nil, `t:1:18: more after the closing ]`},
		{"no records", "query\n", true, nil, `t: no records`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadTableString(t, "t", tc.data, tc.csv, LoadOptions{Map: tc.m}, csvOpts)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestLoadDeepEvalFixture(t *testing.T) {
	s, err := LoadFormat(FormatDeepEval, filepath.Join("testdata", "import", "deepeval.json"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 || s.CorpusSource != "inline" || len(s.Corpus) != 2 {
		t.Fatalf("%d cases, corpus %q with %d documents", len(s.Cases), s.CorpusSource, len(s.Corpus))
	}
	c := s.Cases[0]
	if c.ID != "refund-policy" || c.Query != "How long do I have to ask for a refund?" || len(c.Judgments) != 2 ||
		!reflect.DeepEqual(c.Expect.CallsTool, []string{"search_docs", "lookup_order"}) ||
		len(c.Expect.Nuggets) != 1 || c.Expect.Nuggets[0].Text != "30 days" {
		t.Fatalf("case 1 = %+v", c)
	}
	// The context both goldens share is one document, judged for both.
	c2 := s.Cases[1]
	if c2.ID != "2" || len(c2.Judgments) != 1 || c2.Expect.Nuggets != nil {
		t.Fatalf("case 2 = %+v", c2)
	}
	for id := range c2.Judgments {
		if c.Judgments[id] != 1 || !strings.HasPrefix(id, "ctx-") || len(id) != len("ctx-")+12 {
			t.Fatalf("shared context %q not one document: %v", id, c.Judgments)
		}
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "columns actual_output, retrieval_context are not imported") {
		t.Fatalf("warnings %q", s.Warnings)
	}
}

func TestLoadPromptfooAssertions(t *testing.T) {
	s, err := LoadFormat(FormatPromptfoo, filepath.Join("testdata", "import", "promptfoo.yaml"), LoadOptions{Map: map[string]string{"query": "question"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 {
		t.Fatalf("%d cases", len(s.Cases))
	}
	c := s.Cases[0]
	want := assay.Expect{
		AnswerIncludes:    []string{"30 days"},
		AnswerIncludesAny: []string{"refund", "money back"},
		AnswerExcludes:    []string{"as an AI"},
		AnswerMatches:     `^You \(have\)`,
	}
	if c.ID != "window" || c.Guards != "window" || c.Tags["topic"] != "billing" || c.Vars["tone"] != "formal" || !reflect.DeepEqual(c.Expect, want) {
		t.Fatalf("case 1 = %+v\nexpect %+v", c, c.Expect)
	}
	c2 := s.Cases[1]
	yes := true
	want2 := assay.Expect{AnswerIncludes: []string{"four", "4"}, AnswerMatches: `^4$`, JSONSchema: AnyJSONSchema}
	if c2.ID != "2" || c2.Vars["n"] != "4" || c2.Vars["list"] != "" {
		t.Fatalf("case 2 = %+v", c2)
	}
	// The default not-icontains is case-insensitive, contains-all is not:
	// the case-sensitive one gives way.
	if !reflect.DeepEqual(c2.Expect, assay.Expect{AnswerExcludes: []string{"as an AI"}, AnswerMatches: `^4$`, JSONSchema: AnyJSONSchema}) {
		t.Fatalf("case 2 expect = %+v (not %+v, %v)", c2.Expect, want2, yes)
	}
	got := strings.Join(s.Warnings, "\n")
	for _, w := range []string{
		"var list is not a string: not imported",
		"6 promptfoo assertion(s) not imported: 1 contains (case-sensitive beside case-insensitive in one test), 1 contains-all (case-sensitive beside case-insensitive in one test), 1 equals (a second regex, equals or starts-with in one test), 1 icontains-any (a second contains-any in one test), 1 llm-rubric, 1 not-regex",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings lack %q:\n%s", w, got)
		}
	}
}

func TestLoadPromptfooErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ name, data, want string }{
		{"no-query.yaml", "- vars: {q: x}\n", `no-query.yaml:1: test 1 has no var "query" for the query (vars: q): name it with --map query=VAR`},
		{"list-query.yaml", "- vars:\n    query: [a, b]\n", `list-query.yaml:1: test 1: var query: want one string`},
		{"scalar.yaml", "hello\n", `scalar.yaml:1:1: want a list of tests (promptfoo's vars and assert)`},
		{"no-tests.yaml", "prompts: [x]\n", `no-tests.yaml:1:1: no tests: a promptfooconfig lists its tests under tests:`},
		{"missing-ref.yaml", "tests: file://nope.csv\n", `nope.csv: no such file or directory`},
		{"bad.yaml", "- vars: {query: [x\n", `bad.yaml:1:`},
		{"script-var.yaml", "- vars: {query: file://q.py}\n", `script-var.yaml:1: test 1: var query: file://q.py: only a text file is read`},
		{"missing-var.yaml", "- vars: {query: file://none.txt}\n", `missing-var.yaml:1: test 1: var query: file://none.txt: no such file or directory`},
	} {
		_, err := LoadFormat(FormatPromptfoo, write(tc.name, tc.data), LoadOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.want)) && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %s", tc.name, err, tc.want)
		}
	}
}

func TestLoadPromptfooVarFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "q"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "q", "long.txt"), []byte("  What does the\nlong policy say?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "tests.yaml")
	if err := os.WriteFile(p, []byte("- vars: {query: file://q/long.txt}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFormat(FormatPromptfoo, p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Cases[0].Query; got != "What does the\nlong policy say?" {
		t.Fatalf("query %q", got)
	}
}

func FuzzLoadTable(f *testing.F) {
	f.Add([]byte("id,query,must\n1,x,a;b\n"), true)
	f.Add([]byte("{\"query\": \"x\", \"must\": [\"a\"], \"n\": {\"t\": [\"b\"]}}\n"), false)
	f.Add([]byte("[{\"query\": \"x\", \"ctx\": [\"c\"]}]"), false)
	o := LoadOptions{Map: map[string]string{"expect.answer_includes": "must", "contexts": "ctx"}}
	f.Fuzz(func(t *testing.T, data []byte, asCSV bool) {
		for _, to := range []tableOptions{{format: FormatJSONL, defaults: tableDefaults}, ragasTable, deepevalTable} {
			s, err := loadTable(fuzzPath, data, asCSV, o, to)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				continue
			}
			seen := map[string]bool{}
			for _, c := range s.Cases {
				if c.ID == "" || strings.TrimSpace(c.Query) == "" || seen[c.ID] {
					t.Fatalf("loaded a bad case %+v", c)
				}
				seen[c.ID] = true
			}
		}
	})
}

func FuzzLoadPromptfoo(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "import", "promptfoo.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("- vars: {query: x}\n  assert: [{type: contains, value: y}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := loadPromptfoo(fuzzPath, data, LoadOptions{})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		for _, c := range s.Cases {
			if c.ID == "" || strings.TrimSpace(c.Query) == "" {
				t.Fatalf("loaded a bad case %+v", c)
			}
		}
	})
}
