// Package jsonschema is the JSON Schema validator of the json_schema
// check (github.com/santhosh-tekuri/jsonschema/v6). Importing it, blank,
// registers it in its init, as a database/sql driver registers itself:
//
//	import _ "github.com/assay-eval/assay/grade/jsonschema"
//
// Package harness/opener imports it, and so does the assay command. It
// is apart from packages grade and suite so that a program whose suites
// state no json_schema (a Go test that imports only package assaytest)
// links no JSON Schema library and none of its metaschemas; without it, a
// suite that states json_schema is refused before any case runs, with an
// error that names this package.
package jsonschema

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/schemaseam"
	lib "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

func init() { schemaseam.Register(validator{}) }

// validator is the library's compiler as a schemaseam.Validator.
type validator struct{}

// Compile compiles data as the schema at abs, 2020-12 unless "$schema"
// says otherwise; a schema that breaks its metaschema lists the innermost
// failures: `not a valid schema: at '/type': got string, want array`.
func (validator) Compile(abs string, data []byte) (schemaseam.Schema, error) {
	doc, err := lib.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	comp := lib.NewCompiler()
	comp.UseLoader(loader)
	comp.DefaultDraft(lib.Draft2020)
	if err := comp.AddResource(abs, doc); err != nil {
		return nil, oneLine(err)
	}
	sch, err := comp.Compile(abs)
	if err != nil {
		return nil, compileError(err)
	}
	return schema{sch}, nil
}

// Check compiles data as the schema at abs (a file:// URL) and words what
// is wrong with it: for a schema that fails its metaschema, the first
// leaf of the failure tree ("at '/type': got number, want string").
func (validator) Check(abs string, data []byte) string {
	doc, err := lib.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return "not JSON: " + firstLine(err.Error())
	}
	url := "file://" + filepath.ToSlash(abs)
	c := lib.NewCompiler()
	c.UseLoader(loader)
	err = c.AddResource(url, doc)
	if err == nil {
		_, err = c.Compile(url)
	}
	if err != nil {
		msg := schemaMessage(err)
		// Name files relative to the schema's directory, not as file:// URLs.
		msg = strings.ReplaceAll(msg, "file://"+filepath.ToSlash(filepath.Dir(abs))+"/", "")
		return "invalid schema: " + msg
	}
	return ""
}

// schema is a compiled schema as a schemaseam.Schema.
type schema struct{ s *lib.Schema }

// Validate decodes doc as the library does (numbers kept exact) and
// validates it.
func (s schema) Validate(doc []byte) ([]string, error) {
	inst, err := lib.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*lib.ValidationError)
	if !ok {
		return []string{oneLine(err).Error()}, nil
	}
	var facts []string
	leaves(ve, &facts)
	return facts, nil
}

// compileError words a compile failure on one line; a schema that breaks
// its metaschema lists the innermost failures.
func compileError(err error) error {
	var se *lib.SchemaValidationError
	if errors.As(err, &se) {
		var ve *lib.ValidationError
		if errors.As(se.Err, &ve) {
			var facts []string
			leaves(ve, &facts)
			return errors.New("not a valid schema: " + strings.Join(facts, "; "))
		}
	}
	return oneLine(err)
}

// schemaMessage is one line out of a compile error: for a schema that
// fails its metaschema, the first leaf of the failure tree.
func schemaMessage(err error) string {
	var sve *lib.SchemaValidationError
	if errors.As(err, &sve) {
		lines := strings.Split(err.Error(), "\n")
		indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "" {
				continue
			}
			if i+1 == len(lines) || indent(lines[i+1]) <= indent(lines[i]) {
				return strings.TrimPrefix(strings.TrimSpace(lines[i]), "- ")
			}
		}
	}
	return firstLine(err.Error())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func oneLine(err error) error {
	return fmt.Errorf("%s", strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " "))
}

var printer = message.NewPrinter(language.English)

// leaves collects one line per innermost validation failure, sorted: the
// library's order follows map iteration, and grading must be deterministic.
func leaves(e *lib.ValidationError, out *[]string) {
	collect(e, out)
	sort.Strings(*out)
	*out = slices.Compact(*out)
}

func collect(e *lib.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		*out = append(*out, "at "+pointer(e.InstanceLocation)+": "+e.ErrorKind.LocalizedString(printer))
		return
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

// pointer writes a JSON pointer in single quotes: '/steps/0'.
func pointer(tokens []string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		t = strings.ReplaceAll(t, "/", "~1")
		b.WriteString(t)
	}
	b.WriteByte('\'')
	return b.String()
}

// loader loads the files a schema's "$ref"s name (file:// URLs) under
// boundedfile's Schema limit; the library's own FileLoader reads any file
// whole, /dev/zero included.
var loader lib.URLLoader = lib.SchemeURLLoader{"file": fileLoader{}}

type fileLoader struct{}

func (fileLoader) Load(url string) (any, error) {
	path, err := lib.FileLoader{}.ToFile(url)
	if err != nil {
		return nil, err
	}
	f, err := boundedfile.Open(path, boundedfile.Schema)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return lib.UnmarshalJSON(f)
}
