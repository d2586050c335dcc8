package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// FloorsSchema names the floors file format.
const FloorsSchema = "assay.floors/v1"

// DefaultFloorsFile is the conventional name of a floors file.
const DefaultFloorsFile = "assay.floors.json"

// Floors is the content of a floors file: lower bounds that only move up,
// and the log of every raise.
//
//	{"schema": "assay.floors/v1",
//	 "floors": {"ndcg@10": 0.61, "pass_rate": 0.8, "[lang=zh] recall@10": 0.47},
//	 "log": [{"date": "2026-11-30T09:12:00Z", "run_id": "0190...", "metric": "ndcg@10",
//	          "old": 0.55, "new": 0.61, "comment": "new chunker"}]}
type Floors struct {
	Schema string `json:"schema"`
	// Floors maps a metric key (a metric name, optionally scoped:
	// "[lang=zh] recall@10") to its floor. The run's value must be >= it.
	Floors map[string]float64 `json:"floors"`
	Log    []FloorChange      `json:"log"`
}

// FloorChange is one logged raise. Old is nil when the floor was first set.
type FloorChange struct {
	Date    string   `json:"date"`
	RunID   string   `json:"run_id"`
	Metric  string   `json:"metric"`
	Old     *float64 `json:"old"`
	New     float64  `json:"new"`
	Comment string   `json:"comment"`
}

// String renders the change as "ndcg@10 0.55 -> 0.61" ("(unset)" when new).
func (c FloorChange) String() string {
	old := "(unset)"
	if c.Old != nil {
		old = formatValue(*c.Old)
	}
	return fmt.Sprintf("%s %s -> %s", c.Metric, old, formatValue(c.New))
}

// NewFloors returns an empty floors file.
func NewFloors() *Floors {
	return &Floors{Schema: FloorsSchema, Floors: map[string]float64{}}
}

// ReadFloors reads a floors file; name is used in error messages. An empty
// input is an empty floors file. Unknown fields, an unknown schema, a key
// that is not a metric, a metric where lower is better, and a key given
// twice (in the file, or in the floors: "ndcg@10" and "nDCG@10" name one
// floor) are errors; a repeated key is named at its second occurrence,
// file:line:col.
func ReadFloors(r io.Reader, name string) (*Floors, error) {
	data, err := io.ReadAll(boundedfile.Reader(r, boundedfile.Floors))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return NewFloors(), nil
	}
	if e := nesting.JSON(data); e != nil {
		return nil, diag.Errorf(name, e.Line, e.Col, "%s", e.Msg)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	f := &Floors{}
	if err := dec.Decode(f); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// cut short: say where the file ends
			end := len(bytes.TrimRight(data, " \t\r\n"))
			return nil, errorAt(name, data, int64(end), "unexpected end of the file (truncated?)")
		}
		return nil, errorAt(name, data, jsonOffset(err), "%s", jsonReason(err))
	}
	if dec.More() {
		return nil, errorAt(name, data, dec.InputOffset()+int64(len(data[dec.InputOffset():])-len(bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"))), "something follows the floors object (one JSON object per file)")
	}
	if err := duplicateKeys(data, name); err != nil {
		return nil, err
	}
	if f.Schema == "" {
		f.Schema = FloorsSchema
	}
	if f.Schema != FloorsSchema {
		return nil, fmt.Errorf("%s: unknown schema %q (want %q)", name, f.Schema, FloorsSchema)
	}
	if f.Floors == nil {
		f.Floors = map[string]float64{}
	}
	for _, key := range slices.Sorted(maps.Keys(f.Floors)) {
		e, err := parseFloorKey(key, name)
		if err != nil {
			return nil, err
		}
		if !higherIsBetter(e.Metric) {
			return nil, fmt.Errorf("%s: floor %q: %s is not a metric where higher is better (write a gate instead, e.g. %s <= X)", name, key, e.Metric, e.Metric)
		}
		if v := f.Floors[key]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: floor %q: bad value", name, key)
		}
	}
	return f, nil
}

// duplicateKeys refuses a key repeated in the top-level object or in its
// "floors" object, where two spellings of one floor count as the same key
// (encoding/json would keep the last value silently). data is valid JSON.
func duplicateKeys(data []byte, name string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: the decoder already said so
	}
	keyStart := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(data)) {
			switch data[off] {
			case ' ', '\t', '\r', '\n', ',', ':':
				off++
				continue
			}
			break
		}
		return off
	}
	top := map[string]bool{}
	for dec.More() {
		at := keyStart()
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		if top[key] {
			return errorAt(name, data, at, "key %q repeated (each key once)", key)
		}
		top[key] = true
		if key != "floors" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			continue // null: nothing to repeat
		}
		seen := map[string]string{} // canonical floor -> key as written
		for dec.More() {
			at := keyStart()
			t, err := dec.Token()
			if err != nil {
				return nil
			}
			fk, _ := t.(string)
			canon := fk
			if e, err := parseFloorKey(fk, name); err == nil {
				canon = e.Metric
				if e.Scope != nil {
					canon = e.Scope.String() + " " + e.Metric
				}
			}
			if prev, dup := seen[canon]; dup {
				if prev == fk {
					return errorAt(name, data, at, "floor %q repeated (each floor once)", fk)
				}
				return errorAt(name, data, at, "floor %q repeats floor %q (each floor once)", fk, prev)
			}
			seen[canon] = fk
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil
			}
		}
		if _, err := dec.Token(); err != nil { // the closing }
			return nil
		}
	}
	return nil
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Error()
	case errors.As(err, &te):
		want := jsonKind(te.Type)
		if te.Field == "" {
			return fmt.Sprintf("want %s (a floors file), got %s", want, te.Value)
		}
		return fmt.Sprintf("%s: want %s, got %s", te.Field, want, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go type as the JSON value it decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// jsonOffset is the byte offset of a JSON decoding error, -1 when it has none.
func jsonOffset(err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset - 1 // Offset counts the offending byte
	case errors.As(err, &te):
		return te.Offset
	}
	return -1
}

