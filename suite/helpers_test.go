package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

func dumpParsed(p *parsed) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%+v\nprobs %+v\nwarns %+v\nlines %+v\ntop %+v", *p.suite, p.probs, p.warns, p.caseLines, p.topLines)
}

func looksNative(b []byte) bool {
	return bytes.Contains(b, []byte("assay:")) || bytes.Contains(b, []byte(`"assay"`))
}

// readTxtar returns the files of the txtar archive at path.
func readTxtar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseTxtar(data)
}

// parseTxtar is the files of a txtar archive by name.
func parseTxtar(data []byte) map[string][]byte {
	files := map[string][]byte{}
	var name string
	var cur []byte
	for _, l := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(l, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			if name != "" {
				files[name] = cur
			}
			name, cur = strings.TrimSpace(trimmed[3:len(trimmed)-3]), []byte{}
			continue
		}
		if name != "" {
			cur = append(cur, l...)
		}
	}
	if name != "" {
		files[name] = cur
	}
	return files
}

// jsonlForms writes the native YAML or JSON suite src in dir as a JSONL
// suite (<name>.jsonl) and as a suite whose cases are in a JSONL file
// (<name>-cf.yaml naming <name>-cases.jsonl), and returns their paths;
// ok is false when src is not a mapping with a list of cases.
func jsonlForms(t *testing.T, dir, name string, src []byte) (jsonlPath, casesFilePath string, ok bool) {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(src, &m); err != nil || m == nil {
		return "", "", false
	}
	cases, isList := m["cases"].([]any)
	if !isList || len(cases) == 0 {
		return "", "", false
	}
	delete(m, "cases")
	head, err := json.Marshal(m)
	if err != nil {
		return "", "", false
	}
	var lines bytes.Buffer
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			return "", "", false
		}
		lines.Write(b)
		lines.WriteByte('\n')
	}
	jsonlPath = filepath.Join(dir, name+".jsonl")
	casesFilePath = filepath.Join(dir, name+"-cf.yaml")
	m["cases"] = name + "-cases.jsonl"
	cf, err := json.Marshal(m)
	if err != nil {
		return "", "", false
	}
	for p, data := range map[string][]byte{
		jsonlPath:                               append(append(head, '\n'), lines.Bytes()...),
		casesFilePath:                           cf,
		filepath.Join(dir, name+"-cases.jsonl"): lines.Bytes(),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return jsonlPath, casesFilePath, true
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtures.dir != "" {
		os.RemoveAll(fixtures.dir)
	}
	os.Exit(code)
}
