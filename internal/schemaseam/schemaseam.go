// Package schemaseam is where the JSON Schema validator of the
// json_schema check plugs in: packages suite (which checks a suite's
// schema files as it loads them) and grade (which compiles them and
// validates answers) reach the validator only through Validator, and
// package grade/jsonschema registers the one they use in its init, as a
// database/sql driver registers itself. A program that imports neither
// it nor a package that does (harness/opener, the assay command) links no
// JSON Schema library; a suite of it that states json_schema is refused
// by grade with an error that names the package to import.
package schemaseam

import "sync"

// Import is the package a program imports (a blank import is enough)
// to register the validator.
const Import = "github.com/assay-eval/assay/grade/jsonschema"

// A Validator compiles JSON Schemas.
type Validator interface {
	// Compile compiles data, the schema read from the file abs (an
	// absolute path: its "$ref"s resolve against abs's directory, their
	// files read under boundedfile's Schema limit). The draft comes from
	// "$schema"; without it, 2020-12. The error is one line.
	Compile(abs string, data []byte) (Schema, error)
	// Check is "" when data, read from the file abs, is a valid JSON
	// Schema, else why not on one line ("not JSON: ...", "invalid schema:
	// ..."), naming the files it refers to relative to abs's directory.
	Check(abs string, data []byte) string
}

// A Schema is a compiled JSON Schema.
type Schema interface {
	// Validate validates the JSON text doc: err when doc is not one JSON
	// value, else one fact per innermost failure ("at '/k': got string,
	// want integer"), sorted and without repeats; none when doc is valid.
	Validate(doc []byte) (facts []string, err error)
}

var registered struct {
	sync.Mutex
	v Validator
}

// Register makes v the validator of packages suite and grade. A later
// call replaces an earlier one; a nil v panics.
func Register(v Validator) {
	if v == nil {
		panic("schemaseam: Register with nil Validator")
	}
	registered.Lock()
	defer registered.Unlock()
	registered.v = v
}

// Registered is the validator last registered; nil when none is.
func Registered() Validator {
	registered.Lock()
	defer registered.Unlock()
	return registered.v
}
