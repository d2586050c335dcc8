package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
)

// MaxCount bounds N in I/N: more shards than this is a typo.
const MaxCount = 10000

// Spec is slice Index (0-based) of Count.
type Spec struct {
	Index int
	Count int
}

// String is "I/N".
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Parse reads "I/N": 0 <= I < N <= MaxCount.
func Parse(text string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(text), "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard %q: want I/N, the 0-based slice I of N (0/4 .. 3/4)", text)
	}
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	switch {
	case err1 != nil || err2 != nil:
		return Spec{}, fmt.Errorf("--shard %q: want I/N with whole numbers, e.g. 0/4", text)
	case cnt < 1 || cnt > MaxCount:
		return Spec{}, fmt.Errorf("--shard %q: N must be 1 to %d", text, MaxCount)
	case idx < 0 || idx >= cnt:
		return Spec{}, fmt.Errorf("--shard %q: I is 0-based: 0 to %d for %d shards", text, cnt-1, cnt)
	}
	return Spec{Index: idx, Count: cnt}, nil
}

// Of returns the slice (0 .. count-1) of the case id.
func Of(id string, count int) int {
	if count <= 1 {
		return 0
	}
	sum := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(count))
}

// Contains reports whether the case id is in the slice.
func (s Spec) Contains(id string) bool { return Of(id, s.Count) == s.Index }

// CIVars are the environment variables read, in order, for the id of the
// CI run (pipeline, build) that a default group name includes: the first
// one set is used.
var CIVars = []string{
	"GITHUB_RUN_ID",      // GitHub Actions
	"CI_PIPELINE_ID",     // GitLab CI
	"BUILDKITE_BUILD_ID", // Buildkite
	"CIRCLE_WORKFLOW_ID", // CircleCI
	"BUILD_BUILDID",      // Azure Pipelines
	"BUILD_TAG",          // Jenkins
}

// DefaultGroup is the group of a shard run given no --group: "s" and 12
// hex digits of the suite fingerprint, "-c" and 12 of the git commit when
// there is one, and "-" and the CI run id (CIVars, read with getenv;
// nil reads nothing) when there is one, made a valid group name.
func DefaultGroup(fingerprint string, git *assay.GitInfo, getenv func(string) string) string {
	fp := strings.TrimPrefix(fingerprint, "sha256:")
	var b strings.Builder
	b.WriteString("s" + prefix(fp, 12))
	if git != nil && git.Commit != "" {
		b.WriteString("-c" + prefix(git.Commit, 12))
	}
	if getenv != nil {
		for _, v := range CIVars {
			if id := getenv(v); id != "" {
				b.WriteString("-" + id)
				break
			}
		}
	}
	return sanitize(b.String())
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sanitize makes s a valid group name: other bytes become '_', cut to 128.
func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !groupByte(c) {
			out[i] = '_'
		}
	}
	return prefix(string(out), 128)
}

func groupByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// CheckGroup checks a --group name: 1 to 128 bytes of letters, digits,
// '.', '_' and '-'.
func CheckGroup(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("--group %q: want 1 to 128 letters, digits, '.', '_' or '-'", name)
	}
	for i := 0; i < len(name); i++ {
		if !groupByte(name[i]) {
			return fmt.Errorf("--group %q: byte %d (%q) is not a letter, digit, '.', '_' or '-'", name, i+1, name[i])
		}
	}
	return nil
}
