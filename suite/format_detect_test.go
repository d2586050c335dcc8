package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectFormatByShape(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		// Shapes under names that say nothing about them.
		"a.json":              `[{"id": "1", "query": "q", "judgments": [{"docid": "x", "relevance": 1}]}]`,
		"b.json":              `[{"id": "1", "query": "q", "relevantDocs": ["x"], "category": "entity"}]`,
		"c.json":              `[{"id": "1", "question": "q?", "expectedTopics": ["t"]}]`,
		"d.json":              "\ufeff" + `{"questions": [], "corpus": []}`,
		"e.yaml":              "- id: a\n  query: q\n  must_contain: [x]\n",
		"f.txt":               "1 0 doc1 1\n1 0 doc2 0\n",
		"native.yaml":         "assay: 1\ncases:\n  - id: a\n    query: q\n",
		"native.json":         `{"assay": 1, "questions": [], "corpus": []}`,
		"list.json":           `[1, 2, 3]`,
		"empty.json":          `[]`,
		"other.yaml":          "- just\n- strings\n",
		"map.yaml":            "id: a\nquery: q\n",
		"broken.json":         `[{"id": "1", "query": "q", "relevantDocs": ["x"]}, {`,
		"three.txt":           "1 doc1 1\n",
		"beir/queries.jsonl":  `{"_id": "1", "text": "q"}` + "\n",
		"beir/qrels/test.tsv": "1\td\t1\n",
		"trec/qrels.robust":   "1 0 d 1\n",
		"trec/topics.301-350": "<top><num> 1 <title> q </top>\n",
		"notrec/qrels":        "1 0 d 1\n",
		"cran/cran.all.1400":  ".I 1\n.W\nx\n",
		"cran/cran.qry":       ".I 1\n.W\nx\n",
		"cran/cranqrel":       "1 1 1\n",
	})
	for _, tc := range []struct{ path, want string }{
		{"a.json", FormatGNO},
		{"b.json", FormatGNO}, // gno-adversarial is read by the gno loader
		{"c.json", FormatGNOAsk},
		{"d.json", FormatKnowlex},
		{"e.yaml", FormatKebab},
		{"f.txt", FormatTREC},
		{"native.yaml", ""},
		{"native.json", ""},
		{"list.json", ""},
		{"empty.json", ""},
		{"other.yaml", ""},
		{"map.yaml", ""},
		{"broken.json", FormatGNO},
		{"three.txt", ""},
		{"missing.json", ""},
		{"beir", FormatBEIR},
		{"trec", FormatTREC},
		{"notrec", ""},
		{"cran", FormatCranfield},
		{".", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := filepath.Join(dir, tc.path)
			if got := DetectFormat(p); got != tc.want {
				t.Errorf("DetectFormat = %q, want %q", got, tc.want)
			}
			if k := kindOf(p); (k.foreign != "") != (tc.want != "") || k.jsonl {
				t.Errorf("kindOf = %+v, want foreign %v", k, tc.want != "")
			}
		})
	}
}

func TestLoadFormatErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format string
		files        map[string]string
		src          string
		want         string // the error with the temporary directory replaced by DIR
	}{
		{"gno syntax", FormatGNO, map[string]string{"q.json": "[\n  {\"id\": \"a\", \"query\": \"x\",}\n]"}, "q.json",
			`DIR/q.json:2:28: invalid character '}' looking for beginning of object key string`},
		{"gno missing id", FormatGNO, map[string]string{"q.json": "[\n  {\"query\": \"x\", \"relevantDocs\": [\"d\"]}\n]"}, "q.json",
			`DIR/q.json:2:3: case is missing "id"`},
		{"gno missing query", FormatGNO, map[string]string{"q.json": "[\n  {\"id\": \"a\", \"relevantDocs\": [\"d\"]}\n]"}, "q.json",
			`DIR/q.json:2:3: case is missing "query"`},
		{"gno duplicate id", FormatGNO, map[string]string{"q.json": "[\n  {\"id\": \"a\", \"query\": \"x\"},\n  {\"id\": \"a\", \"query\": \"y\"}\n]"}, "q.json",
			`DIR/q.json:3:3: duplicate case id "a" (first at line 2)`},
		{"gno wrong type", FormatGNO, map[string]string{"q.json": "[\n  {\"id\": \"a\", \"query\": \"x\",\n   \"judgments\": [{\"docid\": \"d\", \"relevance\": \"high\"}]}\n]"}, "q.json",
			`DIR/q.json:3:46: field "judgments.relevance": want an integer, got string`},
		{"gno not a list item", FormatGNO, map[string]string{"q.json": "[\"a\"]"}, "q.json",
			`DIR/q.json:1:2: want an object for each case`},
		{"gno object", FormatGNO, map[string]string{"q.json": "{}"}, "q.json",
			`DIR/q.json:1:1: want a JSON array`},
		{"gno empty", FormatGNO, map[string]string{"q.json": "[]"}, "q.json",
			`DIR/q.json:1:1: no cases`},
		{"gno truncated", FormatGNO, map[string]string{"q.json": "[\n  {\"id\": \"a\""}, "q.json",
			`DIR/q.json:2:13: unexpected end of JSON input`},
		{"ask missing question", FormatGNOAsk, map[string]string{"a.json": "[{\"id\": \"a\", \"expectedTopics\": [\"t\"]}]"}, "a.json",
			`DIR/a.json:1:2: case is missing "question"`},
		{"knowlex missing corpus", FormatKnowlex, map[string]string{"k.json": "{\"questions\": []}"}, "k.json",
			`DIR/k.json:1:1: missing "corpus"`},
		{"knowlex duplicate title", FormatKnowlex, map[string]string{"k.json": "{\"corpus\": [\n {\"title\": \"A\", \"content\": \"x\"},\n {\"title\": \"A\", \"content\": \"y\"}],\n \"questions\": []}"}, "k.json",
			`DIR/k.json:3:2: duplicate corpus title "A"`},
		{"knowlex bad threshold", FormatKnowlex, map[string]string{"k.json": "{\"thresholds\": {\"minPassRate\": \"high\"}, \"corpus\": [], \"questions\": []}"}, "k.json",
			`DIR/k.json:1:32: value: want a number, got string`},
		{"knowlex no questions", FormatKnowlex, map[string]string{"k.json": "{\"corpus\": [],\n \"questions\": []}"}, "k.json",
			`DIR/k.json:2:15: no questions`},
		{"knowlex duplicate key", FormatKnowlex, map[string]string{"k.json": "{\"corpus\": [],\n \"corpus\": []}"}, "k.json",
			`DIR/k.json:2:2: duplicate key "corpus"`},
		{"kebab not a list", FormatKebab, map[string]string{"k.yaml": "id: a\n"}, "k.yaml",
			`DIR/k.yaml:1:1: want a top-level list of queries (the kebab format)`},
		{"kebab missing query", FormatKebab, map[string]string{"k.yaml": "- id: a\n  lang: en\n"}, "k.yaml",
			`DIR/k.yaml:1:3: entry "a" is missing "query"`},
		{"kebab duplicate id", FormatKebab, map[string]string{"k.yaml": "- id: a\n  query: x\n- id: a\n  query: y\n"}, "k.yaml",
			`DIR/k.yaml:3:3: duplicate case id "a" (first at line 1)`},
		{"kebab wrong type", FormatKebab, map[string]string{"k.yaml": "- id: a\n  query: x\n  must_contain: {a: b}\n"}, "k.yaml",
			`DIR/k.yaml:3:17: must_contain: want a list of strings, got a mapping`},
		{"kebab scalar for list", FormatKebab, map[string]string{"k.yaml": "- id: a\n  query: x\n  lang: [en]\n"}, "k.yaml",
			`DIR/k.yaml:3:9: lang: want a string, got a list`},
		{"kebab syntax", FormatKebab, map[string]string{"k.yaml": "- id: a\n  query: [x\n"}, "k.yaml",
			`DIR/k.yaml:2:10: sequence end token ']' not found`},
		{"beir missing split", FormatBEIR, map[string]string{"b/queries.jsonl": "", "b/qrels/train.tsv": ""}, "b",
			`DIR/b: no qrels for split "test" (have: train)`},
		{"beir bad score", FormatBEIR, map[string]string{"b/queries.jsonl": "", "b/qrels/test.tsv": "query-id\tcorpus-id\tscore\n1\td\thigh\n"}, "b",
			`DIR/b/qrels/test.tsv:2: score "high" is not an integer`},
		{"beir bad query line", FormatBEIR, map[string]string{"b/queries.jsonl": "{\"_id\": \"1\", \"text\": \"a\"}\n{\"_id\": 1, \"text\": [}\n", "b/qrels/test.tsv": "1\td\t1\n"}, "b",
			`DIR/b/queries.jsonl:2:21: invalid character '}' looking for beginning of value`},
		{"beir no judged query", FormatBEIR, map[string]string{"b/queries.jsonl": "{\"_id\": \"1\", \"text\": \"a\"}\n", "b/qrels/test.tsv": "2\td\t1\n"}, "b",
			`DIR/b: no query of queries.jsonl has judgments in split "test"`},
		{"beir no corpus", FormatBEIR, map[string]string{"b/queries.jsonl": "{\"_id\": \"1\", \"text\": \"a\"}\n", "b/qrels/test.tsv": "1\td\t1\n"}, "b",
			`DIR/b: no corpus.jsonl or corpus.jsonl.gz`},
		{"trec no topics", FormatTREC, map[string]string{"t/qrels": "1 0 d 1\n"}, "t/qrels",
			`DIR/t: no topics file beside the qrels (want one of topics, topics.*, *.topics, queries.tsv, queries.txt)`},
		{"trec bad qrels", FormatTREC, map[string]string{"t/qrels": "1 0 d 1\n1 0 d\n", "t/topics.tsv": "1\tq\n"}, "t/qrels",
			`DIR/t/qrels:2: want "qid iter docno rel", got 3 fields`},
		{"trec topic without title", FormatTREC, map[string]string{"t/qrels": "1 0 d 1\n", "t/topics": "\n<top>\n<num> 1\n</top>\n"}, "t/qrels",
			`DIR/t/topics:2: topic 1 without <title>`},
		{"trec duplicate topic", FormatTREC, map[string]string{"t/qrels": "1 0 d 1\n", "t/topics": "1\ta\n1\tb\n"}, "t",
			`DIR/t/topics:2: duplicate topic "1" (first at line 1)`},
		{"cranfield missing qrels", FormatCranfield, map[string]string{"c/cran.all.1400": "", "c/cran.qry": ""}, "c",
			`DIR/c/cranqrel: no such file or directory`},
		{"not a dir", FormatBEIR, map[string]string{"x.json": "[]"}, "x.json",
			`DIR/x.json: not a directory; a BEIR dataset is a directory with corpus.jsonl(.gz), queries.jsonl and qrels/`},
		{"a dir for a file format", FormatKnowlex, map[string]string{"d/x": ""}, "d",
			`DIR/d: is a directory; the knowlex format is a file`},
		{"unknown format", "trulens", map[string]string{"x": ""}, "x",
			`unknown format "trulens" (want one of gno, gno-ask, gno-bench, kebab, knowlex, beir, trec, cranfield, nuggets, csv, jsonl, ragas, deepeval, promptfoo)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := LoadFormat(tc.format, filepath.Join(dir, tc.src), LoadOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			got := strings.ReplaceAll(err.Error(), dir, "DIR")
			if got != tc.want {
				t.Errorf("error\n got %s\nwant %s", got, tc.want)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("error spans several lines: %q", got)
			}
		})
	}
}

func TestFormatLoadWarnings(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"q.json": "[\n  {\"id\": \"a\", \"query\": \"x\", \"relevantDocs\": [\"d\"], \"extra\": 1}\n]",
		"k.json": "{\"corpus\": [{\"title\": \"A\", \"content\": \"x\"}],\n \"thresholds\": {\"maxErrors\": 2},\n \"questions\": [{\"id\": \"q\", \"question\": \"?\", \"expectedDocumentTitle\": \"B\"}]}",
	})
	s, err := Load(filepath.Join(dir, "q.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		dir + `/q.json:2: unknown field "extra" ignored`,
		`no corpus/ directory beside the file: the suite has no corpus (reference checks and the builtin target need one)`,
	}
	if strings.Join(s.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(s.Warnings, "\n"), strings.Join(want, "\n"))
	}
	s, err = Load(filepath.Join(dir, "k.json"))
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		dir + `/k.json:2: unknown threshold "maxErrors" ignored`,
		dir + `/k.json:3: question "q": expectedDocumentTitle "B" is not a corpus title`,
	}
	if strings.Join(s.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(s.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestFormatBEIRSplit(t *testing.T) {
	t.Parallel()
	s, err := LoadWith(filepath.Join("testdata", "formats", "beir"), LoadOptions{Split: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 1 || s.Cases[0].ID != "q2" || s.Cases[0].Judgments["d2"] != 1 {
		t.Errorf("dev split: got cases %+v, want only q2 judging d2", s.Cases)
	}
	if s.Defaults.K != BEIRK || s.Metrics[len(s.Metrics)-1] != "recall@1000" {
		t.Errorf("k = %d, metrics = %v", s.Defaults.K, s.Metrics)
	}
}
