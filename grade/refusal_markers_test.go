package grade

import (
	"testing"

	"github.com/assay-eval/assay"
)

// TestDefaultMarkersSkipOrdinarySentences: the English default markers
// match refusals ("I don't know", with either apostrophe) and not ordinary
// answers that happen to hold "no information" or "do not contain".
func TestDefaultMarkersSkipOrdinarySentences(t *testing.T) {
	for answer, want := range map[string]bool{
		"I don't know.":                                       true,
		"I don’t know which plan you mean.":                   true,
		"Sorry, I do not have enough information to answer.":  true,
		"The provided documents do not contain the answer.":   true,
		"I cannot answer this from the corpus.":               true,
		"The audit log keeps no information about passwords.": false,
		"API keys do not contain the user's e-mail address.":  false,
		"There is no information leakage: tokens are hashed.": false,
	} {
		if got := Refused(assay.Observation{Answer: answer}, nil); got != want {
			t.Errorf("Refused(%q) = %v, want %v", answer, got, want)
		}
	}
}

// TestMarkersByLanguage: with no suite markers, a case tagged lang=de is
// judged by the German set (folded: WEISS matches weiß), one tagged fr by
// the French set; an untagged case or an unknown language by English; the
// suite's own markers win for every case.
func TestMarkersByLanguage(t *testing.T) {
	c := func(lang string) assay.Case {
		cs := assay.Case{ID: "c", Query: "q", Expect: assay.Expect{Refusal: ptr(true)}}
		if lang != "" {
			cs.Tags = map[string]string{"lang": lang}
		}
		return cs
	}
	tests := []struct {
		name, lang, answer string
		suite              []string
		want               bool
	}{
		{"german by tag", "de", "DAS WEISS ICH NICHT.", nil, true},
		{"german region tag", "de-CH", "Das kann ich leider nicht beantworten.", nil, true},
		{"german ordinary sentence", "de", "Das Protokoll speichert keine Informationen über Passwörter.", nil, false},
		{"french by tag", "fr", "Je ne sais pas.", nil, true},
		{"french apostrophe", "fr", "Je n’ai pas d’information à ce sujet.", nil, true},
		{"italian by tag", "it", "Non lo so.", nil, true},
		{"english under de tag is not a german refusal", "de", "I don't know.", nil, false},
		{"unknown language falls back to english", "ko", "I don't know.", nil, true},
		{"untagged is english", "", "I don't know.", nil, true},
		{"suite markers win", "de", "Das weiß ich nicht.", []string{"n/a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := NewOptions(&assay.Suite{RefusalMarkers: tt.suite})
			if err != nil {
				t.Fatal(err)
			}
			r := Case(c(tt.lang), assay.Observation{Answer: tt.answer}, o)
			if r.Refused != tt.want || r.Checks[0].Pass != tt.want {
				t.Errorf("refused %v, check %+v; want %v", r.Refused, r.Checks[0], tt.want)
			}
		})
	}
}
