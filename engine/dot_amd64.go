package engine

import "golang.org/x/sys/cpu"

// useDot4 is whether dot4x16 (AVX2) may run.
var useDot4 = cpu.X86.HasAVX2

//go:noescape
func dot4x16(q, d *float32, dim int, out *[4]float32)

// dot4 sets out[j] to Dot(q, row j of d) for the four rows of d starting
// at d[0] (each len(q) floats), and reports whether it could (AVX2, and a
// dimension that is a positive multiple of 16).
func dot4(q, d []float32, out *[4]float32) bool {
	dim := len(q)
	if !useDot4 || dim == 0 || dim%16 != 0 || len(d) < 4*dim {
		return false
	}
	dot4x16(&q[0], &d[0], dim, out)
	return true
}
