package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
)

// StreamRun reads the run record at path (a run.json or its directory) as
// LoadRun does, but one case at a time: fn is called with each case as it
// is decoded (the result is reused afterwards: fn keeps what it needs, not
// the pointer), and the run is returned without its cases. Only one case's
// result is held at a time, so a caller that keeps a few facts per case
// (a comparison) reads a run of any size in little more memory than those
// facts.
//
// StreamRun accepts exactly the records LoadRun accepts and refuses the
// others with LoadRun's error: when the stream cannot be read to the end
// (a syntax error, a record nested too deep, a case without an id or
// listed twice, a bad schema or status...), the file is read again whole
// by LoadRun for its positioned error. Should LoadRun read a record that
// the stream refused (the cases key spelled in another case, or given
// twice), restart is called and fn is called again with every case of the
// run as LoadRun read it.
func StreamRun(path string, fn func(*assay.CaseResult), restart func()) (*assay.Run, error) {
	return streamRunWith(path, decodeCase, fn, restart)
}

// decodeCase decodes the case line raw into r, whole.
func decodeCase(raw []byte, r *assay.CaseResult) error {
	*r = assay.CaseResult{}
	return json.Unmarshal(raw, r)
}

// streamRunWith is StreamRun with each case line decoded by decode (into
// a result it may reuse from the previous line).
func streamRunWith(path string, decode func([]byte, *assay.CaseResult) error, fn func(*assay.CaseResult), restart func()) (*assay.Run, error) {
	file := runFile(path)
	run, err := streamRun(file, decode, fn)
	if err == nil {
		return run, nil
	}
	run, err = LoadRun(path)
	if err != nil {
		return nil, err
	}
	restart()
	for i := range run.Cases {
		fn(&run.Cases[i])
	}
	run.Cases = nil
	return run, nil
}

// errStream is a record the stream does not read; LoadRun says why.
var errStream = errors.New("run record not read as a stream")

// streamRun decodes the record's top-level keys one by one: each case of
// "cases" is checked for depth (as nested in the record) and decoded on
// its own, and every other key is kept raw and decoded at the end as the
// run's head. Any error is errStream or the decoder's; StreamRun replaces
// it by LoadRun's.
func streamRun(file string, decode func([]byte, *assay.CaseResult) error, fn func(*assay.CaseResult)) (*assay.Run, error) {
	f, err := boundedfile.Open(file, boundedfile.RunRecord)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errStream
	}
	head := []byte{'{'}
	var raw json.RawMessage
	var buf []byte
	// depthOK checks raw for depth as nested at level: what LoadRun's
	// check of the whole record would find there.
	depthOK := func(level int) bool {
		buf = append(buf[:0], strings.Repeat("[", level)...)
		buf = append(buf, raw...)
		buf = append(buf, strings.Repeat("]", level)...)
		return nesting.JSON(buf) == nil
	}
	seen := map[caseKey]bool{}
	n := 0
	add := func(r *assay.CaseResult) error {
		k := caseKey{r.ID, r.Trial}
		if r.ID == "" || seen[k] {
			return errStream
		}
		seen[k] = true
		n++
		fn(r)
		return nil
	}
	casesSeen := false
	var r assay.CaseResult
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		if strings.EqualFold(key, "cases") {
			if key != "cases" || casesSeen {
				return nil, errStream
			}
			casesSeen = true
			if t, err = dec.Token(); err != nil {
				return nil, err
			}
			if t == nil { // "cases": null
				continue
			}
			if t != json.Delim('[') {
				return nil, errStream
			}
			for dec.More() {
				if err := dec.Decode(&raw); err != nil {
					return nil, err
				}
				if !depthOK(2) {
					return nil, errStream
				}
				if err := decode(raw, &r); err != nil {
					return nil, err
				}
				if err := add(&r); err != nil {
					return nil, err
				}
			}
			if t, err := dec.Token(); err != nil || t != json.Delim(']') {
				return nil, errStream
			}
			continue
		}
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if !depthOK(1) {
			return nil, errStream
		}
		kb, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		if len(head) > 1 {
			head = append(head, ',')
		}
		head = append(append(append(head, kb...), ':'), raw...)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, errStream
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errStream
	}
	var run assay.Run
	if err := json.Unmarshal(append(head, '}'), &run); err != nil {
		return nil, err
	}
	switch {
	case run.Schema != assay.RunSchema, run.RunID == "",
		run.Status != assay.StatusComplete && run.Status != assay.StatusIncomplete:
		return nil, errStream
	}
	if run.Status == assay.StatusIncomplete && n == 0 {
		err := ReadCases(filepath.Dir(file), func(r assay.CaseResult) error { return add(&r) })
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return &run, nil
}
