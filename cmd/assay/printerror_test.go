package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// An error line quoting a target's stderr or a server's message shows its
// escape sequences as text; multi-line errors keep their lines.
func TestPrintErrorEscapesControlBytes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	printError(&b, errors.New("setup failed: stderr \x1b[31mboom\x1b[0m\r\x07\nsecond line"))
	got := b.String()
	want := "assay: error: setup failed: stderr \\x1b[31mboom\\x1b[0m\\r\\a\nsecond line\n"
	if got != want {
		t.Errorf("printError = %q, want %q", got, want)
	}
	if strings.ContainsAny(got, "\x1b\r\x07") {
		t.Errorf("raw control byte in %q", got)
	}
}
