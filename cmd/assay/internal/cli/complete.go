package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/assay-eval/assay/gate"
	"github.com/assay-eval/assay/store"
	"github.com/assay-eval/assay/suite"
)

// Completion says what a shell completion offers (docs/cli.md#completion).
type Completion int

// The completions beyond file names.
const (
	// CompleteTarget: the target kinds (builtin, replay:, http://, ...)
	// and the target files (*.yaml, *.yml, *.json that are not suites)
	// in the directory being typed; after replay: or trec:, files.
	CompleteTarget Completion = iota + 1
	// CompleteRef: run REFs, latest, latest~1 ... and the ids of the
	// store's runs, newest first.
	CompleteRef
	// CompleteFormat: the formats assay import reads.
	CompleteFormat
	// CompleteGate: the names a gate expression may use, with the
	// cutoffs of the default metric set.
	CompleteGate
)

// maxCompletions bounds what a completion lists (and reads): a store of
// 100,000 runs or a directory of 100,000 files completes at once.
const maxCompletions = 200

// Complete returns the candidates for toComplete, each "value" or
// "value\tdescription" (the form cobra's completion takes), and whether
// a candidate is a prefix to go on typing (a directory, "replay:") so
// that the shell adds no space. storeDir is the run store of
// CompleteRef; a missing or unreadable store completes the symbolic
// refs alone. Completion never fails: what cannot be read is left out.
func Complete(ctx context.Context, what Completion, toComplete, storeDir string, o store.OpenOptions) (cands []string, prefix bool) {
	switch what {
	case CompleteTarget:
		cands = completeTarget(toComplete)
	case CompleteRef:
		cands = completeRef(ctx, toComplete, storeDir, o)
	case CompleteFormat:
		cands = withPrefix(suite.ImportFormats, toComplete)
	case CompleteGate:
		cands = completeGate(toComplete)
	}
	for _, c := range cands {
		v, _, _ := strings.Cut(c, "\t")
		if strings.HasSuffix(v, "/") || strings.HasSuffix(v, ":") || strings.HasSuffix(v, "//") {
			prefix = true
		}
	}
	return cands, prefix
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// targetKinds are the spec forms a user types the start of.
var targetKinds = []string{"builtin", "builtin:rm3", "replay:", "trec:", "http://", "https://", "command:"}

func completeTarget(s string) []string {
	for _, pre := range []string{"replay:", "trec:"} {
		if rest, ok := strings.CutPrefix(s, pre); ok {
			var out []string
			for _, f := range listFiles(rest, func(string) bool { return true }) {
				out = append(out, pre+f)
			}
			return out
		}
	}
	out := withPrefix(targetKinds, s)
	return append(out, listFiles(s, isTargetFile)...)
}

// isTargetFile reports whether path looks like a target file: YAML or
// JSON, and not a suite (whose first key is "assay:").
func isTargetFile(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
	default:
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	for line := range strings.SplitSeq(string(head[:n]), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "assay:") || strings.HasPrefix(l, `"assay":`) || strings.HasPrefix(l, `{"assay":`) {
			return false
		}
	}
	return true
}

// listFiles lists the directories and the files keep accepts whose path
// starts with s, as typed (a relative s stays relative). It reads at
// most maxCompletions entries of one directory.
func listFiles(s string, keep func(string) bool) []string {
	dir, base := ".", s
	typed := ""
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		typed, base = s[:i+1], s[i+1:]
		dir = typed
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	ents, _ := d.ReadDir(maxCompletions)
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		p := typed + name
		if isDir(filepath.Join(dir, name), e) {
			out = append(out, p+"/")
		} else if keep(filepath.Join(dir, name)) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func isDir(path string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink != 0 {
		fi, err := os.Stat(path)
		return err == nil && fi.IsDir()
	}
	return false
}

func completeRef(ctx context.Context, s, storeDir string, o store.OpenOptions) []string {
	out := withPrefix([]string{"latest\tthe newest run", "latest~1\tthe run before it", "latest~2"}, s)
	if strings.Contains(s, "/") { // a run.json path
		return listFiles(s, func(p string) bool { return strings.HasSuffix(p, ".json") })
	}
	if storeDir == "" {
		return out
	}
	if store.IsURL(storeDir) {
		return out // completion never waits on a network store
	}
	if _, err := os.Stat(storeDir); err != nil {
		return out
	}
	o.ForReading = true
	st, err := store.Open(storeDir, o)
	if err != nil {
		return out
	}
	defer st.Close()
	ents, err := st.List(ctx, store.Filter{Limit: maxCompletions})
	if err != nil {
		return out
	}
	for _, e := range ents {
		if strings.HasPrefix(e.RunID, s) {
			out = append(out, fmt.Sprintf("%s\t%s · %s · %s", e.RunID, e.Suite, e.Target, e.StartedAt.UTC().Format("2006-01-02 15:04")))
		}
	}
	return out
}

func completeGate(s string) []string {
	if strings.ContainsAny(s, " <>=!") {
		return nil // past the name: a number follows
	}
	var names []string
	for _, n := range gate.KnownMetrics() {
		if base, ok := strings.CutSuffix(n, "@K"); ok {
			for _, k := range []string{"1", "5", "10", "20", "100"} {
				names = append(names, base+"@"+k)
			}
			continue
		}
		names = append(names, n)
	}
	return withPrefix(names, s)
}
