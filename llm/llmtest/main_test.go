package llmtest

import (
	"fmt"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	for s, want := range map[string]countedFault{
		"2:429":       {2, Fault{Status: 429}},
		"1:malformed": {1, Fault{Status: 200, Body: Malformed}},
		"3:slow=2s":   {3, Fault{Delay: 2 * time.Second}},
	} {
		f, err := parseFault(s)
		if err != nil || fmt.Sprint(f) != fmt.Sprint(want) {
			t.Errorf("%s: %+v %v, want %+v", s, f, err, want)
		}
	}
	for _, s := range []string{"", "2", "x:429", "-1:429", "1:99", "1:slow=0s", "1:slow=x", "1:bogus"} {
		if _, err := parseFault(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
