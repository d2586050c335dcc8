package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSuite writes files (name -> content) into a fresh directory and
// returns the directory. The suite file is "s.yaml" unless named otherwise.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadIn loads name from dir with dir as the working directory, so that
// positions name the file as the user typed it.
func loadIn(t *testing.T, dir, name string) error {
	t.Helper()
	t.Chdir(dir)
	_, err := Load(name)
	return err
}

func TestLoadRejectsBadSuites(t *testing.T) {
	tests := []struct {
		name  string
		file  string // suite file name; "s.yaml" when empty
		src   string
		extra map[string]string
		want  string // the whole one-line error
	}{
		{
			name: "unknown top-level field suggests the nearest",
			src:  "assay: 1\nnmae: kb\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:1: unknown field "nmae" (did you mean "name"?)`,
		},
		{
			name: "unknown expect field suggests the nearest",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      answer_include: [sha-256]\n",
			want: `s.yaml:6:7: unknown field "answer_include" (did you mean "answer_includes"?)`,
		},
		{
			name: "unknown field far from any known has no suggestion",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    zzzzzz: 1\n",
			want: `s.yaml:5:5: unknown field "zzzzzz"`,
		},
		{
			name: "expectation written on the case says where it belongs",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    answer_includes: [x]\n",
			want: `s.yaml:5:5: unknown field "answer_includes" ("answer_includes" is an expectation: put it under "expect:")`,
		},
		{
			name: "case field under expect says where it belongs",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      relevant: [x]\n",
			want: `s.yaml:6:7: unknown field "relevant" ("relevant" belongs to the case, not under "expect:")`,
		},
		{
			name: "wrong type for k",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    k: ten\n    relevant: [x]\n",
			want: `s.yaml:5:8: k: want an integer, got a string "ten"`,
		},
		{
			name: "trailing spaces after a value do not move its column",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    k: ten  \n    relevant: [x]\n",
			want: `s.yaml:5:8: k: want an integer, got a string "ten"`,
		},
		{
			name: "k too large for any integer is out of range, not a string",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    k: 99999999999999999999\n    relevant: [x]\n",
			want: `s.yaml:5:8: k: 99999999999999999999 is out of range`,
		},
		{
			name: "a quoted number is a string",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    k: \"99999999999999999999\"\n    relevant: [x]\n",
			want: `s.yaml:5:8: k: want an integer, got a string "99999999999999999999"`,
		},
		{
			name: "wrong type for tags",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    tags: [en]\n    relevant: [x]\n",
			want: `s.yaml:5:11: tags: want a mapping, got a sequence`,
		},
		{
			name: "wrong type for a boolean expectation",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    expect: {no_citations: \"yes\"}\n",
			want: `s.yaml:5:28: no_citations: want true or false, got a string "yes"`,
		},
		{
			name: "wrong type for query",
			src:  "assay: 1\ncases:\n  - id: a\n    query: {text: q}\n    relevant: [x]\n",
			want: `s.yaml:4:12: query: want a string, got a mapping`,
		},
		{
			name: "cases not a list",
			src:  "assay: 1\ncases: {a: 1}\n",
			want: `s.yaml:2:8: cases: want a list of cases, got a mapping`,
		},
		{
			name: "duplicate case ids",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    relevant: [x]\n  - id: a\n    query: r\n    relevant: [x]\n",
			want: `s.yaml:6:9: duplicate case id "a" (first at line 3)`,
		},
		{
			name: "missing id",
			src:  "assay: 1\ncases:\n  - query: q\n    relevant: [x]\n",
			want: `s.yaml:3:5: case 1 has no "id"`,
		},
		{
			name: "missing query",
			src:  "assay: 1\ncases:\n  - id: a\n    relevant: [x]\n",
			want: `s.yaml:3:5: case "a" has no "query"`,
		},
		{
			name: "invalid regexp",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      answer_matches: '(sha'\n",
			want: "s.yaml:6:23: answer_matches: invalid regexp: missing closing ): `(sha`",
		},
		{
			name: "unknown metric",
			src:  "assay: 1\nmetrics: [ndcg@10, ndgc@5]\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:20: metrics: unknown metric "ndgc@5" (known: ndcg@K, ndcg, recall@K, precision@K, mrr, map, hit@K, rprec)`,
		},
		{
			name: "k below one",
			src:  "assay: 1\ndefaults: {k: 0}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:15: k: must be at least 1, got 0`,
		},
		{
			name: "judgment grade not an integer",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    judgments: {a.md: 1.5}\n",
			want: `s.yaml:5:23: judgments: grade of "a.md": want an integer, got a number 1.5`,
		},
		{
			name: "judgments written as a list",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    judgments: [a.md, b.md]\n",
			want: `s.yaml:5:16: judgments: want a mapping of document id to grade, got a sequence (a plain list of relevant documents goes in "relevant:")`,
		},
		{
			name: "judgment without a grade",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    judgments:\n      a.md:\n",
			want: `s.yaml:6:7: judgments: "a.md" has no grade (want an integer such as 1)`,
		},
		{
			name: "unknown gain",
			src:  "assay: 1\ngain: log\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:7: gain: unknown gain "log" (want "linear" or "exponential")`,
		},
		{
			name: "json_schema file missing",
			src:  "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      json_schema: schemas/nope.json\n",
			want: `s.yaml:6:20: json_schema: "schemas/nope.json": cannot read it: no such file or directory`,
		},
		{
			name:  "json_schema file not a schema",
			src:   "assay: 1\ncases:\n  - id: a\n    query: q\n    expect:\n      json_schema: bad.json\n",
			extra: map[string]string{"bad.json": `{"type": 12}`},
			want:  `s.yaml:6:20: json_schema: "bad.json": invalid schema: at '/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`,
		},
		{
			name: "unreadable corpus path",
			src:  "assay: 1\ncorpus: nowhere/\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:9: corpus: cannot read "nowhere/": no such file or directory`,
		},
		{
			name:  "corpus of the wrong kind",
			src:   "assay: 1\ncorpus: docs.csv\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			extra: map[string]string{"docs.csv": "id,text\n"},
			want:  `s.yaml:2:9: corpus: "docs.csv" is not a corpus: want a directory of .md/.txt files, a .jsonl or a .jsonl.gz file`,
		},
		{
			name:  "bad line in a jsonl corpus is positioned in that file",
			src:   "assay: 1\ncorpus: c.jsonl\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			extra: map[string]string{"c.jsonl": "{\"_id\": \"a\", \"text\": \"t\"}\n{\"title\": \"no id\"}\n"},
			want:  `c.jsonl:2: missing "_id" or "id"`,
		},
		{
			name: "inline corpus document without an id",
			src:  "assay: 1\ncorpus:\n  - {title: T, text: x}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:3:5: corpus document has no "id"`,
		},
		{
			name: "inline corpus duplicate document id",
			src:  "assay: 1\ncorpus:\n  - {id: x, text: one}\n  - {id: x, text: two}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:4:5: duplicate document id "x" (first at line 3)`,
		},
		{
			name: "inline corpus unknown field",
			src:  "assay: 1\ncorpus:\n  - {id: x, body: one}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:3:13: unknown field "body"`,
		},
		{
			name: "corpus of the wrong type",
			src:  "assay: 1\ncorpus: {dir: docs}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:9: corpus: want a path or a list of documents, got a mapping`,
		},
		{
			name: "gates of the wrong type",
			src:  "assay: 1\ngates: {pass_rate: 0.8}\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:8: gates: want a list of gate expressions, got a mapping`,
		},
		{
			name: "max_latency_ms not positive",
			src:  "assay: 1\ncases:\n  - {id: a, query: q, expect: {max_latency_ms: -5}}\n",
			want: `s.yaml:3:48: max_latency_ms: must be greater than 0, got -5`,
		},
		{
			name: "missing assay version",
			src:  "name: kb\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:1:1: missing "assay: 1": the native suite format needs it (is this a file of another format?)`,
		},
		{
			name: "another tool's file is not a native suite, whatever its fields",
			src:  "schemaVersion: 3\nresults: []\n",
			want: `s.yaml:1:1: missing "assay: 1": the native suite format needs it (is this a file of another format?)`,
		},
		{
			name: "misspelt assay key",
			src:  "name: kb\nasay: 1\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:2:1: unknown field "asay" (did you mean "assay"?)`,
		},
		{
			name: "unsupported assay version",
			src:  "assay: 2\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:1:8: assay: unsupported format version 2 (this assay reads version 1)`,
		},
		{
			name: "syntax error",
			src:  "assay: 1\ncases: [\n",
			want: `s.yaml:2:8: sequence end token ']' not found`,
		},
		{
			name: "tab indentation",
			src:  "assay: 1\ncases:\n\t- id: a\n",
			want: `s.yaml:3:1: found character '	' that cannot start any token`,
		},
		{
			name: "duplicate field",
			src:  "assay: 1\nname: a\nname: b\ncases:\n  - {id: a, query: q, relevant: [x]}\n",
			want: `s.yaml:3:1: duplicate field "name" (first at line 2)`,
		},
		{
			name: "two YAML documents",
			src:  "assay: 1\ncases:\n  - {id: a, query: q, relevant: [x]}\n---\nassay: 1\n",
			want: `s.yaml:4:1: a suite file holds one YAML document; found a second one`,
		},
		{
			name: "empty file",
			src:  "# nothing here\n",
			want: `s.yaml:1:1: empty suite file: the native format starts with "assay: 1"`,
		},
		{
			name: "top level is not a mapping",
			src:  "- one\n- two\n",
			want: `s.yaml:1:1: a native suite is a mapping that starts with "assay: 1", got a sequence`,
		},
		{
			name: "no cases",
			src:  "assay: 1\nname: empty\n",
			want: `s.yaml:1:1: the suite has no cases`,
		},
		{
			name: "json: unknown field",
			file: "s.json",
			src:  "{\n  \"assay\": 1,\n  \"cases\": [\n    {\"id\": \"a\", \"qurey\": \"q\"}\n  ]\n}\n",
			want: `s.json:4:17: unknown field "qurey" (did you mean "query"?)`,
		},
		{
			name: "json: wrong type",
			file: "s.json",
			src:  "{\n  \"assay\": 1,\n  \"cases\": [\n    {\"id\": \"a\", \"query\": \"q\", \"k\": \"ten\"}\n  ]\n}\n",
			want: `s.json:4:36: k: want an integer, got a string "ten"`,
		},
		{
			name: "json: duplicate ids",
			file: "s.json",
			src:  "{\"assay\": 1, \"cases\": [\n {\"id\": \"a\", \"query\": \"q\", \"relevant\": [\"x\"]},\n {\"id\": \"a\", \"query\": \"q\", \"relevant\": [\"x\"]}\n]}\n",
			want: `s.json:3:9: duplicate case id "a" (first at line 2)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.file
			if name == "" {
				name = "s.yaml"
			}
			files := map[string]string{name: tt.src}
			for k, v := range tt.extra {
				files[k] = v
			}
			err := loadIn(t, writeFiles(t, files), name)
			if err == nil {
				t.Fatalf("Load accepted the suite, want error\n%s", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err.Error())
			}
		})
	}
}
