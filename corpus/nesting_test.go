package corpus

import (
	"strings"
	"testing"
)

// TestReadJSONLDeep: a corpus line nested deeper than 1000 levels is
// refused with its line and column before it is decoded.
func TestReadJSONLDeep(t *testing.T) {
	src := "{\"_id\": \"a\", \"text\": \"x\"}\n{\"_id\": \"b\", \"metadata\": " + strings.Repeat("[", 60000) + "\n"
	_, err := ReadJSONL("c.jsonl", strings.NewReader(src))
	if err == nil || err.Error() != "c.jsonl:2:1025: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("got %v", err)
	}
}
