//go:build !(linux || darwin)

package store

func diskFull(string) bool { return false }
