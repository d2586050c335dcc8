package report

import (
	"bytes"
	"testing"
)

func TestWarningsOneEscapedLineEach(t *testing.T) {
	var b bytes.Buffer
	Warnings(&b, []string{"need >= 10 paired cases", "bad \x1b[31mbyte"})
	want := "assay: warning: need >= 10 paired cases\nassay: warning: bad \\x1b[31mbyte\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
