package grade

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
	"github.com/assay-eval/assay/internal/schemaseam"
)

// Schema is a compiled JSON Schema (the registered validator's).
type Schema = schemaseam.Schema

// errNoValidator is the error of a json_schema check with no validator
// registered.
var errNoValidator = errors.New("no JSON Schema validator is registered: import package " + schemaseam.Import + " (a blank import registers it; package harness/opener imports it)")

// SchemaCache holds compiled JSON Schemas keyed by the path they were loaded
// from (Expect.JSONSchemaPath). It is filled before a run by NewOptions and
// only read while grading, so it is safe for concurrent readers. Schemas
// are compiled by the validator package grade/jsonschema registers;
// without it, Load and Add fail, saying so.
type SchemaCache struct {
	schemas map[string]Schema
}

// NewSchemaCache returns an empty cache.
func NewSchemaCache() *SchemaCache {
	return &SchemaCache{schemas: map[string]Schema{}}
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
	v := schemaseam.Registered()
	if v == nil {
		return errNoValidator
	}
	if e := nesting.JSON(data); e != nil {
		return fmt.Errorf("line %d column %d: %s", e.Line, e.Col, e.Msg)
	}
	sch, err := v.Compile(abs, data)
	if err != nil {
		return err
	}
	if c.schemas == nil {
		c.schemas = map[string]Schema{}
	}
	c.schemas[key] = sch
	return nil
}

// Get returns the schema stored under path, or nil.
func (c *SchemaCache) Get(path string) Schema {
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

// JSONSchema passes when the observation's JSON validates against schema.
// The instance is obs.Fields["json"] when the target mapped one (an HTTP
// response field), otherwise the answer parsed as one JSON value. A failing
// check states why, one fact per failing keyword (at most 5 shown):
// `answer is not JSON: invalid character 'h' looking for beginning of value`,
// `at '/steps/0': missing property 'query'; at '/k': got string, want integer`,
// or `schema not loaded` when schema is nil.
func JSONSchema(obs assay.Observation, schema Schema) assay.Check {
	if schema == nil {
		return fail(KindJSONSchema, "schema not loaded")
	}
	var doc []byte
	if v, ok := obs.Fields["json"]; ok {
		b, err := json.Marshal(v)
		if err != nil {
			return fail(KindJSONSchema, "field json is not JSON: "+err.Error())
		}
		doc = b
	} else {
		if strings.TrimSpace(obs.Answer) == "" {
			return fail(KindJSONSchema, "answer is not JSON: empty")
		}
		if e := nesting.JSON([]byte(obs.Answer)); e != nil {
			return fail(KindJSONSchema, fmt.Sprintf("answer JSON is %s, at line %d column %d", e.Msg, e.Line, e.Col))
		}
		doc = []byte(obs.Answer)
	}
	facts, err := schema.Validate(doc)
	if err != nil {
		return fail(KindJSONSchema, "answer is not JSON: "+err.Error())
	}
	if len(facts) == 0 {
		return pass(KindJSONSchema)
	}
	const show = 5
	if len(facts) > show {
		facts = append(facts[:show:show], fmt.Sprintf("(%d more)", len(facts)-show))
	}
	return fail(KindJSONSchema, strings.Join(facts, "; "))
}
