package cache

import (
	"bytes"
	"testing"
)

// FuzzReadEntry: any file at an entry's path is its value or a miss,
// never a panic; what it accepts has the checksum it claims.
func FuzzReadEntry(f *testing.F) {
	key := Key("k")
	f.Add([]byte("assay.cache/v1 judge " + key + " 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 5\nhello"))
	f.Add([]byte("assay.cache/v1 judge " + key + " x -1\n"))
	f.Add([]byte("assay.cache/v1 judge " + key + " x 99999999999999999999\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, why := readEntry(bytes.NewReader(b), "judge", key)
		if why == "" && !bytes.HasSuffix(b, v) {
			t.Fatalf("value %q not from the file", v)
		}
	})
}
