package cache_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/assay-eval/assay/cache"
	"github.com/assay-eval/assay/redact"
)

func open(t *testing.T) *cache.Cache {
	t.Helper()
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPutThenGetUnderTheLayout(t *testing.T) {
	c := open(t)
	k := cache.Key("model", "prompt", 0)
	if _, ok, err := c.Get("judge", k); ok || err != nil {
		t.Fatalf("empty cache: hit %v, %v", ok, err)
	}
	if err := c.Put("judge", k, []byte(`{"relevance": 0.9}`)); err != nil {
		t.Fatal(err)
	}
	v, ok, err := c.Get("judge", k)
	if !ok || err != nil || string(v) != `{"relevance": 0.9}` {
		t.Fatalf("get: %q %v %v", v, ok, err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "judge", k[:2], k)); err != nil {
		t.Errorf("not at <dir>/<kind>/<aa>/<key>: %v", err)
	}
	if _, ok, _ := c.Get("target", k); ok {
		t.Errorf("a judge entry is a hit for kind target")
	}
	if err := c.Put("judge", k, []byte("second")); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := c.Get("judge", k); string(v) != "second" {
		t.Errorf("put did not replace: %q", v)
	}
	if err := c.Put("judge", k, nil); err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := c.Get("judge", k); !ok || len(v) != 0 {
		t.Errorf("an empty value: %q %v", v, ok)
	}
}

func TestKeyIsCanonical(t *testing.T) {
	if cache.Key(map[string]int{"a": 1, "b": 2}) != cache.Key(map[string]int{"b": 2, "a": 1}) {
		t.Errorf("map order changes the key")
	}
	if cache.Key("ab", "c") == cache.Key("a", "bc") {
		t.Errorf("part boundaries are not in the key")
	}
	if cache.Key(1) == cache.Key("1") {
		t.Errorf("a number and a string give one key")
	}
	nan1, nan2 := cache.Key(math.NaN()), cache.Key(math.NaN())
	if nan1 != nan2 || nan1 == cache.Key(math.Inf(1)) {
		t.Errorf("an unencodable part is not deterministic")
	}
	if k := cache.Key(); len(k) != 64 {
		t.Errorf("key %q", k)
	}
}

func TestBadKindOrKeyIsAnError(t *testing.T) {
	c := open(t)
	k := cache.Key(1)
	for _, kind := range []string{"", "../x", "Judge", "a/b", strings.Repeat("k", 33)} {
		if err := c.Put(kind, k, nil); err == nil {
			t.Errorf("kind %q accepted", kind)
		}
	}
	for _, key := range []string{"", "../../etc/passwd", strings.ToUpper(k), k[:63]} {
		if _, _, err := c.Get("judge", key); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
}

func TestCorruptEntryIsAMissWithAWarning(t *testing.T) {
	c := open(t)
	k := cache.Key("x")
	p := filepath.Join(c.Dir(), "judge", k[:2], k)
	for name, corrupt := range map[string]func([]byte) []byte{
		"truncated":   func(b []byte) []byte { return b[:len(b)-3] },
		"flipped":     func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"longer":      func(b []byte) []byte { return append(b, "more"...) },
		"no header":   func(b []byte) []byte { return []byte("hello") },
		"empty":       func(b []byte) []byte { return nil },
		"other key":   func(b []byte) []byte { return bytes.Replace(b, []byte(k), []byte(cache.Key("y")), 1) },
		"huge length": func(b []byte) []byte { return bytes.Replace(b, []byte(" 12\n"), []byte(" 99999999999999\n"), 1) },
	} {
		if err := c.Put("judge", k, []byte("value-bytes!")); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		os.WriteFile(p, corrupt(b), 0o644)
		v, ok, err := c.Get("judge", k)
		if ok || err != nil {
			t.Errorf("%s: hit %q, %v", name, v, err)
		}
		w := c.Warnings()
		if len(w) != 1 || !strings.Contains(w[0], "corrupt") || !strings.Contains(w[0], "removed") {
			t.Errorf("%s: warnings %q", name, w)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: corrupt entry kept", name)
		}
	}
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings not forgotten: %q", w)
	}
}

func TestPipeOrSymlinkAtAnEntryIsAMissNotAHang(t *testing.T) {
	c := open(t)
	k := cache.Key("fifo")
	p := filepath.Join(c.Dir(), "judge", k[:2], k)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan bool)
	go func() {
		_, ok, _ := c.Get("judge", k)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Errorf("a fifo is a hit")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("get blocked on a fifo")
	}
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("keep"), 0o644)
	os.Remove(p)
	os.Symlink(outside, p)
	if _, ok, _ := c.Get("judge", k); ok {
		t.Errorf("a symlink is a hit")
	}
	os.Symlink(outside, p)
	if err := c.Put("judge", k, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("put wrote through a symlink: %q", b)
	}
}

