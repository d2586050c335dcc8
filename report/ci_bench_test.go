package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/assay-eval/assay"
)

// benchCIRun is ciRun with its cases repeated to n case results.
func benchCIRun(n int) *assay.Run {
	run := ciRun()
	base := run.Cases
	run.Cases = make([]assay.CaseResult, 0, n)
	for i := 0; i < n; i++ {
		c := base[i%len(base)]
		c.ID = fmt.Sprintf("%s-%05d", c.ID, i/len(base))
		run.Cases = append(run.Cases, c)
	}
	return run
}

func BenchmarkJUnit10k(b *testing.B) {
	run := benchCIRun(10000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := JUnit(io.Discard, run); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarkdown10k(b *testing.B) {
	run := benchCIRun(10000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := Markdown(io.Discard, run, sampleComparison()); err != nil {
			b.Fatal(err)
		}
	}
}
