package store

import (
	"os"
	"runtime"
	"testing"
)

// A scratch directory that a killed process left (its lock released,
// the directory still there) is removed by the next NewScratchDir; one
// whose lock is held stays.
func TestScratchDirSweepsAbandoned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	tmp := t.TempDir()
	killed, err := NewScratchDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	killed.lock.Close() // what kill -9 does to the lock; the directory stays
	live, err := NewScratchDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := os.Stat(killed.Path); !os.IsNotExist(err) {
		t.Errorf("the abandoned scratch directory %s was not removed (%v)", killed.Path, err)
	}
	again, err := NewScratchDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := os.Stat(live.Path); err != nil {
		t.Errorf("a live scratch directory was removed: %v", err)
	}
	live.Close()
	if _, err := os.Stat(live.Path); !os.IsNotExist(err) {
		t.Errorf("Close left %s", live.Path)
	}
}
