package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// BEIRMetrics is the metric set of a BEIR suite: the defaults plus the
// recall depths BEIR baselines publish.
var BEIRMetrics = append(append([]string(nil), assay.DefaultMetrics...), "recall@100", "recall@1000")

// BEIRK is the ranking depth asked of a target for a BEIR suite, so that
// recall@1000 sees a full ranking.
const BEIRK = 1000

// beirCorpusFile returns the corpus file of a BEIR directory.
func beirCorpusFile(dir string) string {
	for _, name := range []string{"corpus.jsonl.gz", "corpus.jsonl"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

// loadBEIR reads a BEIR dataset directory. See formats.go.
func loadBEIR(dir string, o LoadOptions) (*assay.Suite, error) {
	split := o.Split
	if split == "" {
		split = "test"
	}
	if !dirExists(dir) {
		return nil, Errorf(dir, 0, 0, "not a directory; a BEIR dataset is a directory with corpus.jsonl(.gz), queries.jsonl and qrels/")
	}
	qrelsPath := filepath.Join(dir, "qrels", split+".tsv")
	if !fileExists(qrelsPath) {
		return nil, Errorf(dir, 0, 0, "no qrels for split %q (have: %s)", split, strings.Join(beirSplits(dir), ", "))
	}
	judg, order, err := readBEIRQrels(qrelsPath)
	if err != nil {
		return nil, err
	}
	queriesPath := filepath.Join(dir, "queries.jsonl")
	cases, err := readBEIRQueries(queriesPath, judg)
	if err != nil {
		return nil, err
	}
	s := newSuite(dir, FormatBEIR)
	s.Name = filepath.Base(filepath.Clean(dir))
	if abs, err := filepath.Abs(dir); err == nil && (s.Name == "." || s.Name == "/") {
		s.Name = filepath.Base(abs)
	}
	s.Defaults.K = BEIRK
	s.Metrics = append([]string(nil), BEIRMetrics...)
	s.Cases = cases
	found := make(map[string]bool, len(cases))
	for _, c := range cases {
		found[c.ID] = true
	}
	var missing []string
	for _, q := range order {
		if !found[q] {
			missing = append(missing, q)
		}
	}
	if len(missing) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %d judged queries are not in queries.jsonl (%s)", qrelsPath, len(missing), strings.Join(firstFew(missing, 5), ", ")))
	}
	if len(cases) == 0 {
		return nil, Errorf(dir, 0, 0, "no query of queries.jsonl has judgments in split %q", split)
	}
	cf := beirCorpusFile(dir)
	if cf == "" {
		return nil, Errorf(dir, 0, 0, "no corpus.jsonl or corpus.jsonl.gz")
	}
	docs, err := corpus.Load(cf)
	if err != nil {
		return nil, err
	}
	s.Corpus = docs
	s.CorpusSource = cf
	return s, nil
}

func firstFew(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// beirSplits lists the qrels splits of a BEIR directory.
func beirSplits(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "qrels", "*.tsv"))
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".tsv"))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// readBEIRQrels reads `query-id corpus-id score` lines (tab or space
// separated), skipping a header line.
func readBEIRQrels(path string) (map[string]map[string]int, []string, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.SuitePart)
	if err != nil {
		return nil, nil, Errorf(path, 0, 0, "%v", boundedfile.Reason(err))
	}
	return parseBEIRQrels(path, data)
}

// parseBEIRQrels parses BEIR qrels TSV (a header line allowed); path is for
// messages.
func parseBEIRQrels(path string, data []byte) (map[string]map[string]int, []string, error) {
	return beirQrels.parse(path, data)
}

// readBEIRQueries reads queries.jsonl and returns the judged queries as cases.
func readBEIRQueries(path string, judg map[string]map[string]int) ([]assay.Case, error) {
	f, err := boundedfile.Open(path, boundedfile.SuitePart)
	if err != nil {
		return nil, Errorf(path, 0, 0, "%v", boundedfile.Reason(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), boundedfile.MaxLine)
	var cases []assay.Case
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var q struct {
			ID    json.RawMessage `json:"_id"`
			Alt   json.RawMessage `json:"id"`
			Text  string          `json:"text"`
			Title string          `json:"title"`
		}
		if err := json.Unmarshal(b, &q); err != nil {
			// Position the error on this line of the file.
			var pe *PosError
			if errors.As((&jsonDoc{file: path, data: b}).decodeErr(err, 0), &pe) {
				return nil, Errorf(path, line, pe.Col, "%s", pe.Msg)
			}
			return nil, Errorf(path, line, 0, "%v", err)
		}
		raw := q.ID
		if raw == nil {
			raw = q.Alt
		}
		id, ok := jsonID(raw)
		if raw == nil || !ok || id == "" {
			return nil, Errorf(path, line, 0, "missing \"_id\"")
		}
		if prev, dup := seen[id]; dup {
			return nil, Errorf(path, line, 0, "duplicate query id %q (first at line %d)", id, prev)
		}
		seen[id] = line
		j := judg[id]
		if j == nil {
			continue
		}
		text := q.Text
		if text == "" {
			text = q.Title
		}
		if text == "" {
			return nil, Errorf(path, line, 0, "query %q has no text", id)
		}
		cases = append(cases, assay.Case{ID: id, Query: text, Judgments: j, Source: fmt.Sprintf("%s:%d", path, line)})
	}
	if err := sc.Err(); err != nil {
		return nil, Errorf(path, line+1, 0, "%v", boundedfile.ScanErr(err, boundedfile.MaxLine))
	}
	return cases, nil
}
