package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// ErrStop, returned by the fn of ReadRunCases, ends the walk early
// without an error.
var ErrStop = errors.New("stop")

// ReadRunCases calls fn with each case of a run.json (the path of the
// file or of its directory), in the file's order, decoding one case at a
// time: the first cases of a large run are read without reading the rest
// (the web UI's first page). fn returns ErrStop to end the walk. The
// header is skipped unchecked (PeekRun and LoadRun check it); a file
// whose cases are not a JSON list is an error naming the file.
func ReadRunCases(path string, fn func(assay.CaseResult) error) error {
	file := runFile(path)
	f, err := boundedfile.Open(file, boundedfile.RunRecord)
	if err != nil {
		return fileErr(file, err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("%s: not a run record (want a JSON object)", file)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
		if key, _ := t.(string); key != "cases" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("%s: %v", file, err)
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			if t == nil && err == nil {
				return nil // "cases": null
			}
			return fmt.Errorf("%s: cases is not a list", file)
		}
		for i := 1; dec.More(); i++ {
			var c assay.CaseResult
			if err := dec.Decode(&c); err != nil {
				return fmt.Errorf("%s: case %d: %v", file, i, err)
			}
			if err := fn(c); err != nil {
				if errors.Is(err, ErrStop) {
					return nil
				}
				return err
			}
		}
		return nil
	}
	return nil
}