// errorAt is a positioned error at byte offset off of data (name alone
// when off is outside data).
func errorAt(name string, data []byte, off int64, format string, args ...any) error {
	if off < 0 || off > int64(len(data)) {
		return diag.Errorf(name, 0, 0, format, args...)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	if col < 1 {
		col = 1
	}
	return diag.Errorf(name, line, col, format, args...)
}

// parseFloorKey reads a floors key: "[scope] METRIC".
func parseFloorKey(key, source string) (Expr, error) {
	e, err := Parse(key+" >= 0", source)
	if err != nil || e.Kind != Threshold {
		reason := "want METRIC or [tag=value] METRIC"
		var pe *ParseError
		if errors.As(err, &pe) {
			reason = pe.Reason
		}
		return Expr{}, fmt.Errorf("%s: floor %q: %s", source, key, reason)
	}
	return e, nil
}

// Write writes the floors file as indented JSON (keys in order), ending in
// a newline.
func (f *Floors) Write(w io.Writer) error {
	out := *f
	if out.Schema == "" {
		out.Schema = FloorsSchema
	}
	if out.Floors == nil {
		out.Floors = map[string]float64{}
	}
	if out.Log == nil {
		out.Log = []FloorChange{}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Exprs returns the floors as gate expressions "KEY >= FLOOR", in key
// order, each with source "NAME: floor".
func (f *Floors) Exprs(name string) []Expr {
	var out []Expr
	for _, key := range slices.Sorted(maps.Keys(f.Floors)) {
		e, err := parseFloorKey(key, name)
		if err != nil {
			continue // ReadFloors rejected these; a hand-built Floors may hold one
		}
		e.Op = GE
		e.Bound = f.Floors[key]
		e.Text = key + " >= " + formatNumber(e.Bound)
		e.Source = name
		out = append(out, e)
	}
	return out
}

// Check evaluates every floor against the run. name (the file) is the
// source of each result.
func (f *Floors) Check(run *assay.Run, name string) Verdict {
	v := EvaluateExprs(f.Exprs(name), run, nil)
	for _, key := range slices.Sorted(maps.Keys(f.Floors)) {
		if _, err := parseFloorKey(key, name); err != nil {
			v.Pass = false
			v.Results = append(v.Results, assay.GateResult{Expr: key, Source: name, Detail: err.Error()})
		}
	}
	return v
}

// RatchetOptions configure Ratchet.
type RatchetOptions struct {
	// Margin is subtracted from what the run achieved before raising a
	// floor (a floor of 0.6 - 0.01 leaves room for noise). Must be >= 0.
	Margin float64
	// Comment is stored with every raise in the log.
	Comment string
	// Now dates the log entries (UTC, RFC 3339).
	Now time.Time
	// Name is the floors file name, for messages.
	Name string
}

// ErrIncomplete is returned by Ratchet for a run that did not complete.
var ErrIncomplete = errors.New("an incomplete run never ratchets floors")

// Ratchet raises each floor to the value the run achieved minus the margin,
// never lowering one, and appends every raise to the log. On an empty floors
// file it sets floors for pass_rate and every metric the run computed. The
// run of a variant (Run.Variant) ratchets only the floors scoped to its
// variant, "[variant=NAME] METRIC", and sets them on its first ratchet. It
// refuses (ErrIncomplete) a run that is not complete; callers should also
// not ratchet a run that fails its floors (Check first). It returns the
// changes made, in key order.
func (f *Floors) Ratchet(run *assay.Run, o RatchetOptions) ([]FloorChange, error) {
	if run == nil || run.Status != assay.StatusComplete {
		return nil, ErrIncomplete
	}
	if o.Margin < 0 || math.IsNaN(o.Margin) || math.IsInf(o.Margin, 0) {
		return nil, fmt.Errorf("margin must be a number >= 0, got %v", o.Margin)
	}
	if f.Floors == nil {
		f.Floors = map[string]float64{}
	}
	if f.Schema == "" {
		f.Schema = FloorsSchema
	}
	keys := slices.Sorted(maps.Keys(f.Floors))
	if name := VariantName(run.Variant); name != "" {
		// The run of one variant of a matrix ratchets that variant's
		// floors ("[variant=rm3] ndcg@10"), set on its first ratchet,
		// never another's and never the unscoped ones (which it is still
		// checked against): one floors file can hold a whole matrix.
		var own []string
		for _, key := range keys {
			if e, err := parseFloorKey(key, o.Name); err == nil && e.Scope != nil {
				if match, isVariant := variantScope(run, e.Scope); isVariant && match {
					own = append(own, key)
				}
			}
		}
		if len(own) == 0 {
			for _, key := range initialFloorKeys(run) {
				own = append(own, "[variant="+name+"] "+key)
			}
		}
		keys = own
	} else if len(keys) == 0 {
		keys = initialFloorKeys(run)
	}
	date := o.Now.UTC().Format(time.RFC3339)
	var changes []FloorChange
	for _, key := range keys {
		e, err := parseFloorKey(key, o.Name)
		if err != nil {
			return nil, err
		}
		cand, detail := viewOf(run, e.Scope)
		if detail != "" {
			continue
		}
		val, detail := lookup(cand, e.Metric)
		if detail != "" {
			continue
		}
		next := roundDown(math.Max(0, val-o.Margin))
		old, had := f.Floors[key]
		if had && next <= old+Epsilon {
			continue
		}
		c := FloorChange{Date: date, RunID: run.RunID, Metric: key, New: next, Comment: o.Comment}
		if had {
			c.Old = &old
		}
		f.Floors[key] = next
		f.Log = append(f.Log, c)
		changes = append(changes, c)
	}
	return changes, nil
}

// initialFloorKeys are the floors a first ratchet sets: pass_rate when
// cases were graded, and every metric the run computed.
func initialFloorKeys(run *assay.Run) []string {
	var keys []string
	if run.Summary.PassRate != nil {
		keys = append(keys, "pass_rate")
	}
	for _, name := range slices.Sorted(maps.Keys(run.Summary.Metrics)) {
		if run.Summary.Metrics[name].N > 0 {
			keys = append(keys, name)
		}
	}
	return keys
}

// roundDown truncates to 4 decimals, so a run holds the floor it set.
func roundDown(v float64) float64 {
	return math.Floor(v*1e4+1e-7) / 1e4
}
