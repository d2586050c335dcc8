package store

import (
	"fmt"

	"github.com/assay-eval/assay"
)

// ReadRunCaseFacts calls fn with each case of a run.json (the path of the
// file or of its directory), in the file's order, decoded as
// StreamRunFacts decodes it: only the fields a comparison reads, the
// result and its maps reused for the next case (fn copies what it
// keeps). The cases are read as ReadRunCaseLines reads them, a line at a
// time, each checked to be one valid JSON object (a record laid out
// otherwise is read with a decoder), and the header is not read: it is
// for a reader that has it already (PeekRun). A run.json as the store
// writes it is read several times faster than StreamRunFacts reads it,
// which tokenizes the whole record. fn returns ErrStop to end the walk.
func ReadRunCaseFacts(path string, fn func(*assay.CaseResult) error) error {
	var f facts
	var r assay.CaseResult
	n := 0
	return ReadRunCaseLines(path, func(line []byte) error {
		n++
		if err := f.decode(line, &r); err != nil {
			return fmt.Errorf("%s: case %d: %v", runFile(path), n, err)
		}
		return fn(&r)
	})
}
