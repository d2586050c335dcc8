package gate

import "testing"

func TestFormatPairShowsTheDigitsThatDiffer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v, b         float64
		wantV, wantB string
	}{
		{0.80000001, 0.8, "0.80000001", "0.8"},
		{0.8, 0.8, "0.8", "0.8"},
		{0.83333, 0.8, "0.8333", "0.8"},
		{12.00000001, 12, "12.00000001", "12"},
		{0.79999999, 0.8, "0.79999999", "0.8"},
		{1200, 1000, "1200", "1000"},
	} {
		v, b := FormatPair(tc.v, tc.b)
		if v != tc.wantV || b != tc.wantB {
			t.Errorf("FormatPair(%v, %v) = %q, %q; want %q, %q", tc.v, tc.b, v, b, tc.wantV, tc.wantB)
		}
	}
}
