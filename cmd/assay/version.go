package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/assay-eval/assay"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// newVersionCmd is `assay version`: the version --version prints, with the
// Go version and platform and, when the binary was built from a git
// checkout, its commit.
func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of assay",
		Args:  exactArgs(0, "assay version"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(env.Stdout, "assay version %s\n", version())
			fmt.Fprintf(env.Stdout, "go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if bi, ok := debug.ReadBuildInfo(); ok {
				var rev, modified string
				for _, s := range bi.Settings {
					switch s.Key {
					case "vcs.revision":
						rev = s.Value
					case "vcs.modified":
						modified = s.Value
					}
				}
				if rev != "" {
					if modified == "true" {
						rev += " (modified)"
					}
					fmt.Fprintf(env.Stdout, "commit %s\n", rev)
				}
			}
			return nil
		},
	}
}

func version() string {
	v := assay.Version
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return v
}

func termIsTerminal(fd int) bool { return term.IsTerminal(fd) }
