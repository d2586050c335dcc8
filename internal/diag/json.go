package diag

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// JSON gives the column of an encoding/json decoding error within the
// bytes decoded (1 when it is not known) and what went wrong, in JSON
// words: "retrieved.score: want a number, got string", not Go's "Go struct
// field Hit.retrieved.score of type float64". Readers of JSON lines put it
// at their line with Errorf.
func JSON(err error) (col int, msg string) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return int(max(se.Offset, 1)), se.Error()
	case errors.As(err, &te):
		want := JSONKind(te.Type.Kind())
		if te.Field == "" {
			return int(max(te.Offset, 1)), fmt.Sprintf("want %s, got %s", want, te.Value)
		}
		return int(max(te.Offset, 1)), fmt.Sprintf("%s: want %s, got %s", te.Field, want, te.Value)
	}
	return 1, strings.TrimPrefix(err.Error(), "json: ")
}

// JSONKind names what a value of Go kind k is in JSON ("a number", "a
// list"), for messages.
func JSONKind(k reflect.Kind) string {
	switch k {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}
