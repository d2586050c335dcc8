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
	d, err := newJSONDoc(path, data)
	if err != nil {
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
			// GNO's nDCG gains only from judgments: a relevantDocs entry
			// without one gains nothing (it still counts for recall, as
			// Relevant). Without any judgments relevantDocs are grade 1.
			for _, id := range q.RelevantDocs {
				if _, ok := j[id]; !ok && len(q.Judgments) == 0 {
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
	return s, gnoCorpus(s, path)
}

// gnoCorpus gives s the corpus/ directory beside path, or a warning.
func gnoCorpus(s *assay.Suite, path string) error {
	cdir := filepath.Join(filepath.Dir(path), "corpus")
	if dirExists(cdir) {
		docs, err := corpus.Load(cdir)
		if err != nil {
			return err
		}
		s.Corpus = docs
		s.CorpusSource = cdir
	} else {
		s.Warnings = append(s.Warnings, "no corpus/ directory beside the file: the suite has no corpus (reference checks and the builtin target need one)")
	}
	return nil
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

type gnoBenchJudgment struct {
	Doc       string `json:"doc"`
	Relevance int    `json:"relevance"`
}

type gnoBenchQuery struct {
	ID         json.RawMessage    `json:"id"`
	Query      string             `json:"query"`
	Expected   []string           `json:"expected"`
	Judgments  []gnoBenchJudgment `json:"judgments"`
	QueryModes []json.RawMessage  `json:"queryModes"`
}

var (
	gnoBenchTopFields   = []string{"version", "metadata", "collection", "topK", "candidateLimit", "modes", "queries"}
	gnoBenchQueryFields = []string{"id", "query", "expected", "judgments", "queryModes"}
)

// loadGNOBench reads the fixture of GNO's `gno bench` (docs/examples/
// bench-fixture.json): {version: 1, metadata{name, description, tags},
// collection, topK, candidateLimit, modes, queries[{id, query, expected[],
// judgments[{doc, relevance}], queryModes}]}. metadata.name → Name,
// metadata.description → Description, topK → defaults.k, collection →
// tags.collection of every case; expected → the case's relevant list (and
// grade 1 when the query has no judgments), judgments keep their grade. Scored as GNO scores:
// exponential gain, recall over the relevant list. candidateLimit, modes
// (GNO's own pipeline modes) and queryModes are ignored: assay runs the
// target it is given on each case's query.
func loadGNOBench(path string, data []byte) (*assay.Suite, error) {
	d, err := newJSONDoc(path, data)
	if err != nil {
		return nil, err
	}
	top, order, err := d.object(0)
	if err != nil {
		return nil, err
	}
	s := newSuite(path, FormatGNOBench)
	s.Gain = assay.GainExponential
	s.RecallOver = assay.RecallOverRelevant
	for _, k := range order {
		if !hasString(gnoBenchTopFields, k) {
			s.Warnings = append(s.Warnings, d.warnf(top[k].off, "unknown field %q ignored", k))
		}
	}
	if v, ok := top["version"]; ok {
		var ver int
		if _, err := d.decode(v, &ver); err != nil {
			return nil, err
		}
		if ver != 1 {
			return nil, d.errf(v.off, "version: unsupported gno bench fixture version %d (want 1)", ver)
		}
	}
	if v, ok := top["metadata"]; ok {
		var m struct {
			Name        string   `json:"name"`
			Description string   `json:"description"`
			Tags        []string `json:"tags"`
		}
		if _, err := d.decode(v, &m); err != nil {
			return nil, err
		}
		if m.Name != "" {
			s.Name = m.Name
		}
		s.Description = m.Description
	}
	var collection string
	if v, ok := top["collection"]; ok {
		if _, err := d.decode(v, &collection); err != nil {
			return nil, err
		}
	}
	if v, ok := top["topK"]; ok {
		var k int
		if _, err := d.decode(v, &k); err != nil {
			return nil, err
		}
		if k < 1 {
			return nil, d.errf(v.off, "topK: must be at least 1, got %d", k)
		}
		s.Defaults.K = k
	}
	qv, ok := top["queries"]
	if !ok {
		return nil, d.errf(0, "missing \"queries\"")
	}
	items, err := d.array(qv.off)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, it := range items {
		if d.data[it.off] != '{' {
			return nil, d.errf(it.off, "want an object for each query")
		}
		var q gnoBenchQuery
		warns, err := d.decode(it, &q, gnoBenchQueryFields...)
		if err != nil {
			return nil, err
		}
		s.Warnings = append(s.Warnings, warns...)
		id, ok := jsonID(q.ID)
		if q.ID == nil || !ok || id == "" {
			return nil, d.errf(it.off, "query is missing \"id\"")
		}
		if q.Query == "" {
			return nil, d.errf(it.off, "query %q is missing \"query\"", id)
		}
		if prev, dup := seen[id]; dup {
			return nil, d.errf(it.off, "duplicate query id %q (first at line %d)", id, prev)
		}
		line, _ := d.pos(it.off)
		seen[id] = line
		c := assay.Case{ID: id, Query: q.Query, Source: d.source(it.off)}
		if collection != "" {
			c.Tags = map[string]string{"collection": collection}
		}
		j := map[string]int{}
		for _, x := range q.Judgments {
			if x.Doc == "" {
				return nil, d.errf(it.off, "judgment without \"doc\"")
			}
			j[x.Doc] = x.Relevance
		}
		for _, doc := range q.Expected {
			if doc == "" {
				return nil, d.errf(it.off, "expected: empty document")
			}
			if _, ok := j[doc]; !ok && len(q.Judgments) == 0 {
				j[doc] = 1 // with judgments, nDCG gains from them alone (as GNO's)
			}
		}
		if len(j) > 0 {
			c.Judgments = j
		}
		if len(q.Expected) > 0 {
			c.Relevant = q.Expected
		}
		s.Cases = append(s.Cases, c)
	}
	if len(s.Cases) == 0 {
		return nil, d.errf(qv.off, "no queries")
	}
	return s, gnoCorpus(s, path)
}
