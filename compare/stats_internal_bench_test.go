package compare

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkFlipIntervalDense10k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 10000)
	for i := range d {
		d[i] = r.Float64() - 0.5
	}
	p := signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	for b.Loop() {
		flipInterval(d, p, 0.05, 20, 10000, rand.NewPCG(1, 2))
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

func BenchmarkFlipIntervalDense100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 100000)
	for i := range d {
		d[i] = r.Float64() - 0.5
	}
	p := signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	for b.Loop() {
		flipInterval(d, p, 0.05, 20, 10000, rand.NewPCG(1, 2))
	}
}

func BenchmarkSignFlip100k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 100000)
	for i := range d {
		d[i] = r.Float64() - 0.5
	}
	for b.Loop() {
		signFlipP(d, 20, 10000, rand.NewPCG(1, 1))
	}
}
