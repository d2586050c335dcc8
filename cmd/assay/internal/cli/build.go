package cli

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/assay-eval/assay"
)

// BuildInfo is what a binary knows of its own build: what `assay version`
// prints.
type BuildInfo struct {
	// Version is the version recorded in runs: assay.Version when the
	// build set it at link time (-ldflags "-X
	// github.com/assay-eval/assay.Version=..."), as release builds do;
	// else the module version the binary was built at (go install
	// ...@v1.2.3, or the pseudo-version Go stamps from the checkout), else
	// assay.Version.
	Version string
	// Module and ModuleVersion are the main module's path and version as
	// the go command recorded them ("(devel)" when it recorded none).
	Module, ModuleVersion string
	// Commit is the VCS revision of the checkout built, Modified whether it
	// had uncommitted changes; Commit is empty when it was not recorded.
	Commit   string
	Modified bool
	// CGO is the CGO_ENABLED setting of the build ("0" for a static
	// binary); Go and Platform are the toolchain and GOOS/GOARCH.
	CGO, Go, Platform string
}

// Build reads the running binary's build information.
func Build() BuildInfo {
	b := BuildInfo{Version: assay.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.ModuleVersion = bi.Main.Path, bi.Main.Version
	linked := false
	for _, s := range bi.Settings {
		if s.Key == "-ldflags" {
			linked = setsVersion(s.Value)
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" && !linked {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "CGO_ENABLED":
			b.CGO = s.Value
		}
	}
	return b
}

// versionVar is the variable a release build sets at link time.
const versionVar = "github.com/assay-eval/assay.Version="

// setsVersion reports whether the -ldflags of a build set versionVar
// (-X NAME=VALUE, -X=NAME=VALUE, or quoted).
func setsVersion(ldflags string) bool {
	for _, f := range strings.Fields(ldflags) {
		f = strings.TrimLeft(strings.TrimPrefix(f, "-X="), "'\"")
		if strings.HasPrefix(f, versionVar) {
			return true
		}
	}
	return false
}

// Text is what `assay version` prints: the version, the module and its
// version and the commit when the go command recorded them, and the Go
// version and platform, one per line.
func (b BuildInfo) Text() string {
	s := "assay version " + b.Version + "\n"
	if b.Module != "" {
		s += "module " + b.Module + " " + b.ModuleVersion + "\n"
	}
	if b.Commit != "" {
		s += "commit " + b.Commit
		if b.Modified {
			s += " (modified)"
		}
		s += "\n"
	}
	return s + "go " + b.Go + " " + b.Platform + "\n"
}
