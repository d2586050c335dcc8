// Package schema holds the JSON Schemas (draft 2020-12) of assay's file
// formats, embedded in the binary: `assay schema NAME` prints one, for
// editors (the yaml-language-server modeline in docs/suite.md) and for
// tools that check files before assay reads them. The schemas are suite
// (the native suite format), target (target files), floors (floors files)
// and observation (a line of a trace file, the observation of a stored
// case, or what a target answers without a response mapping). Every
// field of every schema has a description, which editors show on hover.
//
// The target and floors schemas reject unknown fields, as their readers
// do; the observation schema accepts them, as the trace reader ignores
// them.
//
// The loader (package suite) stays the reference; the schema accepts what
// it accepts, field by field, and rejects unknown fields (additionalProperties
// false) as the loader does. What needs the whole suite (duplicate ids,
// references into the corpus, regexp syntax, metric and gate syntax) is
// `assay lint`'s, not the schema's. The schema is tested against every
// example and testdata suite of the repository.
package schema

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
)

var (
	//go:embed suite.schema.json
	suiteSchema []byte
	//go:embed target.schema.json
	targetSchema []byte
	//go:embed floors.schema.json
	floorsSchema []byte
	//go:embed observation.schema.json
	observationSchema []byte
)

var schemas = map[string][]byte{
	"suite":       suiteSchema,
	"target":      targetSchema,
	"floors":      floorsSchema,
	"observation": observationSchema,
}

// Names lists the names Get knows, sorted.
func Names() []string {
	out := make([]string, 0, len(schemas))
	for n := range schemas {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Get returns a copy of the schema called name ("suite", "target",
// "floors" or "observation").
func Get(name string) ([]byte, error) {
	s, ok := schemas[name]
	if !ok {
		return nil, fmt.Errorf("unknown schema %q (want one of: %s)", name, strings.Join(Names(), ", "))
	}
	return append([]byte(nil), s...), nil
}

// Suite returns a copy of the JSON Schema of the native suite format.
func Suite() []byte { b, _ := Get("suite"); return b }
