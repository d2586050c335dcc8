package store

import (
	"encoding/json"

	"github.com/assay-eval/assay"
)

// ReadAnswers calls fn with the id and the answer of each case line of a
// run (path as ReadCases takes it), with the bounds, positions and
// torn-line rule of ReadCases. Only those two fields of each line are
// decoded: a line's retrieved documents, spans and the rest of its
// observation are skipped, so a pass over a large run costs much less
// than ReadCases. A line without an observation gives answer "" and
// hasObservation false.
func ReadAnswers(path string, fn func(id, answer string, hasObservation bool) error) error {
	return readCases(path, decodeAnswer, func(r assay.CaseResult) error {
		if r.Observation == nil {
			return fn(r.ID, "", false)
		}
		return fn(r.ID, r.Observation.Answer, true)
	})
}

// decodeAnswer decodes a case line's id and its observation's answer
// into r, with the field names and matching of the whole decode.
func decodeAnswer(b []byte, r *assay.CaseResult) error {
	var line struct {
		ID          string `json:"id"`
		Observation *struct {
			Answer string `json:"answer"`
		} `json:"observation"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		return err
	}
	r.ID = line.ID
	if line.Observation != nil {
		r.Observation = &assay.Observation{Answer: line.Observation.Answer}
	}
	return nil
}
