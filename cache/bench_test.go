package cache_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/redact"
)

// benchValue is a target observation of the quickstart kind (~3 KB).
var benchValue = []byte(`{"case":"q001","trial":0,"answer":"` + strings.Repeat("Tokens are hashed with SHA-256 before storage. ", 60) + `","refused":null,"latency_ms":12.5,"error":null}`)

// BenchmarkGet: a hit (open, check header, length and checksum).
func BenchmarkGet(b *testing.B) {
	c, _ := cache.Open(filepath.Join(b.TempDir(), "cache"))
	k := cache.Key("bench")
	c.Put("target", k, benchValue)
	b.SetBytes(int64(len(benchValue)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := c.Get("target", k); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkPut: a redacted, atomic write (temporary file and rename; no
// fsync) with one secret, not present.
func BenchmarkPut(b *testing.B) {
	c, _ := cache.Open(filepath.Join(b.TempDir(), "cache"))
	c.Redact(redact.Secret{Name: "K", Value: "sk-live-Hx72Lq90PzW"})
	k := cache.Key("bench")
	b.SetBytes(int64(len(benchValue)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Put("target", k, benchValue); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKey: the key of a target response (fingerprint, case fields, trial).
func BenchmarkKey(b *testing.B) {
	parts := []any{"target/v1", "sha256:0123456789abcdef", map[string]string{"model": "m"}, map[string]any{"id": "q001", "query": "how are invitation tokens hashed", "k": 10}, 0}
	b.ReportAllocs()
	for b.Loop() {
		cache.Key(parts...)
	}
}
