package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// ReadFile reads an OTLP/JSON trace export: one TracesData object, or
// several (the collector's file exporter writes one a line), under the
// size limit of boundedfile.TraceExport (a FIFO refused, a pipe named by
// /dev/stdin accepted). An error is positioned "file:line:col: msg".
func ReadFile(path string) ([]TracesData, error) {
	b, err := boundedfile.ReadFile(path, boundedfile.TraceExport)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads the OTLP/JSON documents of src (see ReadFile); name is the
// file named in errors.
func Parse(name string, src []byte) ([]TracesData, error) {
	if e := nesting.JSON(src); e != nil {
		return nil, diag.Errorf(name, e.Line, e.Col, "malformed trace export: %s", e.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	var out []TracesData
	for {
		start := dec.InputOffset()
		var td TracesData
		err := dec.Decode(&td)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_, msg := diag.JSON(err)
			var off int
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &se):
				off = int(se.Offset) - 1 // the offending byte
			case errors.As(err, &te):
				off = int(te.Offset)
			default:
				off = int(dec.InputOffset())
			}
			line, c := position(src, off)
			return nil, diag.Errorf(name, line, c, "malformed trace export: %s", msg)
		}
		if len(td.ResourceSpans) == 0 && !bytes.Contains(src[start:dec.InputOffset()], []byte(`"resourceSpans"`)) {
			line, c := position(src, int(start)+leadingSpace(src[start:]))
			return nil, diag.Errorf(name, line, c, "not an OTLP/JSON trace export: want an object with \"resourceSpans\"")
		}
		out = append(out, td)
	}
	return out, nil
}

func leadingSpace(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
}

// position is the 1-based line and column (in runes) of byte offset off
// of src (clamped to src).
func position(src []byte, off int) (line, col int) {
	off = max(0, min(off, len(src)))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, utf8.RuneCount(src[start:off]) + 1
}
