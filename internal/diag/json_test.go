package diag

import (
	"encoding/json"
	"testing"
)

// TestJSON: a decoding error is told in JSON words at its column.
func TestJSON(t *testing.T) {
	var v struct {
		Score float64  `json:"score"`
		IDs   []string `json:"ids"`
	}
	for _, tc := range []struct {
		in   string
		col  int
		want string
	}{
		{`{"score": "high"}`, 16, "score: want a number, got string"},
		{`{"ids": 3}`, 9, "ids: want a list, got number"},
		{`{"score": }`, 11, "invalid character '}' looking for beginning of value"},
	} {
		col, msg := JSON(json.Unmarshal([]byte(tc.in), &v))
		if col != tc.col || msg != tc.want {
			t.Errorf("%s: got %d %q, want %d %q", tc.in, col, msg, tc.col, tc.want)
		}
	}
}
