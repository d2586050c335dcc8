package store

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/assay-eval/assay"
)

// StreamRunFacts is StreamRun for a reader of the facts a comparison
// reads (package compare's Compact): each case fn is given holds only its
// id, trial, pass, error, checks (kind and pass),
// metrics, latency, usage, tags, retrieved, citations, refused, top score
// and hash; every other field is left zero. The result fn is given, and
// its maps and checks, are reused for the next case: fn copies what it
// keeps.
//
// A case line is read field by field without decoding the whole result,
// which is several times faster than StreamRun at 100,000 cases. The
// fields it reads are read exactly as LoadRun reads them: a line this
// reader does not take as written (a key spelled in another case or given
// twice, an escaped or non-UTF-8 string, a value of another type, a number
// out of range, an error object) is decoded whole instead, and a line that
// does not decode has LoadRun's error. The fields it does not read are not
// checked: a record whose only fault is a wrongly typed field no
// comparison reads (a case's stages given as a string, say) is read here
// and refused by LoadRun.
func StreamRunFacts(path string, fn func(*assay.CaseResult), restart func()) (*assay.Run, error) {
	var f facts
	return streamRunWith(path, f.decode, fn, restart)
}

// facts decodes case lines into the fields a comparison reads, reusing
// its result's maps and checks.
type facts struct {
	metrics map[string]float64
	tags    map[string]string
	checks  []assay.Check
	pass    bool
	latency float64
	top     float64
}

// errSlow is a line the field reader leaves to the whole decoder.
var errSlow = errors.New("case line decoded whole")

// decode reads raw (one case, checked JSON) into r, or decodes it whole
// into a fresh result when it is not in the form the reader takes.
func (f *facts) decode(raw []byte, r *assay.CaseResult) error {
	if err := f.read(raw, r); err == nil {
		return nil
	}
	return decodeCase(raw, r)
}

// factKeys are the names read, in bit order (a key given twice is left
// to the whole decoder).
var factKeys = [...]string{"id", "trial", "pass", "error", "checks", "metrics", "latency_ms",
	"usage", "tags", "retrieved", "citations", "refused", "top_score", "hash"}

func (f *facts) read(raw []byte, r *assay.CaseResult) error {
	doc := gjson.ParseBytes(raw)
	if !doc.IsObject() {
		return errSlow
	}
	if f.metrics == nil {
		f.metrics, f.tags = map[string]float64{}, map[string]string{}
	}
	*r = assay.CaseResult{}
	var seen uint32
	var err error
	doc.ForEach(func(k, v gjson.Result) bool {
		key, ok := plainString(k)
		if !ok {
			err = errSlow
			return false
		}
		bit := -1
		for i, name := range factKeys {
			if key == name {
				bit = i
				break
			}
			if strings.EqualFold(key, name) {
				err = errSlow // encoding/json's case-folded match
				return false
			}
		}
		if bit < 0 {
			return true // a field not read
		}
		if seen&(1<<bit) != 0 {
			err = errSlow
			return false
		}
		seen |= 1 << bit
		err = f.field(key, v, r)
		return err == nil
	})
	return err
}

