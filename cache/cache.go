package cache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/redact"
)

// MaxValue is the largest value an entry holds; Put refuses a larger one
// and Get takes a larger entry for corrupt.
const MaxValue = 64 << 20

// maxWarnings bounds the warnings kept between two calls of Warnings.
const maxWarnings = 100

const (
	header  = "assay.cache/v1"
	keyTag  = "assay.cache.key/v1"
	maxKind = 32
)

// Cache is a cache directory. It is safe for concurrent use, and several
// processes may share one directory.
type Cache struct {
	dir string
	red *redact.Redactor

	mu       sync.Mutex
	warnings []string
	dropped  int
}

// KindStats is the size of one kind.
type KindStats struct {
	Kind    string `json:"kind"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"` // on disk, headers included
}

// StoreDir is the cache directory of the run store rooted at store:
// <store>/cache.
func StoreDir(store string) string { return filepath.Join(store, "cache") }

// Open opens the cache in dir, creating it when it does not exist.
func Open(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("cache: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, pathReason(err))
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, pathReason(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("cache %s: not a directory", dir)
	}
	return &Cache{dir: dir, red: redact.New()}, nil
}

// At is the cache in dir as it is, created by nothing: Stats and Clear of a
// dir that does not exist find no entries (what assay cache stats and
// clear use, so that looking at a cache never makes one).
func At(dir string) *Cache { return &Cache{dir: dir, red: redact.New()} }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Redact adds secrets that Put takes out of every value it stores.
func (c *Cache) Redact(secrets ...redact.Secret) { c.red.Add(secrets...) }

// Key is the sha256 (64 hex digits) of the canonical encoding of parts
// (see the package doc).
func Key(parts ...any) string {
	h := sha256.New()
	io.WriteString(h, keyTag)
	for _, p := range parts {
		h.Write([]byte{'\n'})
		b, err := json.Marshal(p)
		if err != nil {
			b = fmt.Appendf(nil, "!%T:%v", p, p)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ValidKind reports whether kind can name a kind (see the package doc).
func ValidKind(kind string) error {
	if kind == "" || len(kind) > maxKind {
		return fmt.Errorf("cache kind %q: want 1 to %d lower-case letters, digits, '-' or '_'", kind, maxKind)
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("cache kind %q: want 1 to %d lower-case letters, digits, '-' or '_'", kind, maxKind)
		}
	}
	return nil
}

func validKey(key string) error {
	if len(key) != 64 {
		return fmt.Errorf("cache key %q: want 64 lower-case hex digits (cache.Key)", key)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("cache key %q: want 64 lower-case hex digits (cache.Key)", key)
		}
	}
	return nil
}

func (c *Cache) path(kind, key string) string {
	return filepath.Join(c.dir, kind, key[:2], key)
}

// Get returns the value stored for kind and key. A missing or corrupt
// entry is a miss (false, nil); a corrupt one is removed and warned about.
func (c *Cache) Get(kind, key string) ([]byte, bool, error) {
	if err := ValidKind(kind); err != nil {
		return nil, false, err
	}
	if err := validKey(key); err != nil {
		return nil, false, err
	}
	p := c.path(kind, key)
	// Lstat first: a symlink, a pipe or a device in the cache is not an
	// entry, and opening a pipe would block.
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache %s: %w", p, pathReason(err))
	}
	if !fi.Mode().IsRegular() {
		c.corrupt(p, "not a regular file", true)
		return nil, false, nil
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cache %s: %w", p, pathReason(err))
	}
	defer f.Close()
	v, why := readEntry(f, kind, key)
	if why != "" {
		f.Close()
		c.corrupt(p, why, true)
		return nil, false, nil
	}
	return v, true, nil
}

// readEntry reads and checks an entry; why says what is wrong with it.
func readEntry(r io.Reader, kind, key string) (value []byte, why string) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxValue+512), 512)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, "no header line"
	}
	f := strings.Fields(string(line))
	if len(f) != 5 || f[0] != header {
		return nil, "not an assay.cache/v1 entry"
	}
	if f[1] != kind || f[2] != key {
		return nil, "filed under the wrong kind or key"
	}
	n, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || n < 0 || n > MaxValue {
		return nil, "bad length in its header"
	}
	v := make([]byte, 0, n)
	buf := bytes.NewBuffer(v)
	if _, err := buf.ReadFrom(io.LimitReader(br, n+1)); err != nil {
		return nil, "unreadable: " + err.Error()
	}
	v = buf.Bytes()
	if int64(len(v)) != n {
		return nil, fmt.Sprintf("%d bytes where its header says %d", len(v), n)
	}
	sum := sha256.Sum256(v)
	if hex.EncodeToString(sum[:]) != f[3] {
		return nil, "its checksum does not match"
	}
	return v, ""
}

