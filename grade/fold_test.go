package grade

import (
	"testing"

	"github.com/assay-eval/assay"
)

// TestAnswerIncludesFoldsUnicode: case-insensitive matching folds Unicode
// case (final sigma, ß/SS) and compares both sides in NFC (a decomposed
// accent matches a precomposed one); strings.ToLower did neither.
func TestAnswerIncludesFoldsUnicode(t *testing.T) {
	for _, tc := range []struct {
		name, answer, want string
		cs, pass           bool
	}{
		{"final sigma", "Ο ΣΊΣΥΦΟΣ κυλά την πέτρα", "σίσυφος", false, true},
		{"sharp s in want", "the STRASSE is closed", "straße", false, true},
		{"sharp s in answer", "die Straße ist gesperrt", "STRASSE", false, true},
		{"decomposed want", "café au lait", "cafe\u0301", false, true},
		{"decomposed answer", "cafe\u0301 au lait", "CAFÉ", false, true},
		{"decomposed case-sensitive", "cafe\u0301 au lait", "café", true, true},
		{"case-sensitive keeps case", "STRASSE", "straße", true, false},
		{"dotless i stays apart", "ıstanbul", "ISTANBUL", false, false},
		{"ascii", "Tokens use SHA-256", "sha-256", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AnswerIncludes(tc.answer, []string{tc.want}, tc.cs); got.Pass != tc.pass {
				t.Errorf("AnswerIncludes(%q, %q, cs=%v) = %+v, want pass %v", tc.answer, tc.want, tc.cs, got, tc.pass)
			}
			if got := AnswerExcludes(tc.answer, []string{tc.want}, tc.cs); got.Pass == tc.pass {
				t.Errorf("AnswerExcludes(%q, %q, cs=%v) = %+v, want pass %v", tc.answer, tc.want, tc.cs, got, !tc.pass)
			}
			if got := AnswerIncludesAny(tc.answer, []string{"absent", tc.want}, tc.cs); got.Pass != tc.pass {
				t.Errorf("AnswerIncludesAny(%q, %q, cs=%v) = %+v, want pass %v", tc.answer, tc.want, tc.cs, got, tc.pass)
			}
		})
	}
}

// TestRefusedFoldsUnicode: refusal markers match by the same Fold key.
func TestRefusedFoldsUnicode(t *testing.T) {
	obs := assay.Observation{Answer: "DAZU WEISS ICH NICHTS."}
	if !Refused(obs, []string{"dazu weiß ich nichts"}) {
		t.Error("marker with ß did not match an upper-case answer with SS")
	}
}
