package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
)

// canonicalSuite is what Fingerprint hashes: everything that changes what a
// run measures, and nothing that does not (name, description, file paths,
// positions, comments, the order of cases).
type canonicalSuite struct {
	Defaults       assay.Defaults    `json:"defaults"`
	Metrics        []string          `json:"metrics"`
	Gain           assay.Gain        `json:"gain"`
	RefusalMarkers []string          `json:"refusal_markers"`
	Tools          []string          `json:"tools"`
	Analyzer       string            `json:"analyzer"`
	Gates          []string          `json:"gates"`
	Cases          []assay.Case      `json:"cases"`
	Schemas        map[string]string `json:"schemas,omitempty"` // json_schema as written -> sha256 of the file
	Corpus         string            `json:"corpus"`            // corpus.Fingerprint
}

// Fingerprint is "sha256:<hex>" over the canonical suite: its cases (sorted
// by id), defaults, metrics, gain, refusal markers, tools, analyzer, gate
// expressions, the bytes of its json_schema files, and the corpus
// fingerprint (corpus.Fingerprint). Renaming the suite, reordering cases or
// editing comments keeps the fingerprint; changing a case, a judgment, a
// gate or a document changes it.
func Fingerprint(s *assay.Suite) string {
	c := canonicalSuite{
		Defaults:       s.Defaults,
		Metrics:        s.Metrics,
		Gain:           s.Gain,
		RefusalMarkers: s.RefusalMarkers,
		Tools:          s.Tools,
		Analyzer:       s.Analyzer,
		Cases:          slices.Clone(s.Cases),
		Corpus:         corpus.Fingerprint(s.Corpus),
	}
	for _, g := range s.Gates {
		c.Gates = append(c.Gates, g.Expr)
	}
	slices.SortStableFunc(c.Cases, func(a, b assay.Case) int { return strings.Compare(a.ID, b.ID) })
	for _, k := range s.Cases {
		if k.Expect.JSONSchema == "" {
			continue
		}
		if c.Schemas == nil {
			c.Schemas = map[string]string{}
		}
		p := k.Expect.JSONSchemaPath
		if p == "" {
			p = resolvePath(s.Dir, k.Expect.JSONSchema)
		}
		c.Schemas[k.Expect.JSONSchema] = fileSHA256(p)
	}
	b, err := json.Marshal(c)
	if err != nil { // cannot happen: the record holds only strings, numbers and maps
		panic(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileSHA256 is the hex SHA-256 of a file's bytes, or "" when it cannot be read.
func fileSHA256(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
