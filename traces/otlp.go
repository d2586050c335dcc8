package traces

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The OTLP/JSON shapes this package reads and writes: the protobuf JSON
// mapping of opentelemetry-proto's TracesData, as the collector's file
// exporter writes it (lowerCamelCase fields, trace and span ids as hex,
// 64-bit integers as decimal strings or numbers, enums as integers).

// TracesData is one OTLP/JSON document (a line of the file exporter).
type TracesData struct {
	ResourceSpans []ResourceSpans `json:"resourceSpans"`
}

// ResourceSpans are the spans of one resource (a service).
type ResourceSpans struct {
	Resource   Resource     `json:"resource"`
	ScopeSpans []ScopeSpans `json:"scopeSpans"`
	SchemaURL  string       `json:"schemaUrl,omitempty"`
}

// Resource holds the attributes of the process that made the spans.
type Resource struct {
	Attributes []KeyValue `json:"attributes,omitempty"`
}

// ScopeSpans are the spans of one instrumentation scope.
type ScopeSpans struct {
	Scope Scope  `json:"scope"`
	Spans []Span `json:"spans"`
}

// Scope names an instrumentation library.
type Scope struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// Span is one OTLP span.
type Span struct {
	TraceID           string     `json:"traceId"`
	SpanID            string     `json:"spanId"`
	ParentSpanID      string     `json:"parentSpanId,omitempty"`
	Name              string     `json:"name"`
	Kind              Int        `json:"kind,omitempty"`
	StartTimeUnixNano Uint       `json:"startTimeUnixNano"`
	EndTimeUnixNano   Uint       `json:"endTimeUnixNano"`
	Attributes        []KeyValue `json:"attributes,omitempty"`
	Events            []Event    `json:"events,omitempty"`
	Status            Status     `json:"status"`
}

// Event is a timed annotation of a span (gen_ai.evaluation.result, a
// user's feedback, a prompt or a completion).
type Event struct {
	TimeUnixNano Uint       `json:"timeUnixNano"`
	Name         string     `json:"name"`
	Attributes   []KeyValue `json:"attributes,omitempty"`
}

// Status is a span's outcome: Code 2 is an error.
type Status struct {
	Code    Int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// StatusError is the status code of a span that failed.
const StatusError = 2

// KeyValue is one attribute.
type KeyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value"`
}

// AnyValue is an attribute's value: exactly one field is set.
type AnyValue struct {
	StringValue *string       `json:"stringValue,omitempty"`
	BoolValue   *bool         `json:"boolValue,omitempty"`
	IntValue    *Int          `json:"intValue,omitempty"`
	DoubleValue *Double       `json:"doubleValue,omitempty"`
	ArrayValue  *ArrayValue   `json:"arrayValue,omitempty"`
	KvlistValue *KeyValueList `json:"kvlistValue,omitempty"`
	BytesValue  *string       `json:"bytesValue,omitempty"`
}

// ArrayValue is a list of values.
type ArrayValue struct {
	Values []AnyValue `json:"values"`
}

// KeyValueList is a map of values, in order.
type KeyValueList struct {
	Values []KeyValue `json:"values"`
}

// Int is a 64-bit integer, written as a decimal string (the protobuf JSON
// mapping) and read from a string or a number.
type Int int64

// MarshalJSON writes the integer as a decimal string.
func (i Int) MarshalJSON() ([]byte, error) { return json.Marshal(strconv.FormatInt(int64(i), 10)) }

// UnmarshalJSON reads a decimal string or a JSON number.
func (i *Int) UnmarshalJSON(b []byte) error {
	s, err := numberText(b)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			*i = Int(f)
			return nil
		}
		return fmt.Errorf("want an integer, got %s", b)
	}
	*i = Int(n)
	return nil
}

// Uint is an unsigned 64-bit integer (a time in Unix nanoseconds), as Int.
type Uint uint64

