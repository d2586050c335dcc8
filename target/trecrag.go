package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/grade"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/trec"
)

// TrecRAG is a target that answers from a TREC RAG answer file
// (trecrag:answers.jsonl; the TREC 2024 and 2025 RAG tracks' format,
// docs/targets.md#trec-rag): one JSON object a line with the topic's id,
// its references (the ranked segment ids) and its answer as sentences,
// each citing references by 0-based index. The case whose id is the
// topic_id gets an observation whose ranking is the references (in order),
// whose answer is the sentences, one a line, and whose citations place
// each cited reference on its sentence (Citation.Start and End), so that
// sentence-level attribution reads the file's own sentences. The file
// holds no passage text: opened for a suite with a corpus, each reference
// gets the title and text of the corpus document of its id, which
// attribution checks the sentences against. A case without a line gets an
// error of class missing.
type TrecRAG struct {
	path  string
	runID string
	obs   map[string]assay.Observation
	docs  map[string]*assay.Document // the suite's corpus by id
}

// newTrecRAG opens the file for Open: the suite's corpus, when it has one,
// gives each reference its title and text.
func newTrecRAG(path string, o Options) (assay.Target, error) {
	r, err := OpenTrecRAG(path)
	if err != nil {
		return nil, err
	}
	if o.Suite != nil && len(o.Suite.Corpus) > 0 {
		r.docs = make(map[string]*assay.Document, len(o.Suite.Corpus))
		for i := range o.Suite.Corpus {
			d := &o.Suite.Corpus[i]
			r.docs[d.ID] = d
		}
	}
	return r, nil
}

var _ assay.Target = (*TrecRAG)(nil)

// OpenTrecRAG reads an answer file; a malformed line is an error naming
// file:line:col.
func OpenTrecRAG(path string) (*TrecRAG, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("trecrag: %s is a directory, not an answer file (.jsonl)", path)
	}
	f, err := boundedfile.Open(path, boundedfile.RAGAnswers)
	if err != nil {
		return nil, fmt.Errorf("trecrag: %w", err)
	}
	defer f.Close()
	r := &TrecRAG{path: path, obs: map[string]assay.Observation{}}
	first := map[string]int{}
	err = ReadTrecRAG(f, path, func(line int, a trec.RAGAnswer) error {
		if at, dup := first[a.TopicID]; dup {
			return diag.Errorf(path, line, 0, "topic_id %q already has an answer at line %d", a.TopicID, at)
		}
		first[a.TopicID] = line
		if a.RunID != "" {
			r.runID = a.RunID
		}
		r.obs[a.TopicID] = RAGObservation(a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ragLine is a line as the file may write it: TREC 2024's fields at the
// top level, or TREC 2025's metadata object (narrative_id and narrative
// for the topic); an id may be a string or an integer; other fields are
// ignored.
type ragLine struct {
	RunID          string             `json:"run_id"`
	TopicID        json.RawMessage    `json:"topic_id"`
	Topic          string             `json:"topic"`
	References     []string           `json:"references"`
	ResponseLength int                `json:"response_length"`
	Answer         []trec.RAGSentence `json:"answer"`
	Metadata       *struct {
		RunID       string          `json:"run_id"`
		TopicID     json.RawMessage `json:"topic_id"`
		NarrativeID json.RawMessage `json:"narrative_id"`
		Topic       string          `json:"topic"`
		Narrative   string          `json:"narrative"`
	} `json:"metadata"`
}

// ReadTrecRAG reads answer lines from r (name is the file's name in
// errors) and hands each to yield with its line number. Blank lines are
// skipped. A line that is not a JSON object of the format, has no
// topic_id, or cites an index outside its references is an error naming
// name:line:col; so is a line longer than boundedfile.MaxLine.
func ReadTrecRAG(r io.Reader, name string, yield func(line int, a trec.RAGAnswer) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), boundedfile.MaxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if e := nesting.JSON(b); e != nil {
			return diag.Errorf(name, line, e.Col, "malformed answer line: %s", e.Msg)
		}
		var l ragLine
		if err := json.Unmarshal(b, &l); err != nil {
			col, msg := diag.JSON(err)
			return diag.Errorf(name, line, col, "malformed answer line: %s", msg)
		}
		a := trec.RAGAnswer{RunID: l.RunID, Topic: l.Topic, References: l.References, ResponseLength: l.ResponseLength, Answer: l.Answer}
		id, err := ragID(l.TopicID)
		if err != nil {
			return diag.Errorf(name, line, 0, "topic_id: %v", err)
		}
		a.TopicID = id
		if m := l.Metadata; m != nil {
			if a.RunID == "" {
				a.RunID = m.RunID
			}
			for _, raw := range []json.RawMessage{m.TopicID, m.NarrativeID} {
				if a.TopicID != "" {
					break
				}
				if a.TopicID, err = ragID(raw); err != nil {
					return diag.Errorf(name, line, 0, "metadata: %v", err)
				}
			}
			if a.Topic == "" {
				a.Topic = m.Topic
			}
			if a.Topic == "" {
				a.Topic = m.Narrative
			}
		}
		if a.TopicID == "" {
			return diag.Errorf(name, line, 0, "answer line has no topic_id")
		}
		if err := a.Check(); err != nil {
			return diag.Errorf(name, line, 0, "topic %q: %v", a.TopicID, err)
		}
		if err := yield(line, a); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return diag.Errorf(name, line+1, 0, "%v", boundedfile.ScanErr(err, boundedfile.MaxLine))
	}
	return nil
}

// ragID reads an id written as a JSON string or integer ("" when absent).
func ragID(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			kind := "a number"
			switch raw[0] {
			case '{':
				kind = "an object"
			case '[':
				kind = "a list"
			case 't', 'f':
				kind = "true or false"
			}
			return "", fmt.Errorf("want a string or an integer, got %s", kind)
		}
	}
	return string(raw), nil
}

