package boundedfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// A Limit is what a file is (named in messages) and how large it may be.
type Limit struct {
	What string // "suite file": the message reads "larger than the 1 GiB limit for a suite file"
	Max  int64  // bytes
	Pipe bool   // a pipe named by a file descriptor path (/dev/stdin) is accepted
}

const (
	KiB = 1 << 10
	MiB = 1 << 20
	GiB = 1 << 30
)

// The limits of every file assay reads. They are variables only so that a
// test can lower one; nothing else changes them.
var (
	Suite      = Limit{What: "suite file", Max: 1 * GiB, Pipe: true}
	SuitePart  = Limit{What: "suite file", Max: 1 * GiB}                  // a file a suite format reads beside it (queries, qrels, topics)
	SuiteInput = Limit{What: "file of a suite", Max: 8 * GiB, Pipe: true} // any file a suite is made of, hashed for its manifest
	Manifest   = Limit{What: "suite manifest", Max: 256 * MiB}
	CorpusFile = Limit{What: "corpus file", Max: 8 * GiB}
	CorpusGzip = Limit{What: "decompressed corpus", Max: 8 * GiB}
	CorpusDoc  = Limit{What: "corpus document", Max: 64 * MiB}
	Schema     = Limit{What: "json_schema file", Max: 16 * MiB}
	Floors     = Limit{What: "floors file", Max: 16 * MiB}
	RunRecord  = Limit{What: "run record", Max: 1 * GiB}
	Cases      = Limit{What: "cases file", Max: 8 * GiB}
	CasesGzip  = Limit{What: "decompressed cases file", Max: 8 * GiB}
	Trace      = Limit{What: "replay trace", Max: 8 * GiB}
	Qrels      = Limit{What: "qrels file", Max: 4 * GiB}
	RunFile    = Limit{What: "run file", Max: 4 * GiB}
	TargetFile = Limit{What: "target file", Max: 16 * MiB}
)

// MaxBody is the largest max_body a target file may set: the most of one
// response (or of a command's stdout) held in memory.
const MaxBody = 1 * GiB

// MaxPipe bounds a pipe (whatever its Limit says): it is held whole in
// memory.
const MaxPipe = 256 * MiB

// MaxLine is the longest line a JSONL reader (corpus, cases.jsonl, replay
// trace) accepts; MaxRunLine the longest line of a trec: run file.
const (
	MaxLine    = 64 * MiB
	MaxRunLine = 16 * MiB
)

// Error is "path: reason", the error of every function here that has a
// path; Reason(err) is the reason alone.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Reason is the reason of an *Error (without its path), else err itself.
func Reason(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e.Err
	}
	return err
}

// TooLargeError is the reason a read past a Limit fails.
type TooLargeError struct {
	Limit Limit
}

func (e *TooLargeError) Error() string {
	return "larger than the " + Size(e.Limit.Max) + " limit for a " + e.Limit.What
}

// Size formats a byte count as people write a limit: "64 MiB", "1 GiB".
func Size(n int64) string {
	switch {
	case n >= GiB && n%GiB == 0:
		return strconv.FormatInt(n/GiB, 10) + " GiB"
	case n >= MiB && n%MiB == 0:
		return strconv.FormatInt(n/MiB, 10) + " MiB"
	case n >= KiB && n%KiB == 0:
		return strconv.FormatInt(n/KiB, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// IsDescriptorPath reports whether path names an open file descriptor of
// the process (/dev/stdin, /dev/fd/N, /proc/self/fd/N): what a shell's
// <(...) or a redirection gives. Relative paths in a suite read from one
// resolve against the working directory, not /dev.
func IsDescriptorPath(path string) bool {
	p := filepath.Clean(path)
	if p == "/dev/stdin" {
		return true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok {
			_, err := strconv.Atoi(n)
			return err == nil
		}
	}
	return false
}

// kind names a file mode that is not a regular file.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// pathErr is "path: reason" without Go's "open"/"stat" prefix.
func pathErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Path: path, Err: err}
}

// notRegular is the error for a path that is not a regular file.
func notRegular(path string, m fs.FileMode, l Limit) error {
	if m.IsDir() {
		return &Error{Path: path, Err: fmt.Errorf("a directory, want a %s", l.What)}
	}
	return &Error{Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(m))}
}

// piped holds the bytes of the pipes read so far, by cleaned path.
var piped struct {
	sync.Mutex
	m map[string][]byte
}

