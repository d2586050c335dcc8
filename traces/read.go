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
	td, _, err := parseAll(name, src, false)
	return td, err
}

// parseAll reads src as OTLP/JSON documents, and, with langfuse, a value
// that is Langfuse traces (langfuseTraces) as those.
func parseAll(name string, src []byte, langfuse bool) ([]TracesData, []LangfuseTrace, error) {
	if e := nesting.JSON(src); e != nil {
		return nil, nil, diag.Errorf(name, e.Line, e.Col, "malformed trace export: %s", e.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	var out []TracesData
	var lf []LangfuseTrace
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		var td TracesData
		if err == nil {
			if !bytes.Contains(raw, []byte(`"resourceSpans"`)) && langfuse && looksLangfuse(raw) {
				var ts []LangfuseTrace
				if ts, err = langfuseTraces(raw); err == nil {
					lf = append(lf, ts...)
					continue
				}
			} else {
				err = json.Unmarshal(raw, &td)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_, msg := diag.JSON(err)
			var off int
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			// Offsets of a syntax error count from the stream's start;
			// those of a value decoded again, from the value's.
			vstart := int(start) + leadingSpace(src[start:])
			switch {
			case errors.As(err, &se) && raw == nil:
				off = int(se.Offset) - 1 // the offending byte
			case errors.As(err, &te):
				off = vstart + int(te.Offset)
			default:
				off = vstart
			}
			line, c := position(src, off)
			return nil, nil, diag.Errorf(name, line, c, "malformed trace export: %s", msg)
		}
		if len(td.ResourceSpans) == 0 && !bytes.Contains(raw, []byte(`"resourceSpans"`)) {
			line, c := position(src, int(start)+leadingSpace(src[start:]))
			msg := "not an OTLP/JSON trace export: want an object with \"resourceSpans\""
			if langfuse {
				msg += ", or Langfuse traces (objects with \"id\" and \"observations\")"
			}
			return nil, nil, diag.Errorf(name, line, c, "%s", msg)
		}
		out = append(out, td)
	}
	return out, lf, nil
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