// RAGObservation is the observation an answer line gives: the references
// ranked in order (scores from len(references) down to 1, so a TREC run
// written from it keeps the order), the sentences one a line (a line break
// inside one written as a space), and one citation per sentence and cited
// reference, placed on its sentence by code point offsets.
func RAGObservation(a trec.RAGAnswer) assay.Observation {
	o := assay.Observation{Case: a.TopicID}
	for i, ref := range a.References {
		o.Retrieved = append(o.Retrieved, assay.Hit{ID: ref, Score: float64(len(a.References) - i)})
	}
	var b strings.Builder
	at := 0 // code points written
	for i, s := range a.Answer {
		if i > 0 {
			b.WriteByte('\n')
			at++
		}
		text := strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s.Text))
		b.WriteString(text)
		start, end := at, at+utf8.RuneCountInString(text)
		at = end
		for _, c := range s.Citations {
			st, en := start, end
			o.Citations = append(o.Citations, assay.Citation{ID: a.References[c], Start: &st, End: &en})
		}
	}
	o.Answer = b.String()
	return o
}

// Observe returns the answer for the case's id.
func (r *TrecRAG) Observe(ctx context.Context, c assay.Case) (assay.Observation, error) {
	o, ok := r.obs[c.ID]
	if !ok {
		return assay.Observation{}, assay.Errorf(assay.ErrMissing, "%s has no answer for topic %q", r.path, c.ID)
	}
	o.Trial = assay.TrialFrom(ctx)
	if r.docs != nil {
		hits := make([]assay.Hit, len(o.Retrieved))
		for i, h := range o.Retrieved {
			if d := r.docs[h.ID]; d != nil {
				h.Title, h.Text = d.Title, d.Text
			}
			hits[i] = h
		}
		o.Retrieved = hits
	}
	return o, nil
}

// Describe names the answer file and its run id.
func (r *TrecRAG) Describe() assay.TargetInfo {
	return assay.TargetInfo{Kind: "trecrag", Spec: "trecrag:" + r.path, Config: map[string]any{"file": r.path, "run_id": r.runID, "topics": len(r.obs)}}
}

// RAGAnswerOf is the answer line of one observation, RAGObservation's
// inverse: the references are the ranking (obs.Ranking), then any document
// a sentence cites that is not in it; the answer is the sentences of
// grade.CitedSentences, without their [n] markers, each citing the
// references it cites (a marker beyond the ranking names no document and
// is dropped); response_length counts the whitespace-separated words.
func RAGAnswerOf(topicID, topic, runID string, obs assay.Observation) trec.RAGAnswer {
	a := trec.RAGAnswer{RunID: runID, TopicID: topicID, Topic: topic, References: obs.Ranking()}
	index := make(map[string]int, len(a.References))
	for i, r := range a.References {
		if _, ok := index[r]; !ok && r != "" {
			index[r] = i
		}
	}
	for _, s := range grade.CitedSentences(obs) {
		out := trec.RAGSentence{Text: s.Text, Citations: []int{}}
		for _, c := range s.Cites {
			if c.Key == "" || c.Beyond {
				continue
			}
			i, ok := index[c.Key]
			if !ok {
				i = len(a.References)
				a.References = append(a.References, c.Key)
				index[c.Key] = i
			}
			out.Citations = append(out.Citations, i)
		}
		a.Answer = append(a.Answer, out)
	}
	for i, r := range a.References {
		if r == "" {
			a.References[i] = trec.Unnamed + fmt.Sprint(i+1)
		}
	}
	a.ResponseLength = a.Words()
	return a
}
