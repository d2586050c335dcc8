package gate

import (
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxListedCases is the most case ids a gate's detail names: a gate that
// 17,615 cases break names the first MaxListedCases and says "and 17,595
// more", so a run record, a page and a terminal line stay small however
// large the run. The result's value still counts them all.
const MaxListedCases = 20

var counts = message.NewPrinter(language.English)

// caseList is ids joined with ", ", at most MaxListedCases of them, then
// "and N more".
func caseList(ids []string) string {
	if len(ids) <= MaxListedCases {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:MaxListedCases], ", ") + counts.Sprintf(", and %d more", len(ids)-MaxListedCases)
}