// isPipe reports whether path is a pipe the limit accepts.
func isPipe(path string, fi fs.FileInfo, l Limit) bool {
	return l.Pipe && fi.Mode()&fs.ModeNamedPipe != 0 && IsDescriptorPath(path)
}

// Check stats path (following symlinks) and returns its FileInfo when it
// is a regular file within l (or a pipe l accepts); otherwise an error
// "path: reason". It opens nothing.
func Check(path string, l Limit) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	if isPipe(path, fi, l) {
		return fi, nil
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode(), l)
	}
	if fi.Size() > l.Max {
		return nil, &Error{Path: path, Err: &TooLargeError{Limit: l}}
	}
	return fi, nil
}

// File is a file open for bounded reading.
type File struct {
	f  *os.File // nil for a pipe's kept bytes
	r  io.Reader
	fi fs.FileInfo
}

// Read reads from the file; past the limit it fails with a *TooLargeError
// (no path: a line reader positions it, "file:line: larger than ...").
func (f *File) Read(p []byte) (int, error) { return f.r.Read(p) }

// Close closes the file.
func (f *File) Close() error {
	if f.f == nil {
		return nil
	}
	return f.f.Close()
}

// Stat is the FileInfo the file had when it was opened.
func (f *File) Stat() fs.FileInfo { return f.fi }

// Open opens path for reading under l (see Check).
func Open(path string, l Limit) (*File, error) {
	fi, err := Check(path, l)
	if err != nil {
		return nil, err
	}
	if isPipe(path, fi, l) {
		b, err := readPipe(path, l)
		if err != nil {
			return nil, err
		}
		return &File{r: bytes.NewReader(b), fi: fi}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	return &File{f: f, r: Reader(f, l), fi: fi}, nil
}

// ReadFile reads the whole file at path under l (see Check).
func ReadFile(path string, l Limit) ([]byte, error) {
	fi, err := Check(path, l)
	if err != nil {
		return nil, err
	}
	if isPipe(path, fi, l) {
		return readPipe(path, l)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	defer f.Close()
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(&capReader{r: f, left: l.Max, err: &Error{Path: path, Err: &TooLargeError{Limit: l}}}); err != nil {
		return nil, readErr(path, err)
	}
	return buf.Bytes(), nil
}

func readErr(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return pathErr(path, err)
}

// readPipe reads the pipe at path once, within l, and keeps its bytes for
// every later read of that path.
func readPipe(path string, l Limit) ([]byte, error) {
	key := filepath.Clean(path)
	piped.Lock()
	defer piped.Unlock()
	if b, ok := piped.m[key]; ok {
		return b, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	defer f.Close()
	if l.Max > MaxPipe {
		l.Max = MaxPipe
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(&capReader{r: f, left: l.Max, err: &Error{Path: path, Err: &TooLargeError{Limit: l}}}); err != nil {
		return nil, readErr(path, err)
	}
	if piped.m == nil {
		piped.m = map[string][]byte{}
	}
	piped.m[key] = buf.Bytes()
	return buf.Bytes(), nil
}

// Reader bounds r to l.Max bytes: a read past them fails with a
// *TooLargeError naming l (no path: the caller positions it).
func Reader(r io.Reader, l Limit) io.Reader {
	return &capReader{r: r, left: l.Max, err: &TooLargeError{Limit: l}}
}

// capReader reads at most left bytes of r, then fails with err; a reader
// that ends exactly at the limit ends normally.
type capReader struct {
	r    io.Reader
	left int64
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a stream that ends at the limit from one
		// that goes on.
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, c.err
		}
		if err == nil {
			return 0, nil
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// ReadLine reads one line of br, with its newline, like ReadBytes('\n'),
// but fails with a *TooLargeError (naming a "line", max bytes) instead of
// holding a line longer than max. At the end of the input it returns what
// is left with io.EOF.
func ReadLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, LineTooLong(max)
		}
		if err == bufio.ErrBufferFull {
			line = append(line, frag...)
			continue
		}
		if line == nil {
			line = append([]byte(nil), frag...)
		} else {
			line = append(line, frag...)
		}
		return line, err
	}
}

// LineTooLong is the reason a line longer than max is refused.
func LineTooLong(max int) error {
	return &TooLargeError{Limit: Limit{What: "line", Max: int64(max)}}
}

// ScanErr is a bufio.Scanner's error in these words: a token longer than
// the scanner's buffer (max) is LineTooLong(max).
func ScanErr(err error, max int) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return LineTooLong(max)
	}
	return err
}
