package suite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// smartRecord is one `.I` record of a SMART-format file: its id, the line
// it starts on, and its fields by letter (T, A, B, W).
type smartRecord struct {
	id     string
	line   int
	fields map[byte][]string
}

// readSMART splits data on `.I` lines first and then on field markers, so a
// stray repeated marker just continues its field.
func readSMART(data []byte) []smartRecord {
	var out []smartRecord
	var cur *smartRecord
	var field byte
	line := 0
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		line++
		s := strings.TrimRight(string(l), "\r")
		if strings.HasPrefix(s, ".I ") || s == ".I" {
			out = append(out, smartRecord{id: strings.TrimSpace(s[2:]), line: line, fields: map[byte][]string{}})
			cur = &out[len(out)-1]
			field = 0
			continue
		}
		if len(s) == 2 && s[0] == '.' && strings.IndexByte("TABW", s[1]) >= 0 {
			field = s[1]
			continue
		}
		if cur != nil && field != 0 {
			cur.fields[field] = append(cur.fields[field], s)
		}
	}
	return out
}

// joinField folds a field's lines into one line of text.
func joinField(lines []string) string {
	return strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
}

// cranGrade maps a Cleverdon relevance code to a grade (1→4 .. 4→1; -1 and
// 5, "no interest", → 0).
func cranGrade(code int) int {
	if code >= 1 && code <= 4 {
		return 5 - code
	}
	return 0
}

// loadCranfield reads the Cranfield 1400 collection directory. See formats.go.
func loadCranfield(dir string) (*assay.Suite, error) {
	if !dirExists(dir) {
		return nil, Errorf(dir, 0, 0, "not a directory; the cranfield format is a directory with cran.all.1400, cran.qry and cranqrel")
	}
	read := func(name string) ([]byte, string, error) {
		p := filepath.Join(dir, name)
		b, err := boundedfile.ReadFile(p, boundedfile.SuitePart)
		if err != nil {
			return nil, p, Errorf(p, 0, 0, "%v", boundedfile.Reason(err))
		}
		return b, p, nil
	}
	docData, docPath, err := read("cran.all.1400")
	if err != nil {
		return nil, err
	}
	qryData, qryPath, err := read("cran.qry")
	if err != nil {
		return nil, err
	}
	relData, relFile, err := read("cranqrel")
	if err != nil {
		return nil, err
	}

	s := newSuite(dir, FormatCranfield)
	s.Name = filepath.Base(filepath.Clean(dir))
	seenDoc := map[string]bool{}
	for _, r := range readSMART(docData) {
		if r.id == "" {
			return nil, Errorf(docPath, r.line, 0, ".I without a document number")
		}
		if seenDoc[r.id] {
			return nil, Errorf(docPath, r.line, 0, "duplicate document %s", r.id)
		}
		seenDoc[r.id] = true
		title := joinField(r.fields['T'])
		text := joinField(r.fields['W'])
		if text == "" {
			text = title
		}
		s.Corpus = append(s.Corpus, assay.Document{ID: r.id, Title: title, Text: text})
	}
	sort.Slice(s.Corpus, func(i, j int) bool { return s.Corpus[i].ID < s.Corpus[j].ID })
	s.CorpusSource = docPath

	cranQrels := judgmentTable{fields: 3, query: 0, doc: 1, grade: 2, layout: "query doc code", gradeWord: "relevance code", mapGrade: cranGrade}
	judg, _, err := cranQrels.parse(relFile, relData)
	if err != nil {
		return nil, err
	}

	for i, r := range readSMART(qryData) {
		id := strconv.Itoa(i + 1)
		q := joinField(r.fields['W'])
		if q == "" {
			return nil, Errorf(qryPath, r.line, 0, "query %s has no .W text", r.id)
		}
		j := judg[id]
		if j == nil {
			continue
		}
		s.Cases = append(s.Cases, assay.Case{ID: id, Query: q, Judgments: j, Source: fmt.Sprintf("%s:%d", qryPath, r.line)})
	}
	if len(s.Cases) == 0 {
		return nil, Errorf(dir, 0, 0, "no query has judgments")
	}
	return s, nil
}
