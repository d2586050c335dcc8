package redact

import (
	"encoding/json"
	"reflect"
)

var rawJSONType = reflect.TypeOf(json.RawMessage(nil))

// Value returns a deep copy of v with every string redacted, wherever it
// sits: struct fields, map keys and values, slice and array elements,
// pointers, interfaces, and []byte (a json.RawMessage stays valid JSON).
// v itself is not changed. With nothing to redact, v is returned as is.
func Value[T any](r *Redactor, v T) T {
	if r.Empty() {
		return v
	}
	return valueOf(r, v)
}

// valueOf is Value with a secret configured. It is apart from Value so
// that v is copied to the heap (reflect takes its address) only here: a
// run without secrets makes no allocation a call.
func valueOf[T any](r *Redactor, v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if !r.needs(rv) {
		// Nothing to replace: no copy (most results hold no secret).
		return v
	}
	out := r.value(rv)
	return out.Interface().(T)
}

// needs reports whether some string in v holds a secret.
func (r *Redactor) needs(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return s != "" && r.String(s) != s
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && r.needs(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && r.needs(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			b := v.Bytes()
			return len(b) > 0 && r.String(string(b)) != string(b)
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if r.needs(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if r.needs(it.Key()) || r.needs(it.Value()) {
				return true
			}
		}
	}
	return false
}

func (r *Redactor) value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		red := r.String(s)
		if red == s {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.SetString(red)
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type().Elem())
		n.Elem().Set(r.value(v.Elem()))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Type()).Elem()
		n.Set(r.value(v.Elem()))
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		n.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			n.Field(i).Set(r.value(v.Field(i)))
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return r.bytesValue(v)
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(r.value(v.Index(i)))
		}
		return n
	case reflect.Array:
		n := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(r.value(v.Index(i)))
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			n.SetMapIndex(r.value(it.Key()), r.value(it.Value()))
		}
		return n
	}
	return v
}

// bytesValue redacts a byte slice; JSON stays JSON.
func (r *Redactor) bytesValue(v reflect.Value) reflect.Value {
	b := v.Bytes()
	s := r.String(string(b))
	if s == string(b) {
		return v
	}
	if v.Type() == rawJSONType && json.Valid(b) && !json.Valid([]byte(s)) {
		// A secret that spanned JSON syntax: keep the redacted text as a
		// JSON string rather than write invalid JSON.
		q, _ := json.Marshal(s)
		s = string(q)
	}
	n := reflect.MakeSlice(v.Type(), len(s), len(s))
	reflect.Copy(n, reflect.ValueOf([]byte(s)))
	return n
}
