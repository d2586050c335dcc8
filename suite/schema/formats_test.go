package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/suite/schema"
	"github.com/assay-eval/assay/target"
)

// compileNamed compiles the embedded schema called name.
func compileNamed(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := schema.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(name+".schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name + ".schema.json")
	if err != nil {
		t.Fatalf("%s schema does not compile: %v", name, err)
	}
	return s
}

// TestEveryFieldHasADescription walks every schema and fails on a property
// without a description (editors show it on hover).
func TestEveryFieldHasADescription(t *testing.T) {
	for _, name := range schema.Names() {
		compileNamed(t, name)
		b, _ := schema.Get(name)
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		props := 0
		var walk func(n any, at string)
		walk = func(n any, at string) {
			switch n := n.(type) {
			case map[string]any:
				if ps, ok := n["properties"].(map[string]any); ok {
					for k, p := range ps {
						props++
						m, _ := p.(map[string]any)
						if d, _ := m["description"].(string); strings.TrimSpace(d) == "" {
							t.Errorf("%s schema: %s/properties/%s has no description", name, at, k)
						}
					}
				}
				for k, v := range n {
					walk(v, at+"/"+k)
				}
			case []any:
				for i, v := range n {
					walk(v, fmt.Sprintf("%s/%d", at, i))
				}
			}
		}
		walk(doc, "#")
		if props < 9 {
			t.Errorf("%s schema: %d properties found; the walk is broken", name, props)
		}
	}
}

// scriptFiles unpacks every testscript archive of the repository and
// returns the path of each file whose name keep accepts.
func scriptFiles(t *testing.T, keep func(name string) bool) []string {
	t.Helper()
	var out []string
	for _, ar := range scriptArchives(t) {
		for _, name := range ar.names {
			if keep(name) {
				out = append(out, filepath.Join(ar.dir, filepath.FromSlash(name)))
			}
		}
	}
	return out
}

// archive is one testscript's archive written out: the directory it was
// written to and the names of its files, in the archive's order.
type archive struct {
	script, dir string
	names       []string
}

// archives holds every testscript's archive, written once per test binary
// under one temporary directory (TestMain removes it); the tests only read
// what is there.
var archives struct {
	once sync.Once
	root string
	all  []archive
	err  error
}

// scriptArchives writes every testscript's archive, each to a directory of
// its own, the first time it is called, and returns them.
func scriptArchives(t *testing.T) []archive {
	t.Helper()
	archives.once.Do(func() { archives.all, archives.err = writeArchives() })
	if archives.err != nil {
		t.Fatal(archives.err)
	}
	return archives.all
}

func writeArchives() ([]archive, error) {
	scripts, err := filepath.Glob("../../testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		return nil, fmt.Errorf("no scripts: %v", err)
	}
	root, err := os.MkdirTemp("", "schema-scripts-")
	if err != nil {
		return nil, err
	}
	archives.root = root
	var out []archive
	for _, script := range scripts {
		ar, err := txtar.ParseFile(script)
		if err != nil {
			return nil, err
		}
		a := archive{script: filepath.Base(script), dir: filepath.Join(root, strings.TrimSuffix(filepath.Base(script), ".txtar"))}
		for _, f := range ar.Files {
			p := filepath.Join(a.dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				return nil, err
			}
			a.names = append(a.names, f.Name)
		}
		out = append(out, a)
	}
	return out, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if archives.root != "" {
		os.RemoveAll(archives.root)
	}
	os.Exit(code)
}

// asJSON reads YAML or JSON as a value the validator takes.
func asJSON(src []byte) (any, error) {
	var doc any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(js))
}

