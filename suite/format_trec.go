package suite

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/trec"
)

// findTRECFiles finds the one qrels file and the one topics file of dir
// ("" when there is not exactly one of a kind).
func findTRECFiles(dir string) (qrels, topics string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", ""
	}
	var qs, ts []string
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		n := strings.ToLower(e.Name())
		stem := strings.TrimSuffix(n, filepath.Ext(n))
		switch {
		case strings.Contains(n, "qrels"):
			qs = append(qs, filepath.Join(dir, e.Name()))
		case stem == "topics" || strings.HasSuffix(n, ".topics") || strings.HasPrefix(n, "topics.") ||
			n == "queries.tsv" || n == "queries.txt" || n == "topics.tsv":
			ts = append(ts, filepath.Join(dir, e.Name()))
		}
	}
	if len(qs) == 1 {
		qrels = qs[0]
	}
	if len(ts) == 1 {
		topics = ts[0]
	}
	return qrels, topics
}

// looksLikeQrels reports whether the first lines of data are TREC qrels
// (`qid iter docno rel`, rel an integer).
func looksLikeQrels(data []byte) bool {
	n := 0
	for len(data) > 0 && n < 5 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		f := strings.Fields(string(l))
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return false
		}
		if _, err := strconv.Atoi(f[3]); err != nil {
			return false
		}
		n++
	}
	return n > 0
}

// readTRECQrels reads `qid iter docno rel` lines. A negative grade is 0.
func readTRECQrels(path string) (map[string]map[string]int, []string, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.SuitePart)
	if err != nil {
		return nil, nil, Errorf(path, 0, 0, "%v", boundedfile.Reason(err))
	}
	return parseTRECQrels(path, data)
}

// parseTRECQrels parses qrels lines; path is for messages. Each line is
// read by trec.ParseQrelsLine, as `assay trec` reads it: a '#' line is a
// comment, a line has four fields, a negative grade is judged non-relevant
// (0 here) and a docno judged twice for one topic is refused (trec_eval
// refuses to evaluate such a topic). Two choices of assay's own: a blank
// line is skipped, and a grade that is not an integer is refused where
// trec_eval would read its leading digits.
func parseTRECQrels(path string, data []byte) (map[string]map[string]int, []string, error) {
	judg := map[string]map[string]int{}
	firstAt := map[[2]string]int{}
	var order []string
	line := 0
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		line++
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		q, skip, err := trec.ParseQrelsLine(l)
		if skip {
			continue
		}
		f := strings.Fields(string(l))
		if err != nil {
			return nil, nil, Errorf(path, line, 0, "want %q, got %d fields", "qid iter docno rel", len(f))
		}
		if _, err := strconv.Atoi(f[3]); err != nil {
			return nil, nil, Errorf(path, line, 0, "relevance %q is not an integer", f[3])
		}
		k := [2]string{q.Qid, q.Docno}
		if at, dup := firstAt[k]; dup {
			return nil, nil, Errorf(path, line, 0, "docno %q is judged twice for topic %q (first at line %d)", q.Docno, q.Qid, at)
		}
		firstAt[k] = line
		if judg[q.Qid] == nil {
			judg[q.Qid] = map[string]int{}
			order = append(order, q.Qid)
		}
		judg[q.Qid][q.Docno] = max(q.Rel, 0) // a negative grade is judged non-relevant
	}
	return judg, order, nil
}

type trecTopic struct {
	id, query string
	line      int
}

// readTRECTopics reads TSV (`qid<TAB>query`) or SGML (`<top>`) topics.
func readTRECTopics(path string) ([]trecTopic, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.SuitePart)
	if err != nil {
		return nil, Errorf(path, 0, 0, "%v", boundedfile.Reason(err))
	}
	return parseTRECTopics(path, data)
}

// parseTRECTopics parses TSV or SGML topics; path is for messages.
func parseTRECTopics(path string, data []byte) ([]trecTopic, error) {
	data = trimBOM(data)
	if bytes.Contains(asciiLower(data), []byte("<top>")) {
		return readSGMLTopics(path, data)
	}
	var out []trecTopic
	line := 0
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		line++
		s := strings.TrimRight(string(l), "\r")
		if strings.TrimSpace(s) == "" {
			continue
		}
		id, q, ok := strings.Cut(s, "\t")
		if !ok {
			f := strings.Fields(s)
			if len(f) < 2 {
				return nil, Errorf(path, line, 0, "want \"qid<TAB>query\"")
			}
			id, q = f[0], strings.Join(f[1:], " ")
		}
		out = append(out, trecTopic{id: strings.TrimSpace(id), query: strings.TrimSpace(q), line: line})
	}
	return out, nil
}

// readSGMLTopics reads TREC `<top>` topics: `<num>` (an optional
// "Number:" prefix dropped) and `<title>` (an optional "Topic:" prefix
// dropped), each running to the next tag.
func readSGMLTopics(path string, data []byte) ([]trecTopic, error) {
	lower := asciiLower(data) // same length as data, so offsets agree
	var out []trecTopic
	off := 0
	for {
		i := bytes.Index(lower[off:], []byte("<top>"))
		if i < 0 {
			break
		}
		start := off + i
		end := bytes.Index(lower[start:], []byte("</top>"))
		if end < 0 {
			end = len(data) - start
		}
		block, lblock := data[start:start+end], lower[start:start+end]
		line := 1 + bytes.Count(data[:start], []byte{'\n'})
		num := sgmlField(block, lblock, "<num>")
		num = strings.TrimSpace(strings.TrimPrefix(num, "Number:"))
		title := sgmlField(block, lblock, "<title>")
		title = strings.TrimSpace(strings.TrimPrefix(title, "Topic:"))
		if num == "" {
			return nil, Errorf(path, line, 0, "topic without <num>")
		}
		if title == "" {
			return nil, Errorf(path, line, 0, "topic %s without <title>", num)
		}
		out = append(out, trecTopic{id: num, query: title, line: line})
		off = start + end
		if off >= len(data) {
			break
		}
		off++
	}
	return out, nil
}

