package store

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// IndexText is s as every store keeps it in a text column of its index
// (suite name, target, case id, error class, metric name, ...) and as a
// filter on such a column is matched: each byte that is not part of valid
// UTF-8 becomes U+FFFD, as encoding/json writes it into the run record,
// and so does NUL, which PostgreSQL text cannot hold. The files store and
// Postgres apply the same rule, so the same run lists the same in both.
// The run record and case lines keep their JSON, NUL included.
func IndexText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == 0:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// IndexMetrics is a case's metrics as the index's metrics column holds
// them: a JSON object ("{}" for none) whose names are IndexText.
func IndexMetrics(m map[string]float64) ([]byte, error) {
	if len(m) == 0 {
		return []byte("{}"), nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[IndexText(k)] = v
	}
	return json.Marshal(out)
}

// IndexLabels is a run's labels as an index keeps them (IndexText keys
// and values); nil for none.
func IndexLabels(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[IndexText(k)] = IndexText(v)
	}
	return out
}

// IndexLabelsJSON is IndexLabels as the index's labels column holds it:
// a JSON object, "{}" for none.
func IndexLabelsJSON(m map[string]string) ([]byte, error) {
	if len(m) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(IndexLabels(m))
}