// TestRepositoryTargetFilesValidate: every target file of the testscripts
// that package target opens validates against the target schema.
func TestRepositoryTargetFilesValidate(t *testing.T) {
	s := compileNamed(t, "target")
	files := scriptFiles(t, func(n string) bool {
		return strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".json")
	})
	n := 0
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if yaml.Unmarshal(src, &top) != nil || top["assay"] != nil || (top["http"] == nil && top["command"] == nil && top["surfaces"] == nil) {
			continue // not a target file
		}
		tg, err := target.ParseFile(p, src, target.Options{Getenv: func(string) string { return "x" }, AllowLiteralSecrets: true})
		if err != nil {
			continue // one package target refuses: not the schema's to accept
		}
		if c, ok := tg.(interface{ Close() error }); ok {
			c.Close()
		}
		if _, err := target.ReadPrices(p); err != nil {
			continue // its prices are refused when a run reads them
		}
		n++
		v, err := asJSON(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: package target opens it but the schema rejects it:\n%v", p, err)
		}
	}
	if n < 10 {
		t.Errorf("only %d target files found; the walk is broken", n)
	}
	bad, _ := asJSON([]byte("http: {url: http://x, retry: 2}\n"))
	if s.Validate(bad) == nil {
		t.Error("the schema accepts the unknown field http.retry")
	}
}

// TestRepositoryFloorsFilesValidate: every floors file of the testscripts
// that gate.ReadFloors reads validates against the floors schema.
func TestRepositoryFloorsFilesValidate(t *testing.T) {
	s := compileNamed(t, "floors")
	n := 0
	for _, p := range scriptFiles(t, func(n string) bool { return strings.Contains(n, "floors") && strings.HasSuffix(n, ".json") }) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gate.ReadFloors(bytes.NewReader(src), p); err != nil || len(bytes.TrimSpace(src)) == 0 {
			continue
		}
		n++
		v, err := asJSON(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: gate reads it but the schema rejects it:\n%v", p, err)
		}
	}
	f := gate.NewFloors()
	f.Floors["ndcg@10"] = 0.6
	old := 0.5
	f.Log = append(f.Log, gate.FloorChange{Date: "2026-11-30T09:12:00Z", RunID: "r1", Metric: "ndcg@10", Old: &old, New: 0.6, Comment: "c"})
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := asJSON(b)
	if err := s.Validate(v); err != nil {
		t.Errorf("a floors file gate writes is rejected: %v", err)
	}
	t.Logf("%d floors files of the testscripts", n)
}

// TestRepositoryObservationsValidate: every line of the testscripts'
// trace files that decodes as an observation validates against the
// observation schema, and so does an observation with every field set.
func TestRepositoryObservationsValidate(t *testing.T) {
	s := compileNamed(t, "observation")
	n := 0
	for _, p := range scriptFiles(t, func(n string) bool { return strings.HasSuffix(n, ".jsonl") }) {
		if _, err := target.ReadTrace(p); err != nil {
			continue // not a trace file, or one the reader refuses
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(src, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			n++
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("%s: %s\nthe schema rejects it:\n%v", p, line, err)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d observation lines found; the walk is broken", n)
	}
	lat, start := 12.5, 0
	full := assay.Observation{Case: "q1", Trial: 1, Turn: 2, Answer: "a", LatencyMs: &lat, Attempts: 2, LatencyTotalMs: &lat,
		Retrieved: []assay.Hit{{ID: "d1", Score: 1, Title: "t", Path: "p", Text: "x"}},
		Citations: []assay.Citation{{ID: "d1", Quote: "x", Start: &start, End: &start}},
		Tools:     []assay.ToolCall{{Name: "search", Args: assay.RawJSON(`{"q":"x"}`)}},
		Spans:     []assay.Span{{Name: "retrieve", StartMs: 0, EndMs: 3}},
		Versions:  map[string]string{"m": "1"}, Usage: map[string]any{"input_tokens": 3}, Measures: map[string]float64{"b": 1},
		Fields: map[string]any{"json": 1}, Error: assay.Errorf(assay.ErrTimeout, "slow")}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err := s.Validate(v); err != nil {
		t.Errorf("%s\nthe schema rejects it:\n%v", b, err)
	}
	t.Logf("%d observation lines of the testscripts", n)
}