func (c *Cache) corrupt(p, why string, remove bool) {
	msg := fmt.Sprintf("cache entry %s is corrupt (%s): treated as a miss", p, why)
	if remove {
		if err := os.Remove(p); err == nil {
			msg += " and removed"
		}
	}
	c.warn(msg)
}

func (c *Cache) warn(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.warnings) >= maxWarnings {
		c.dropped++
		return
	}
	c.warnings = append(c.warnings, msg)
}

// Warnings returns the warnings since the last call (corrupt entries met
// by Get), and forgets them.
func (c *Cache) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	if c.dropped > 0 {
		w = append(w, fmt.Sprintf("%d more corrupt cache entries", c.dropped))
	}
	c.warnings, c.dropped = nil, 0
	return w
}

// Put stores value, redacted (see the package doc), for kind and key,
// replacing any entry there.
func (c *Cache) Put(kind, key string, value []byte) error {
	if err := ValidKind(kind); err != nil {
		return err
	}
	if err := validKey(key); err != nil {
		return err
	}
	value = c.red.Bytes(value)
	if len(value) > MaxValue {
		return fmt.Errorf("cache %s entry: %d bytes, more than the %d-byte limit", kind, len(value), MaxValue)
	}
	p := c.path(kind, key)
	sum := sha256.Sum256(value)
	// Create, not Replace: the entry is always renamed over, never written
	// through a symlink or device that sits at its path. A Clear that
	// removes the fan-out directory in between is met by one more try.
	var f *atomicfile.File
	var err error
	for try := 0; try < 2; try++ {
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("cache %s: %w", filepath.Dir(p), pathReason(err))
		}
		if f, err = atomicfile.Create(p, atomicfile.Options{}); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("cache %s: %w", p, pathReason(err))
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "%s %s %s %s %d\n", header, kind, key, hex.EncodeToString(sum[:]), len(value))
	w.Write(value)
	if err := w.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("cache %s: %w", p, pathReason(err))
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("cache %s: %w", p, pathReason(err))
	}
	return nil
}

// kinds lists the kind directories present, sorted.
func (c *Cache) kinds() ([]string, error) {
	des, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", c.dir, pathReason(err))
	}
	var out []string
	for _, d := range des {
		if d.IsDir() && ValidKind(d.Name()) == nil {
			out = append(out, d.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// walk calls fn for each entry file of kind (temporary files excluded).
func (c *Cache) walk(kind string, fn func(path string, size int64) error) error {
	root := filepath.Join(c.dir, kind)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("cache %s: %w", p, pathReason(err))
		}
		if d.IsDir() || !d.Type().IsRegular() || validKey(d.Name()) != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		return fn(p, fi.Size())
	})
}

// Stats counts the entries and bytes of each kind present, sorted by kind.
func (c *Cache) Stats() ([]KindStats, error) {
	kinds, err := c.kinds()
	if err != nil {
		return nil, err
	}
	out := make([]KindStats, 0, len(kinds))
	for _, k := range kinds {
		s := KindStats{Kind: k}
		if err := c.walk(k, func(_ string, size int64) error {
			s.Entries++
			s.Bytes += size
			return nil
		}); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Clear removes every entry of kind ("" = every kind) and returns how many
// it removed. A kind with no entries removes nothing.
func (c *Cache) Clear(kind string) (int, error) {
	kinds := []string{kind}
	if kind == "" {
		var err error
		if kinds, err = c.kinds(); err != nil {
			return 0, err
		}
	} else if err := ValidKind(kind); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range kinds {
		if err := c.walk(k, func(p string, _ int64) error {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cache %s: %w", p, pathReason(err))
			}
			n++
			return nil
		}); err != nil {
			return n, err
		}
		// Empty fan-out directories go too; one still in use (a
		// concurrent Put) stays.
		root := filepath.Join(c.dir, k)
		if des, err := os.ReadDir(root); err == nil {
			for _, d := range des {
				os.Remove(filepath.Join(root, d.Name()))
			}
			os.Remove(root)
		}
	}
	return n, nil
}

// pathReason drops the os operation and path from an error (the caller
// names the path).
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