func TestStoredMeansRedacted(t *testing.T) {
	c := open(t)
	const secret = "sk-live-Hx72Lq90PzW"
	c.Redact(redact.Secret{Name: "JUDGE_KEY", Value: secret})
	k := cache.Key("r")
	if err := c.Put("target", k, []byte(`{"answer": "the key is `+secret+`", "esc": "sk\u002dlive-Hx72Lq90PzW"}`)); err != nil {
		t.Fatal(err)
	}
	v, ok, _ := c.Get("target", k)
	if !ok || strings.Contains(string(v), secret) || !strings.Contains(string(v), "${JUDGE_KEY}") {
		t.Errorf("value %q", v)
	}
	filepath.Walk(c.Dir(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("Hx72Lq90PzW")) {
				t.Errorf("secret in %s", p)
			}
		}
		return nil
	})
}

func TestValueLargerThanMaxValueIsRefused(t *testing.T) {
	c := open(t)
	if err := c.Put("embed", cache.Key(1), make([]byte, cache.MaxValue+1)); err == nil {
		t.Errorf("no error")
	}
}

func TestStatsAndClear(t *testing.T) {
	c := open(t)
	for i := range 5 {
		c.Put("judge", cache.Key(i), []byte("abc"))
	}
	for i := range 3 {
		c.Put("target", cache.Key(i), []byte("abcdef"))
	}
	st, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st[0].Kind != "judge" || st[0].Entries != 5 || st[1].Kind != "target" || st[1].Entries != 3 || st[0].Bytes <= 15 {
		t.Fatalf("stats %+v", st)
	}
	if n, err := c.Clear("target"); n != 3 || err != nil {
		t.Errorf("clear target: %d %v", n, err)
	}
	if n, err := c.Clear("nothing"); n != 0 || err != nil {
		t.Errorf("clear absent kind: %d %v", n, err)
	}
	if _, ok, _ := c.Get("judge", cache.Key(0)); !ok {
		t.Errorf("clear target removed judge")
	}
	if n, err := c.Clear(""); n != 5 || err != nil {
		t.Errorf("clear all: %d %v", n, err)
	}
	if st, _ := c.Stats(); len(st) != 0 {
		t.Errorf("after clear: %+v", st)
	}
	if _, err := c.Clear("../x"); err == nil {
		t.Errorf("clear of a bad kind")
	}
}

func TestConcurrentPutsAndGetsOfOneKey(t *testing.T) {
	c := open(t)
	k := cache.Key("shared")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				if err := c.Put("judge", k, fmt.Appendf(nil, "value %d/%d", i, j)); err != nil {
					t.Error(err)
				}
				if v, ok, err := c.Get("judge", k); err != nil || (ok && !strings.HasPrefix(string(v), "value ")) {
					t.Errorf("get: %q %v %v", v, ok, err)
				}
				if j == 10 && i == 0 {
					c.Clear("judge")
				}
			}
		}()
	}
	wg.Wait()
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
	st, _ := c.Stats()
	if len(st) != 1 || st[0].Entries != 1 {
		t.Errorf("stats %+v (temporary files left?)", st)
	}
}

func TestOpenOnAFileIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, nil, 0o644)
	if _, err := cache.Open(p); err == nil {
		t.Errorf("no error")
	}
}
