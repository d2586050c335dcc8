package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/corpus"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/canonjson"
)

// canonicalSuite is what Fingerprint hashes: everything that changes what a
// run measures, and nothing that does not (name, description, file paths,
// positions, comments, the order of cases).
type canonicalSuite struct {
	Defaults       assay.Defaults    `json:"defaults"`
	Metrics        []string          `json:"metrics"`
	Gain           assay.Gain        `json:"gain"`
	RecallOver     string            `json:"recall_over,omitempty"`
	RefusalMarkers []string          `json:"refusal_markers"`
	Tools          []string          `json:"tools"`
	Analyzer       string            `json:"analyzer"`
	Gates          []string          `json:"gates"`
	NCases         int               `json:"n_cases"`
	Cases          string            `json:"cases"`             // hex of the caseDigest
	Schemas        map[string]string `json:"schemas,omitempty"` // json_schema as written -> sha256 of the file
	Corpus         string            `json:"corpus"`            // corpus.Fingerprint
}

// caseDigest is the sum modulo 2^256 of the SHA-256 of each case's
// canonical JSON (big-endian; json.Marshal's bytes, written without
// reflection by canonjson.AppendCase when it can): it does not depend on the order of the
// cases, and can be summed case by case.
type caseDigest struct {
	sum     [sha256.Size]byte
	n       int
	schemas map[string]string // json_schema as written -> its resolved path
	buf     []byte            // the case's canonical JSON, reused from case to case
}

// add adds a case of the suite whose directory is dir.
func (d *caseDigest) add(c *assay.Case, dir string) {
	var ok bool
	if d.buf, ok = canonjson.AppendCase(d.buf[:0], c); !ok {
		b, err := json.Marshal(c)
		if err != nil { // cannot happen: a case holds only strings, numbers and maps
			panic(err)
		}
		d.buf = append(d.buf[:0], b...)
	}
	h := sha256.Sum256(d.buf)
	carry := 0
	for i := len(d.sum) - 1; i >= 0; i-- {
		v := int(d.sum[i]) + int(h[i]) + carry
		d.sum[i], carry = byte(v), v>>8
	}
	d.n++
	if w := c.Expect.JSONSchema; w != "" {
		if _, done := d.schemas[w]; !done {
			p := c.Expect.JSONSchemaPath
			if p == "" {
				p = resolvePath(dir, w)
			}
			if d.schemas == nil {
				d.schemas = map[string]string{}
			}
			d.schemas[w] = p
		}
	}
}

// Fingerprint is "sha256:<hex>" over the canonical suite: its defaults,
// metrics, gain, refusal markers, tools, analyzer, gate expressions, the
// number of cases and the sum modulo 2^256 of the SHA-256 of each case's
// canonical JSON, the SHA-256 of each json_schema file (keyed by the path
// as written), and the corpus fingerprint (corpus.Fingerprint). The sum
// makes it one pass over the cases in any order, so that Stream computes
// the same value without holding them. Renaming the suite, reordering
// cases or editing comments keeps the fingerprint; changing a case, a
// judgment, a gate, a json_schema file or a document changes it.
func Fingerprint(s *assay.Suite) string {
	var d caseDigest
	for i := range s.Cases {
		d.add(&s.Cases[i], s.Dir)
	}
	return fingerprintOf(s, &d)
}

// fingerprintOf is the fingerprint of the suite s (whose cases are ignored)
// with the cases summed in d.
func fingerprintOf(s *assay.Suite, d *caseDigest) string {
	c := canonicalSuite{
		Defaults:       s.Defaults,
		Metrics:        s.Metrics,
		Gain:           s.Gain,
		RecallOver:     s.RecallOver,
		RefusalMarkers: s.RefusalMarkers,
		Tools:          s.Tools,
		Analyzer:       s.Analyzer,
		NCases:         d.n,
		Cases:          hex.EncodeToString(d.sum[:]),
		Corpus:         corpus.Fingerprint(s.Corpus),
	}
	for _, g := range s.Gates {
		c.Gates = append(c.Gates, g.Expr)
	}
	for w, p := range d.schemas {
		if c.Schemas == nil {
			c.Schemas = map[string]string{}
		}
		c.Schemas[w] = fileSHA256(p)
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
	f, err := boundedfile.Open(path, boundedfile.SuiteInput)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
