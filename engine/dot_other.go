//go:build !amd64

package engine

// dot4 reports false: Search uses Dot.
func dot4(q, d []float32, out *[4]float32) bool { return false }