// field reads one field's value v into r.
func (f *facts) field(key string, v gjson.Result, r *assay.CaseResult) error {
	if v.Type == gjson.Null && key != "error" && key != "metrics" && key != "tags" && key != "checks" {
		return nil // null leaves a field zero
	}
	var err error
	switch key {
	case "id":
		r.ID, err = str(v)
	case "hash":
		r.Hash, err = str(v)
	case "trial":
		r.Trial, err = integer(v)
	case "retrieved":
		r.Retrieved, err = integer(v)
	case "citations":
		r.Citations, err = integer(v)
	case "pass":
		f.pass, err = boolean(v)
		r.Pass = &f.pass
	case "refused":
		r.Refused, err = boolean(v)
	case "latency_ms":
		f.latency, err = number(v)
		r.LatencyMs = &f.latency
	case "top_score":
		f.top, err = number(v)
		r.TopScore = &f.top
	case "error":
		if v.Type != gjson.Null {
			return errSlow // rare: decoded whole
		}
	case "usage":
		var u assay.Usage
		if err := json.Unmarshal([]byte(v.Raw), &u); err != nil {
			return errSlow
		}
		r.Usage = &u
	case "metrics":
		clear(f.metrics)
		if v.Type == gjson.Null {
			return nil
		}
		if !v.IsObject() {
			return errSlow
		}
		r.Metrics = f.metrics
		v.ForEach(func(k, v gjson.Result) bool {
			var name string
			var ok bool
			var x float64
			if name, ok = plainString(k); !ok {
				err = errSlow
				return false
			}
			if x, err = number(v); err != nil {
				return false
			}
			f.metrics[name] = x
			return true
		})
	case "tags":
		clear(f.tags)
		if v.Type == gjson.Null {
			return nil
		}
		if !v.IsObject() {
			return errSlow
		}
		r.Tags = f.tags
		v.ForEach(func(k, v gjson.Result) bool {
			name, ok := plainString(k)
			value, vok := plainString(v)
			if !ok || !vok {
				err = errSlow
				return false
			}
			f.tags[name] = value
			return true
		})
	case "checks":
		f.checks = f.checks[:0]
		if v.Type == gjson.Null {
			return nil
		}
		if !v.IsArray() {
			return errSlow
		}
		v.ForEach(func(_, c gjson.Result) bool {
			var ch assay.Check
			if ch, err = check(c); err != nil {
				return false
			}
			f.checks = append(f.checks, ch)
			return true
		})
		r.Checks = f.checks
	}
	return err
}

// check reads a check's kind and pass (its detail is checked to be a
// string, not kept).
func check(c gjson.Result) (ch assay.Check, err error) {
	if !c.IsObject() {
		return ch, errSlow
	}
	var seen [3]bool
	c.ForEach(func(k, v gjson.Result) bool {
		key, ok := plainString(k)
		if !ok {
			err = errSlow
			return false
		}
		i := -1
		for j, name := range [3]string{"kind", "pass", "detail"} {
			if key == name {
				i = j
			} else if strings.EqualFold(key, name) {
				err = errSlow
				return false
			}
		}
		if i < 0 {
			return true
		}
		if seen[i] {
			err = errSlow
			return false
		}
		seen[i] = true
		if v.Type == gjson.Null {
			return true
		}
		switch i {
		case 0:
			ch.Kind, err = str(v)
		case 1:
			ch.Pass, err = boolean(v)
		case 2: // checked to be a string, not kept: any string of a
			// valid line decodes (an escaped one too)
			if v.Type != gjson.String {
				err = errSlow
			}
		}
		return err == nil
	})
	return ch, err
}

// plainString is a JSON string's value when it has no escape and is valid
// UTF-8 (then its bytes are its value, as encoding/json reads it).
func plainString(v gjson.Result) (string, bool) {
	if v.Type != gjson.String || len(v.Raw) < 2 {
		return "", false
	}
	s := v.Raw[1 : len(v.Raw)-1]
	if strings.IndexByte(s, '\\') >= 0 || !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

func str(v gjson.Result) (string, error) {
	if s, ok := plainString(v); ok {
		return strings.Clone(s), nil
	}
	return "", errSlow
}

func integer(v gjson.Result) (int, error) {
	if v.Type != gjson.Number {
		return 0, errSlow
	}
	n, err := strconv.ParseInt(v.Raw, 10, 0)
	if err != nil {
		return 0, errSlow
	}
	return int(n), nil
}

func number(v gjson.Result) (float64, error) {
	if v.Type != gjson.Number {
		return 0, errSlow
	}
	x, err := strconv.ParseFloat(v.Raw, 64)
	if err != nil {
		return 0, errSlow
	}
	return x, nil
}

func boolean(v gjson.Result) (bool, error) {
	switch v.Type {
	case gjson.True:
		return true, nil
	case gjson.False:
		return false, nil
	}
	return false, errSlow
}
