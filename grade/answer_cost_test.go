package grade

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestAnswerChecksLowerOnce: the case-insensitive answer checks lower a
// long answer once, not once per expected string (a 1 MiB answer and 300
// strings allocated 300 MiB per check). A 256 KiB answer is enough: lowering
// it per string allocates 75 MiB against the bound of 16, at a quarter of
// the scanning a 1 MiB answer costs.
func TestAnswerChecksLowerOnce(t *testing.T) {
	answer := strings.Repeat("Tokens are hashed with SHA-256. ", 1<<18/32)
	want := make([]string, 300)
	for i := range want {
		want[i] = fmt.Sprintf("absent phrase %d", i)
	}
	for name, check := range map[string]func() bool{
		"includes":     func() bool { return AnswerIncludes(answer, want, false).Pass },
		"includes_any": func() bool { return AnswerIncludesAny(answer, want, false).Pass },
		"excludes":     func() bool { return AnswerExcludes(answer, want, false).Pass },
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got := check()
		runtime.ReadMemStats(&m1)
		if name == "excludes" != got {
			t.Errorf("%s: pass %v", name, got)
		}
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 16<<20 {
			t.Errorf("%s allocated %d MiB", name, a>>20)
		}
	}
}
