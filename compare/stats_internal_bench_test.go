package compare

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkBootstrapDense10k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 10000)
	for i := range d {
		d[i] = r.Float64() - 0.5
	}
	for b.Loop() {
		bootstrapCI(d, 10000, 1)
	}
}

func BenchmarkSignFlip10k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 10000)
	for i := range d {
		d[i] = r.Float64() - 0.5
	}
	for b.Loop() {
		signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	}
}
