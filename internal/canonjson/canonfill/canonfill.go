// Package canonfill helps the tests of package canonjson's callers keep
// up with the types they encode: Each sets every field of a struct, one
// at a time and nested structs' fields too, to a value that is not zero,
// so that a test comparing an encoding written by hand with encoding/json
// sees a field added to the type and not to the encoder.
package canonfill

import (
	"reflect"
	"strings"
)

// Each calls f once for every field of the struct *p reachable through
// nested structs (not through pointers, slices or maps), with that field
// alone set to a value that is not zero (and *p otherwise as it was);
// path names the field ("Expect.Cites"). *p is restored after each call.
func Each(p any, f func(path string)) {
	v := reflect.ValueOf(p).Elem()
	each(v, nil, f)
}

func each(v reflect.Value, path []string, f func(string)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Tag.Get("json") == "-" {
			continue
		}
		fv := v.Field(i)
		p := append(path[:len(path):len(path)], sf.Name)
		old := reflect.New(fv.Type()).Elem()
		old.Set(fv)
		if fv.Kind() == reflect.Struct {
			each(fv, p, f)
		}
		fv.Set(nonZero(fv.Type()))
		f(strings.Join(p, "."))
		fv.Set(old)
	}
}

// nonZero is a value of t that is not zero: a string that needs escaping
// in JSON, 3, true, a list or map of one such value, a pointer to one.
func nonZero(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("x<\"é\u2028")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		v.Elem().Set(nonZero(t.Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
		v.Index(0).Set(nonZero(t.Elem()))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(nonZero(t.Key()), nonZero(t.Elem()))
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(nonZero(t.Field(i).Type))
			}
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf("x"))
	}
	return v
}
