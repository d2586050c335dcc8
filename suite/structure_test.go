package suite

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
)

// checkStructure guards suites read by the foreign loaders, positioned by
// each case's Source.
func TestCheckStructureForeign(t *testing.T) {
	t.Parallel()
	s := &assay.Suite{
		Path: "q.json", Dir: ".", Format: "gno",
		Metrics: []string{"ndcg@10", "ndgc@10"},
		Gain:    "log",
		Cases: []assay.Case{
			{ID: "a", Query: "x", Source: "q.json:2"},
			{ID: "a", Query: "y", Source: "q.json:9"},
			{ID: "", Query: "z", Source: "q.json:15"},
			{ID: "b", Source: "q.json:20"},
			{ID: "c", Query: "w", Source: "q.json:25", Expect: assay.Expect{AnswerMatches: "a(", JSONSchema: "none.json"}},
		},
	}
	var got []string
	for _, p := range checkStructure(s) {
		got = append(got, p.src+": "+p.msg)
	}
	want := []string{
		`q.json:9: duplicate case id "a" (first at q.json:2)`,
		`q.json:15: case 3 has no id`,
		`q.json:20: case "b" has no query`,
		"q.json:25: case \"c\": answer_matches: invalid regexp: missing closing ): `a(`",
		`q.json:25: case "c": json_schema: "none.json": cannot read it: no such file or directory`,
		`q.json: metrics: unknown metric "ndgc@10" (known: ndcg@K, ndcg, recall@K, precision@K, mrr, map, hit@K, rprec)`,
		`q.json: gain: unknown gain "log" (want "linear" or "exponential")`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s.Cases[4].Expect.JSONSchemaPath != "none.json" {
		t.Errorf("JSONSchemaPath %q, want it resolved against Dir", s.Cases[4].Expect.JSONSchemaPath)
	}
	if ps := checkStructure(&assay.Suite{Path: "e.json", Gain: assay.GainLinear}); len(ps) != 1 || ps[0].msg != "the suite has no cases" {
		t.Errorf("empty suite: %+v", ps)
	}
}

// A directory suite (BEIR) records every file in it, skipping dot files and
// the manifest itself.
func TestManifestDirectorySuite(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"corpus.jsonl":   `{"_id": "d1", "text": "x"}` + "\n",
		"queries.jsonl":  `{"_id": "q1", "text": "y"}` + "\n",
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n",
		".cache/x":       "ignored",
	})
	s := &assay.Suite{Path: dir, Dir: dir, CorpusSource: filepath.Join(dir, "corpus.jsonl"),
		Cases: []assay.Case{{ID: "q1", Query: "y", Judgments: map[string]int{"d1": 1}}}}
	mp, err := WriteManifest(s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(mp)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := m.Suites["."]
	if !ok {
		t.Fatalf("no entry for the directory suite: %v", m.Suites)
	}
	var files []string
	for f := range e.Files {
		files = append(files, f)
	}
	if got := strings.Join(slices.Sorted(slices.Values(files)), " "); got != "corpus.jsonl qrels/test.tsv queries.jsonl" {
		t.Errorf("files %q", got)
	}
	os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), []byte("query-id\tcorpus-id\tscore\nq1\td1\t2\n"), 0o644)
	ws := CheckManifest(s)
	if len(ws) != 1 || !strings.HasPrefix(ws[0], "qrels/test.tsv changed since") {
		t.Errorf("warnings %v", ws)
	}
}
