package suite

import (
	"encoding/json"
	"path/filepath"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
)

type gnoJudgment struct {
	DocID     string `json:"docid"`
	Relevance int    `json:"relevance"`
}

type gnoQuery struct {
	ID           json.RawMessage   `json:"id"`
	Query        string            `json:"query"`
	Collection   string            `json:"collection"`
	Language     string            `json:"language"`
	RelevantDocs []string          `json:"relevantDocs"`
	Judgments    []gnoJudgment     `json:"judgments"`
	Note         string            `json:"note"`
	Category     string            `json:"category"`
	QueryModes   []json.RawMessage `json:"queryModes"`
}

var gnoQueryFields = []string{"id", "query", "collection", "language", "relevantDocs", "judgments", "note", "category", "queryModes"}

type gnoAsk struct {
	ID             json.RawMessage `json:"id"`
	Question       string          `json:"question"`
	ExpectedTopics []string        `json:"expectedTopics"`
	MockSources    []string        `json:"mockSources"`
}

var gnoAskFields = []string{"id", "question", "expectedTopics", "mockSources"}

// loadGNO reads GNO's queries.json / hybrid-adversarial.json (ask false) or
// ask-cases.json (ask true). See the package's format notes in formats.go.
func loadGNO(path string, data []byte, ask bool) (*assay.Suite, error) {
	d := &jsonDoc{file: path, data: trimBOM(data)}
	if err := d.checkNesting(); err != nil {
		return nil, err
	}
	items, err := d.array(0)
	if err != nil {
		return nil, err
	}
	format := FormatGNO
	if ask {
		format = FormatGNOAsk
	}
	s := newSuite(path, format)
	if !ask {
		// GNO's scorer: nDCG with gain 2^rel-1, recall (and the other
		// binary measures) over relevantDocs, not every judged document.
		s.Gain = assay.GainExponential
		s.RecallOver = assay.RecallOverRelevant
	}
	seen := map[string]int{}
	for _, it := range items {
		if d.data[it.off] != '{' {
			return nil, d.errf(it.off, "want an object for each case")
		}
		var c assay.Case
		var rawID json.RawMessage
		if ask {
			var q gnoAsk
			warns, err := d.decode(it, &q, gnoAskFields...)
			if err != nil {
				return nil, err
			}
			s.Warnings = append(s.Warnings, warns...)
			rawID = q.ID
			c.Query = q.Question
			if len(q.ExpectedTopics) > 0 {
				c.Expect.AnswerIncludesAny = q.ExpectedTopics
			}
			c.Judgments = relevantSet(q.MockSources)
			if c.Query == "" {
				return nil, d.errf(it.off, "case is missing \"question\"")
			}
		} else {
			var q gnoQuery
			warns, err := d.decode(it, &q, gnoQueryFields...)
			if err != nil {
				return nil, err
			}
			s.Warnings = append(s.Warnings, warns...)
			rawID = q.ID
			c.Query = q.Query
			c.Guards = q.Note
			tags := map[string]string{}
			if q.Language != "" {
				tags["lang"] = q.Language
			}
			if q.Collection != "" {
				tags["collection"] = q.Collection
			}
			if q.Category != "" {
				tags["category"] = q.Category
			}
			if len(tags) > 0 {
				c.Tags = tags
			}
			if q.Category != "" || q.QueryModes != nil {
				s.Format = FormatGNOAdversarial
			}
			j := map[string]int{}
			for _, x := range q.Judgments {
				if x.DocID == "" {
					return nil, d.errf(it.off, "judgment without \"docid\"")
				}
				j[x.DocID] = x.Relevance
			}
			for _, id := range q.RelevantDocs {
				if _, ok := j[id]; !ok {
					j[id] = 1
				}
			}
			if len(j) > 0 {
				c.Judgments = j
			}
			if len(q.RelevantDocs) > 0 {
				c.Relevant = q.RelevantDocs
			}
			if c.Query == "" {
				return nil, d.errf(it.off, "case is missing \"query\"")
			}
		}
		id, ok := jsonID(rawID)
		if rawID == nil || !ok || id == "" {
			return nil, d.errf(it.off, "case is missing \"id\"")
		}
		if prev, dup := seen[id]; dup {
			return nil, d.errf(it.off, "duplicate case id %q (first at line %d)", id, prev)
		}
		line, _ := d.pos(it.off)
		seen[id] = line
		c.ID = id
		c.Source = d.source(it.off)
		s.Cases = append(s.Cases, c)
	}
	if len(s.Cases) == 0 {
		return nil, d.errf(0, "no cases")
	}
	cdir := filepath.Join(filepath.Dir(path), "corpus")
	if dirExists(cdir) {
		docs, err := corpus.Load(cdir)
		if err != nil {
			return nil, err
		}
		s.Corpus = docs
		s.CorpusSource = cdir
	} else {
		s.Warnings = append(s.Warnings, "no corpus/ directory beside the file: the suite has no corpus (reference checks and the builtin target need one)")
	}
	return s, nil
}

// relevantSet is binary judgments (grade 1) for ids, or nil.
func relevantSet(ids []string) map[string]int {
	if len(ids) == 0 {
		return nil
	}
	j := make(map[string]int, len(ids))
	for _, id := range ids {
		j[id] = 1
	}
	return j
}