// sgmlField returns the text after tag up to the next '<', whitespace folded.
func sgmlField(block, lblock []byte, tag string) string {
	i := bytes.Index(lblock, []byte(tag))
	if i < 0 {
		return ""
	}
	rest := block[i+len(tag):]
	if j := bytes.IndexByte(rest, '<'); j >= 0 {
		rest = rest[:j]
	}
	return strings.Join(strings.Fields(string(rest)), " ")
}

// loadTREC reads TREC qrels with their topics. See formats.go.
func loadTREC(path string) (*assay.Suite, error) {
	var qrelsPath, topicsPath, dir string
	if dirExists(path) {
		dir = path
		qrelsPath, topicsPath = findTRECFiles(path)
		if qrelsPath == "" {
			return nil, Errorf(path, 0, 0, "want exactly one qrels file (a name containing \"qrels\")")
		}
	} else {
		dir = filepath.Dir(path)
		qrelsPath = path
		_, topicsPath = findTRECFiles(dir)
	}
	if topicsPath == "" {
		return nil, Errorf(dir, 0, 0, "no topics file beside the qrels (want one of topics, topics.*, *.topics, queries.tsv, queries.txt)")
	}
	judg, order, err := readTRECQrels(qrelsPath)
	if err != nil {
		return nil, err
	}
	topics, err := readTRECTopics(topicsPath)
	if err != nil {
		return nil, err
	}
	s := newSuite(path, FormatTREC)
	if dirExists(path) {
		s.Name = filepath.Base(filepath.Clean(path))
	}
	seen := map[string]int{}
	for _, t := range topics {
		if prev, dup := seen[t.id]; dup {
			return nil, Errorf(topicsPath, t.line, 0, "duplicate topic %q (first at line %d)", t.id, prev)
		}
		seen[t.id] = t.line
		j := judg[t.id]
		if j == nil {
			continue
		}
		s.Cases = append(s.Cases, assay.Case{ID: t.id, Query: t.query, Judgments: j, Source: fmt.Sprintf("%s:%d", topicsPath, t.line)})
	}
	var missing []string
	for _, q := range order {
		if _, ok := seen[q]; !ok {
			missing = append(missing, q)
		}
	}
	if len(missing) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %d judged topics are not in %s (%s)", qrelsPath, len(missing), topicsPath, strings.Join(firstFew(missing, 5), ", ")))
	}
	if len(s.Cases) == 0 {
		return nil, Errorf(qrelsPath, 0, 0, "no topic of %s has judgments", topicsPath)
	}
	if err := loadCorpusBeside(s, dir); err != nil {
		return nil, err
	}
	return s, nil
}

// loadCorpusBeside loads corpus/, corpus.jsonl.gz or corpus.jsonl from dir
// into s, when there is one.
func loadCorpusBeside(s *assay.Suite, dir string) error {
	for _, name := range []string{"corpus", "corpus.jsonl.gz", "corpus.jsonl"} {
		p := filepath.Join(dir, name)
		if (name == "corpus" && dirExists(p)) || (name != "corpus" && fileExists(p)) {
			docs, err := corpus.Load(p)
			if err != nil {
				return err
			}
			if name == "corpus" {
				docs = docnoIDs(docs)
			}
			s.Corpus, s.CorpusSource = docs, p
			return nil
		}
	}
	s.Warnings = append(s.Warnings, "no corpus (corpus/, corpus.jsonl or corpus.jsonl.gz) beside the qrels: the suite has no corpus")
	return nil
}

// docnoIDs gives the documents of a TREC corpus directory of DOCNO.txt
// files their DOCNO as id, which is what the qrels name: the file's base
// name without ".txt" ("fbis/FBIS3-1.txt" has id "FBIS3-1"; Path keeps the
// file). Other documents keep their path as id, and when two .txt files
// share a base name no id is changed, so that no document is lost.
func docnoIDs(docs []assay.Document) []assay.Document {
	seen := make(map[string]bool, len(docs))
	for _, d := range docs {
		seen[d.ID] = true
	}
	ids := make([]string, len(docs))
	taken := map[string]bool{}
	for i, d := range docs {
		ids[i] = d.ID
		if !strings.HasSuffix(d.ID, ".txt") {
			continue
		}
		no := strings.TrimSuffix(path.Base(d.ID), ".txt")
		if no == "" || taken[no] || (seen[no] && no != d.ID) {
			return docs
		}
		taken[no] = true
		ids[i] = no
	}
	out := make([]assay.Document, len(docs))
	for i, d := range docs {
		d.ID = ids[i]
		out[i] = d
	}
	corpus.Sort(out)
	return out
}

// asciiLower lowercases A-Z only, keeping every byte offset.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
