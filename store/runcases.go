package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/tidwall/gjson"
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
	return eachCase(runFile(path), func(file string, i int, dec *json.Decoder) error {
		var c assay.CaseResult
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("%s: case %d: %v", file, i, err)
		}
		return fn(c)
	})
}

// eachCase walks the cases of the run record file with one decoder,
// calling each to read the i-th case (from 1) from dec: the header's
// other keys are skipped unchecked, "cases": null is no case, and each
// returning ErrStop ends the walk without an error. ReadRunCases and
// readRawCases are this walk with the case decoded whole or kept raw.
func eachCase(file string, each func(file string, i int, dec *json.Decoder) error) error {
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
			if err := each(file, i, dec); err != nil {
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

// ReadRunCaseLines calls fn with the encoding of each case of a run.json
// (the path of the file or of its directory), in the file's order,
// without decoding it: a caller that needs a few fields of every case
// (the web UI's filtered case table) reads them from the bytes and
// decodes whole only the cases it keeps. A run.json as the store writes
// it holds one case a line, and each line is checked to be one valid
// JSON object; a run record laid out otherwise (the indented --json
// output) is read with a decoder, each case then given as the file
// writes it. fn returns ErrStop to end the walk; it must not keep the
// slice it was given. A case that is not a JSON object, or a list that
// ends early, is an error naming the file and the case.
func ReadRunCaseLines(path string, fn func(c []byte) error) error {
	file := runFile(path)
	f, err := boundedfile.Open(file, boundedfile.RunRecord)
	if err != nil {
		return fileErr(file, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	var long []byte
	// line is the next line of the file without its newline, or nil at
	// the end of the file.
	line := func() ([]byte, error) {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		if len(b) == 0 {
			return nil, nil
		}
		return bytes.TrimSuffix(b, []byte{'\n'}), nil
	}
	first, err := line()
	if err != nil {
		return err
	}
	if !bytes.Equal(first, []byte{'{'}) {
		return readRawCases(file, fn)
	}
	for {
		b, err := line()
		if err != nil {
			return err
		}
		switch {
		case b == nil:
			return readRawCases(file, fn)
		case bytes.Equal(b, []byte(`  "cases": []`)):
			return nil
		case !bytes.Equal(b, []byte(`  "cases": [`)):
			continue
		}
		break
	}
	for i := 1; ; i++ {
		b, err := line()
		if err != nil {
			return err
		}
		c, more := bytes.CutSuffix(b, []byte{','})
		c, ok := bytes.CutPrefix(c, []byte("    {"))
		if !ok || !bytes.HasSuffix(c, []byte{'}'}) {
			if i == 1 && b != nil && bytes.Equal(bytes.TrimSpace(b), []byte{'{'}) {
				// Indented cases: not the store's layout.
				return readRawCases(file, fn)
			}
			return fmt.Errorf("%s: case %d: not one JSON object on its line", file, i)
		}
		c = b[4 : 4+1+len(c)]
		if e := nesting.JSON(c); e != nil {
			return fmt.Errorf("%s: case %d: %v", file, i, e.Msg)
		}
		if !gjson.ValidBytes(c) {
			return fmt.Errorf("%s: case %d: not valid JSON", file, i)
		}
		if err := fn(c); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
		if !more {
			if end, err := line(); err != nil || !bytes.Equal(end, []byte("  ]")) && !bytes.Equal(end, []byte("  ],")) {
				if err == nil {
					err = fmt.Errorf("%s: after case %d: want the end of the cases", file, i)
				}
				return err
			}
			return nil
		}
	}
}

// readRawCases is ReadRunCaseLines of a run record not laid out a case a
// line: each case's bytes as a decoder reads them.
func readRawCases(file string, fn func([]byte) error) error {
	return eachCase(file, func(file string, i int, dec *json.Decoder) error {
		var c json.RawMessage
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("%s: case %d: %v", file, i, err)
		}
		if len(c) == 0 || c[0] != '{' {
			return fmt.Errorf("%s: case %d: not a JSON object", file, i)
		}
		return fn(c)
	})
}
