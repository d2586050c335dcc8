package suite

import (
	"bytes"
	"strconv"
	"strings"
)

// judgmentTable describes a whitespace-separated relevance-judgment file
// (BEIR qrels TSV, Cranfield's cranqrel; TREC qrels are read by
// package trec's line reader, see parseTRECQrels): one judgment per line,
// in a fixed number of columns. It is the one parser of both.
type judgmentTable struct {
	fields            int    // columns per line
	query, doc, grade int    // column indexes
	layout            string // the columns, for messages: "qid iter docno rel"
	gradeWord         string // what the grade column is called in messages
	// header: a first line whose grade is not an integer is a header.
	header bool
	// mapGrade turns the written grade into assay's (nil: as written).
	mapGrade func(int) int
}

var (
	beirQrels = judgmentTable{fields: 3, query: 0, doc: 1, grade: 2, layout: "query-id corpus-id score", gradeWord: "score", header: true}
)

// parse reads data (path is for messages) into judgments by query, and the
// queries in first-seen order. Blank lines are skipped; a later judgment of
// the same (query, doc) replaces an earlier one.
func (t judgmentTable) parse(path string, data []byte) (map[string]map[string]int, []string, error) {
	judg := map[string]map[string]int{}
	var order []string
	line := 0
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		line++
		f := strings.Fields(string(l))
		if len(f) == 0 {
			continue
		}
		if len(f) != t.fields {
			return nil, nil, Errorf(path, line, 0, "want %q, got %d fields", t.layout, len(f))
		}
		g, err := strconv.Atoi(f[t.grade])
		if err != nil {
			if t.header && line == 1 {
				continue
			}
			return nil, nil, Errorf(path, line, 0, "%s %q is not an integer", t.gradeWord, f[t.grade])
		}
		if t.mapGrade != nil {
			g = t.mapGrade(g)
		}
		q := f[t.query]
		if judg[q] == nil {
			judg[q] = map[string]int{}
			order = append(order, q)
		}
		judg[q][f[t.doc]] = g
	}
	return judg, order, nil
}
