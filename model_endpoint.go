package assay

import (
	"fmt"
	"net/url"
	"strings"
)

// ModelEndpoint is an `embeddings:` or `rerank:` block of a suite or a
// target file, as written: the OpenAI-compatible endpoint the built-in
// hybrid target calls (docs/targets.md#hybrid). APIKey holds what the file
// says (normally "${VAR}"), and URL may hold ${VAR} too; the target
// expands them through its Getenv, treats the values as secrets and never
// records them.
type ModelEndpoint struct {
	URL        string `json:"url"`
	Model      string `json:"model"`
	APIKey     string `json:"api_key,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	Batch      int    `json:"batch,omitempty"`
	// Pos maps a field name ("" for the block itself) to where it was
	// written ("suite.yaml:12:5"), for messages.
	Pos map[string]string `json:"-"`
}

// ModelEndpointFields are the fields of an embeddings: or rerank: block.
var ModelEndpointFields = []string{"url", "model", "api_key", "dimensions", "batch"}

// MaxEmbedBatch bounds ModelEndpoint.Batch.
const MaxEmbedBatch = 2048

// CheckModelEndpointField checks one field's value as the parsers of
// suites and target files read it, and returns the message of what is
// wrong ("" when nothing is): url an http(s) URL without user info (a
// ${VAR} in it is checked once expanded), model not empty,
// api_key a ${VAR} reference (a key is not written in a file that gets
// committed), dimensions >= 0, batch 1..MaxEmbedBatch.
func CheckModelEndpointField(field, s string, n int) string {
	switch field {
	case "url":
		if strings.Contains(s, "${") {
			return "" // checked once expanded
		}
		if u, err := url.Parse(s); err == nil && u.User != nil {
			return "url: user info in the URL: give the key as api_key: ${VAR}"
		}
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") || len(s) <= len("https://") {
			return fmt.Sprintf("url: want an http:// or https:// base URL (OpenAI convention, e.g. http://127.0.0.1:11434/v1), got %q", s)
		}
	case "model":
		if strings.TrimSpace(s) == "" {
			return "model: empty"
		}
	case "api_key":
		if !strings.Contains(s, "${") {
			return "api_key: write the key as ${VAR} and set VAR in the environment (a key written in the file would be committed with it)"
		}
	case "dimensions":
		if n < 0 {
			return fmt.Sprintf("dimensions: must be 0 (the model's own) or more, got %d", n)
		}
	case "batch":
		if n < 1 || n > MaxEmbedBatch {
			return fmt.Sprintf("batch: must be 1..%d, got %d", MaxEmbedBatch, n)
		}
	}
	return ""
}
