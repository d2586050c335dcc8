package grade

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaCache holds compiled JSON Schemas keyed by the path they were loaded
// from (Expect.JSONSchemaPath). It is filled before a run by NewOptions and
// only read while grading, so it is safe for concurrent readers.
type SchemaCache struct {
	schemas map[string]*jsonschema.Schema
}

// NewSchemaCache returns an empty cache.
func NewSchemaCache() *SchemaCache {
	return &SchemaCache{schemas: map[string]*jsonschema.Schema{}}
}

// Load reads and compiles the schema file at path, unless it is already in
// the cache. Relative "$ref"s resolve against the file's directory. The
// draft comes from "$schema" (2020-12 and 07 are the supported ones; other
// drafts the library knows also work); without "$schema", 2020-12.
func (c *SchemaCache) Load(path string) error { return c.loadAs(path, path) }

// loadAs compiles the file at path and stores it under key.
func (c *SchemaCache) loadAs(key, path string) error {
	if _, ok := c.schemas[key]; ok {
		return nil
	}
	data, err := boundedfile.ReadFile(path, boundedfile.Schema)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return c.add(key, abs, data)
}

// Add compiles schema (JSON bytes) and stores it under key. Relative
// "$ref"s resolve against key as a file path.
func (c *SchemaCache) Add(key string, schema []byte) error {
	abs, err := filepath.Abs(key)
	if err != nil {
		return err
	}
	return c.add(key, abs, schema)
}

func (c *SchemaCache) add(key, abs string, data []byte) error {
	if e := nesting.JSON(data); e != nil {
		return fmt.Errorf("line %d column %d: %s", e.Line, e.Col, e.Msg)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	comp := jsonschema.NewCompiler()
	comp.UseLoader(boundedfile.SchemaLoader)
	comp.DefaultDraft(jsonschema.Draft2020)
	if err := comp.AddResource(abs, doc); err != nil {
		return oneLine(err)
	}
	sch, err := comp.Compile(abs)
	if err != nil {
		return compileError(err)
	}
	if c.schemas == nil {
		c.schemas = map[string]*jsonschema.Schema{}
	}
	c.schemas[key] = sch
	return nil
}

// Get returns the schema stored under path, or nil.
func (c *SchemaCache) Get(path string) *jsonschema.Schema {
	if c == nil {
		return nil
	}
	return c.schemas[path]
}

// Len is the number of schemas in the cache.
func (c *SchemaCache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.schemas)
}

// compileError words a compile failure on one line; a schema that breaks
// its metaschema lists the innermost failures:
// `not a valid schema: at '/type': got string, want array`.
func compileError(err error) error {
	var se *jsonschema.SchemaValidationError
	if errors.As(err, &se) {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			var facts []string
			leaves(ve, &facts)
			return errors.New("not a valid schema: " + strings.Join(facts, "; "))
		}
	}
	return oneLine(err)
}

func oneLine(err error) error {
	return fmt.Errorf("%s", strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " "))
}

// JSONSchema passes when the observation's JSON validates against schema.
// The instance is obs.Fields["json"] when the target mapped one (an HTTP
// response field), otherwise the answer parsed as one JSON value. A failing
// check states why, one fact per failing keyword (at most 5 shown):
// `answer is not JSON: invalid character 'h' looking for beginning of value`,
// `at '/steps/0': missing property 'query'; at '/k': got string, want integer`,
// or `schema not loaded` when schema is nil.
func JSONSchema(obs assay.Observation, schema *jsonschema.Schema) assay.Check {
	if schema == nil {
		return fail(KindJSONSchema, "schema not loaded")
	}
	var inst any
	if v, ok := obs.Fields["json"]; ok {
		b, err := json.Marshal(v)
		if err != nil {
			return fail(KindJSONSchema, "field json is not JSON: "+err.Error())
		}
		inst, _ = jsonschema.UnmarshalJSON(bytes.NewReader(b))
	} else {
		if strings.TrimSpace(obs.Answer) == "" {
			return fail(KindJSONSchema, "answer is not JSON: empty")
		}
		if e := nesting.JSON([]byte(obs.Answer)); e != nil {
			return fail(KindJSONSchema, fmt.Sprintf("answer JSON is %s, at line %d column %d", e.Msg, e.Line, e.Col))
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(obs.Answer))
		if err != nil {
			return fail(KindJSONSchema, "answer is not JSON: "+err.Error())
		}
		inst = v
	}
	err := schema.Validate(inst)
	if err == nil {
		return pass(KindJSONSchema)
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fail(KindJSONSchema, oneLine(err).Error())
	}
	var facts []string
	leaves(ve, &facts)
	const show = 5
	if len(facts) > show {
		facts = append(facts[:show], fmt.Sprintf("(%d more)", len(facts)-show))
	}
	return fail(KindJSONSchema, strings.Join(facts, "; "))
}

var printer = message.NewPrinter(language.English)

// leaves collects one line per innermost validation failure, sorted: the
// library's order follows map iteration, and grading must be deterministic.
func leaves(e *jsonschema.ValidationError, out *[]string) {
	collect(e, out)
	sort.Strings(*out)
	*out = slices.Compact(*out)
}

func collect(e *jsonschema.ValidationError, out *[]string) {
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
