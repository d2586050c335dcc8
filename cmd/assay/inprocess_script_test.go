package main

import (
	"slices"
	"testing"
)

// TestInProcessScript: the lines that run assay in a worker are rewritten
// (and, with a shim, the background stand-ins), and the lines that need a
// process of their own (background, after stdin, a script that sets a Go
// runtime variable) and the archive's files are left as they are.
func TestInProcessScript(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
		names          []string
		stubs          bool
	}{
		{name: "exec", in: "exec assay run s.yaml\n", want: "assay-worker run s.yaml\n"},
		{name: "negated", in: "! exec assay run s.yaml\nstderr x\n", want: "! assay-worker run s.yaml\nstderr x\n"},
		{name: "conditions", in: "[!short] [linux] ! exec assay lint\n", want: "[!short] [linux] ! assay-worker lint\n"},
		{name: "indented", in: "  exec assay version\n", want: "  assay-worker version\n"},
		{name: "exitcode", in: "exitcode 1 assay gate r.json\n", want: "exitcode 1 assay-worker gate r.json\n"},
		{name: "background stays", in: "exec assay serve d &\nexec assay ui &srv&\n", want: "exec assay serve d &\nexec assay ui &srv&\n"},
		{name: "stdin stays until an exec consumes it",
			in:   "stdin in.txt\nexec assay import -\nexec assay version\n",
			want: "stdin in.txt\nexec assay import -\nassay-worker version\n"},
		{name: "stdin stays past a conditional exec",
			in:   "stdin in.txt\n[linux] exec cat\nexitcode 2 assay import -\nexec assay version\n",
			want: "stdin in.txt\n[linux] exec cat\nexitcode 2 assay import -\nassay-worker version\n"},
		{name: "other programs stay", in: "exec assayx a\nexec sh -c 'exec assay a'\nwithin 5 64 0 assay run s\n# exec assay a\n",
			want: "exec assayx a\nexec sh -c 'exec assay a'\nwithin 5 64 0 assay run s\n# exec assay a\n"},
		{name: "stand-ins that start assay", in: "exec knowlex -- assay run s\n! exec llmtest --key k -- assay run s\nexitcode 2 knowlex -- assay run s\nexec knowlex 127.0.0.1:1 &k&\nstdin x\nexec llmtest -- assay run -\n",
			want: "shim-exec knowlex -- assay run s\n! shim-exec llmtest --key k -- assay run s\nexitcode 2 shim-exec knowlex -- assay run s\nexec knowlex 127.0.0.1:1 &k&\nstdin x\nexec llmtest -- assay run -\n"},
		{name: "stand-ins as script commands", in: "llmtest --key k -- assay run s\n! knowlex -- assay run s\nstdin x\nllmtest -- assay run -\nllmtest -- assay run s\n",
			want: "shim-exec llmtest --key k -- assay run s\n! shim-exec knowlex -- assay run s\nstdin x\nllmtest -- assay run -\nshim-exec llmtest -- assay run s\n"},
		{name: "background stand-ins", in: "exec judgestub 127.0.0.1:1 requests.log &stub&\n[linux] exec usagestub 127.0.0.1:2 r &u&\nexec judgestub 127.0.0.1:1 requests.log\n",
			want:  "exec $ASSAY_TEST_STUB judgestub 127.0.0.1:1 requests.log &stub&\n[linux] exec $ASSAY_TEST_STUB usagestub 127.0.0.1:2 r &u&\nexec judgestub 127.0.0.1:1 requests.log\n",
			stubs: true},
		{name: "background stand-ins without a shim", in: "exec judgestub 127.0.0.1:1 requests.log &stub&\n",
			want: "exec judgestub 127.0.0.1:1 requests.log &stub&\n"},
		{name: "files stay", in: "exec assay run s\n-- s --\nexec assay run s\n", want: "assay-worker run s\n-- s --\nexec assay run s\n"},
		{name: "only files", in: "-- s --\nexec assay run s\n", want: "-- s --\nexec assay run s\n"},
		{name: "Go runtime variable: all stays", in: "exec assay version\nenv GOMEMLIMIT=64MiB\nexec assay run s\n",
			want: "exec assay version\nenv GOMEMLIMIT=64MiB\nexec assay run s\n"},
		{name: "env names", in: "env A=1 B_2='x y'\n[linux] env C=\nexec assay version\n",
			want: "env A=1 B_2='x y'\n[linux] env C=\nassay-worker version\n", names: []string{"A", "B_2", "C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, names := inProcessScript([]byte(tc.in), tc.stubs)
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if !slices.Equal(names, tc.names) {
				t.Errorf("env names %q, want %q", names, tc.names)
			}
		})
	}
}