// MarshalJSON writes the integer as a decimal string.
func (u Uint) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatUint(uint64(u), 10))
}

// UnmarshalJSON reads a decimal string or a JSON number.
func (u *Uint) UnmarshalJSON(b []byte) error {
	s, err := numberText(b)
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want an unsigned integer, got %s", b)
	}
	*u = Uint(n)
	return nil
}

// Double is a float64 read from a number or from the strings "NaN",
// "Infinity" and "-Infinity" (the protobuf JSON mapping).
type Double float64

// MarshalJSON writes a number, or the protobuf JSON string of a NaN or an
// infinity.
func (d Double) MarshalJSON() ([]byte, error) {
	f := float64(d)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads a number or a string holding one.
func (d *Double) UnmarshalJSON(b []byte) error {
	s, err := numberText(b)
	if err != nil {
		return err
	}
	switch s {
	case "NaN":
		*d = Double(math.NaN())
		return nil
	case "Infinity":
		*d = Double(math.Inf(1))
		return nil
	case "-Infinity":
		*d = Double(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("want a number, got %s", b)
	}
	*d = Double(f)
	return nil
}

// numberText is the text of a JSON number or of a JSON string.
func numberText(b []byte) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		return strings.TrimSpace(s), nil
	}
	if len(b) == 0 || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		return "", fmt.Errorf("want a number, got %s", b)
	}
	return string(b), nil
}

// Text is the value as text: a string as it is, numbers and booleans
// formatted, bytes in base64, arrays and lists as JSON.
func (v AnyValue) Text() string {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return strconv.FormatBool(*v.BoolValue)
	case v.IntValue != nil:
		return strconv.FormatInt(int64(*v.IntValue), 10)
	case v.DoubleValue != nil:
		return strconv.FormatFloat(float64(*v.DoubleValue), 'g', -1, 64)
	case v.BytesValue != nil:
		return *v.BytesValue
	case v.ArrayValue != nil, v.KvlistValue != nil:
		b, _ := json.Marshal(v.Go())
		return string(b)
	}
	return ""
}

// Number is the value as a number: ok is false when it is not one (a
// string is read as a number when it holds one).
func (v AnyValue) Number() (float64, bool) {
	switch {
	case v.IntValue != nil:
		return float64(*v.IntValue), true
	case v.DoubleValue != nil:
		f := float64(*v.DoubleValue)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case v.StringValue != nil:
		f, err := strconv.ParseFloat(strings.TrimSpace(*v.StringValue), 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	case v.BoolValue != nil:
		if *v.BoolValue {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Go is the value as a Go value: string, bool, int64, float64, []byte,
// []any or map[string]any.
func (v AnyValue) Go() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.IntValue != nil:
		return int64(*v.IntValue)
	case v.DoubleValue != nil:
		f := float64(*v.DoubleValue)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v.Text()
		}
		return f
	case v.BytesValue != nil:
		if b, err := base64.StdEncoding.DecodeString(*v.BytesValue); err == nil {
			return b
		}
		return *v.BytesValue
	case v.ArrayValue != nil:
		out := make([]any, len(v.ArrayValue.Values))
		for i, x := range v.ArrayValue.Values {
			out[i] = x.Go()
		}
		return out
	case v.KvlistValue != nil:
		out := make(map[string]any, len(v.KvlistValue.Values))
		for _, kv := range v.KvlistValue.Values {
			out[kv.Key] = kv.Value.Go()
		}
		return out
	}
	return nil
}

// String, Float and Bool make attribute values.
func String(s string) AnyValue { return AnyValue{StringValue: &s} }

// Float is a double value.
func Float(f float64) AnyValue { d := Double(f); return AnyValue{DoubleValue: &d} }

// Bool is a boolean value.
func Bool(b bool) AnyValue { return AnyValue{BoolValue: &b} }

// Integer is an integer value.
func Integer(n int64) AnyValue { i := Int(n); return AnyValue{IntValue: &i} }
