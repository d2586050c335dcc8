package suite

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

type knowlexDoc struct {
	Title   string `json:"title"`
	Content string `json:"content"`
}

type knowlexQuestion struct {
	ID                    json.RawMessage `json:"id"`
	Category              string          `json:"category"`
	Question              string          `json:"question"`
	ExpectedSubstrings    []string        `json:"expectedSubstrings"`
	ExpectedSubstringsAny []string        `json:"expectedSubstringsAny"`
	ExpectedDocumentTitle string          `json:"expectedDocumentTitle"`
	ExpectedRefusal       bool            `json:"expectedRefusal"`
}

var knowlexTopFields = []string{"version", "description", "thresholds", "corpus", "questions"}
var knowlexQuestionFields = []string{"id", "category", "question", "expectedSubstrings", "expectedSubstringsAny", "expectedDocumentTitle", "expectedRefusal"}

// knowlexRefusalMarkers are the markers Knowlex's own grader uses for its
// expectedRefusal questions (its answers are templated: "The provided
// documents do not contain ...").
var knowlexRefusalMarkers = []string{"do not contain", "cannot answer", "no information"}

// loadKnowlex reads Knowlex's golden_qa.json. See formats.go for the mapping.
func loadKnowlex(path string, data []byte) (*assay.Suite, error) {
	d, err := newJSONDoc(path, data)
	if err != nil {
		return nil, err
	}
	top, order, err := d.object(0)
	if err != nil {
		return nil, err
	}
	s := newSuite(path, FormatKnowlex)
	s.RefusalMarkers = append([]string(nil), knowlexRefusalMarkers...)
	for _, k := range order {
		if !hasString(knowlexTopFields, k) {
			s.Warnings = append(s.Warnings, d.warnf(top[k].off, "unknown field %q ignored", k))
		}
	}
	if v, ok := top["description"]; ok {
		if _, err := d.decode(v, &s.Description); err != nil {
			return nil, err
		}
	}

	if v, ok := top["thresholds"]; ok {
		th, thOrder, err := d.object(v.off)
		if err != nil {
			return nil, err
		}
		for _, k := range thOrder {
			var metric, op string
			switch k {
			case "minPassRate":
				metric, op = "pass_rate", ">="
			case "maxP95LatencyMs":
				metric, op = "p95_latency_ms", "<="
			default:
				s.Warnings = append(s.Warnings, d.warnf(th[k].off, "unknown threshold %q ignored", k))
				continue
			}
			var x float64
			if _, err := d.decode(th[k], &x); err != nil {
				return nil, err
			}
			s.Gates = append(s.Gates, assay.Gate{
				Expr:   fmt.Sprintf("%s %s %s", metric, op, strconv.FormatFloat(x, 'g', -1, 64)),
				Source: d.source(th[k].off),
			})
		}
	}

	cv, ok := top["corpus"]
	if !ok {
		return nil, d.errf(0, "missing \"corpus\"")
	}
	items, err := d.array(cv.off)
	if err != nil {
		return nil, err
	}
	titles := map[string]bool{}
	for _, it := range items {
		var doc knowlexDoc
		warns, err := d.decode(it, &doc, "title", "content")
		if err != nil {
			return nil, err
		}
		s.Warnings = append(s.Warnings, warns...)
		if doc.Title == "" {
			return nil, d.errf(it.off, "corpus document is missing \"title\"")
		}
		if titles[doc.Title] {
			return nil, d.errf(it.off, "duplicate corpus title %q", doc.Title)
		}
		titles[doc.Title] = true
		s.Corpus = append(s.Corpus, assay.Document{
			ID: doc.Title, Title: doc.Title,
			Text: strings.ReplaceAll(doc.Content, "\r\n", "\n"),
		})
	}
	sort.Slice(s.Corpus, func(i, j int) bool { return s.Corpus[i].ID < s.Corpus[j].ID })
	s.CorpusSource = "inline"

	qv, ok := top["questions"]
	if !ok {
		return nil, d.errf(0, "missing \"questions\"")
	}
	if items, err = d.array(qv.off); err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, it := range items {
		var q knowlexQuestion
		warns, err := d.decode(it, &q, knowlexQuestionFields...)
		if err != nil {
			return nil, err
		}
		s.Warnings = append(s.Warnings, warns...)
		id, ok := jsonID(q.ID)
		if q.ID == nil || !ok || id == "" {
			return nil, d.errf(it.off, "question is missing \"id\"")
		}
		line, _ := d.pos(it.off)
		if prev, dup := seen[id]; dup {
			return nil, d.errf(it.off, "duplicate question id %q (first at line %d)", id, prev)
		}
		seen[id] = line
		if q.Question == "" {
			return nil, d.errf(it.off, "question %q is missing \"question\"", id)
		}
		c := assay.Case{ID: id, Query: q.Question, Source: d.source(it.off)}
		if q.Category != "" {
			c.Tags = map[string]string{"category": q.Category}
		}
		if len(q.ExpectedSubstrings) > 0 {
			c.Expect.AnswerIncludes = q.ExpectedSubstrings
		}
		if len(q.ExpectedSubstringsAny) > 0 {
			c.Expect.AnswerIncludesAny = q.ExpectedSubstringsAny
		}
		if q.ExpectedDocumentTitle != "" {
			c.Expect.Retrieves = []string{q.ExpectedDocumentTitle}
			if !titles[q.ExpectedDocumentTitle] {
				s.Warnings = append(s.Warnings, d.warnf(it.off, "question %q: expectedDocumentTitle %q is not a corpus title", id, q.ExpectedDocumentTitle))
			}
		}
		if q.ExpectedRefusal {
			t := true
			c.Expect.Refusal = &t
		}
		s.Cases = append(s.Cases, c)
	}
	if len(s.Cases) == 0 {
		return nil, d.errf(qv.off, "no questions")
	}
	return s, nil
}
