package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/gate"
)

// hostileRun is sampleRun with terminal escape sequences in every string a
// case, a target or a server can put into a run.
func hostileRun() *assay.Run {
	r := sampleRun()
	r.Suite.Name = "kb\x1b]0;pwned\x07"
	r.Target.Spec = "replay:\x1b[2Jt.jsonl"
	r.Cases[1].ID = "q2\x1b[31m"
	r.Cases[1].Checks[0].Detail = "missing \"sha\x1b[0m-256\" \u202eexe.txt"
	r.Cases[3].Error.Message = "stderr: \x1b[1;31mboom\x1b[0m\r\nfake line\x00"
	r.Warnings = append(r.Warnings, "server said \x1b[5mhi\x9b")
	r.Segments["lang=\x1b[7mxx"] = assay.Summary{Cases: 1}
	return r
}

func TestRenderersEscapeControlBytes(t *testing.T) {
	t.Parallel()
	renders := map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return Text(b, hostileRun(), TextOptions{}) },
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, hostileRun(), nil) },
		"junit":    func(b *bytes.Buffer) error { return JUnit(b, hostileRun()) },
		"matrix": func(b *bytes.Buffer) error {
			return MatrixText(b, []*assay.Run{hostileRun()}, gate.Verdict{}, TextOptions{})
		},
		"matrix-md": func(b *bytes.Buffer) error {
			return MarkdownMatrix(b, []*assay.Run{hostileRun()}, gate.Verdict{})
		},
	}
	for name, render := range renders {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := render(&b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for i := 0; i < len(out); i++ {
				if c := out[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Fatalf("raw control byte %#x at %d in:\n%s", c, i, out)
				}
			}
			for _, r := range out {
				if unsafeRune(r) && r != '\n' && r != '\t' {
					t.Fatalf("raw control rune %U in:\n%s", r, out)
				}
			}
			if !strings.Contains(out, `\x1b`) {
				t.Errorf("escape sequences not shown as text (\\x1b) in:\n%s", out)
			}
		})
	}
}
