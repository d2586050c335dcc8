//go:build linux || darwin

package store

import "syscall"

// diskFull reports whether the file system holding dir has no space left
// for this user.
func diskFull(dir string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(dir, &st) == nil && st.Bavail == 0
}
