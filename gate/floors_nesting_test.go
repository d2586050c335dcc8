package gate

import (
	"strings"
	"testing"
)

// TestReadFloorsDeep: a floors file nested deeper than 1000 levels is
// refused with its position before it is decoded.
func TestReadFloorsDeep(t *testing.T) {
	_, err := ReadFloors(strings.NewReader(`{"schema": "assay.floors/v1", "log": `+strings.Repeat("[", 60000)), "f.json")
	if err == nil || err.Error() != "f.json:1:1037: nested more than 1000 levels deep (the limit)" {
		t.Fatalf("got %v", err)
	}
}
