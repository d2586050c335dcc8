package boundedfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
	// TraceExport is an OpenTelemetry trace export (assay traces import),
	// read whole: its spans are joined into traces across files.
	TraceExport = Limit{What: "trace export", Max: 256 * MiB, Pipe: true}
	Qrels       = Limit{What: "qrels file", Max: 4 * GiB}
	RunFile     = Limit{What: "run file", Max: 4 * GiB}
	RAGAnswers  = Limit{What: "TREC RAG answer file", Max: 4 * GiB}
	TargetFile  = Limit{What: "target file", Max: 16 * MiB}
	Labels      = Limit{What: "labels file", Max: 1 * GiB} // judgments people made: a suite's judgments_file, a file for assay judgments import
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

// piped holds the pipes read so far, by cleaned path.
var piped struct {
	sync.Mutex
	m map[string]*spool
}

// A spool is what was read of a pipe: a copy in an unlinked temporary
// file (so memory does not grow with the pipe), or, where no temporary
// file can be made, the bytes.
type spool struct {
	f    *os.File
	size int64
	b    []byte
}

// reader is a new reader of the spool from its start.
func (s *spool) reader() io.Reader {
	if s.f == nil {
		return bytes.NewReader(s.b)
	}
	return io.NewSectionReader(s.f, 0, s.size)
}

// bytes is the spool's content, read whole.
func (s *spool) bytes(path string) ([]byte, error) {
	if s.f == nil {
		return s.b, nil
	}
	b := make([]byte, s.size)
	if _, err := s.f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, pathErr(path, err)
	}
	return b, nil
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

// Seek sets the offset of the next Read, as io.Seeker does, so that a
// reader that reads a file more than once (assay trec streams a run file
// in passes) can go back to its start. The limit holds from the new
// offset: a read never goes past Limit.Max bytes from the start of the
// file, however often the file is read.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	s, ok := f.r.(io.Seeker)
	if f.f != nil {
		s, ok = f.f, true
	}
	if !ok {
		return 0, errors.New("seek: not supported")
	}
	pos, err := s.Seek(offset, whence)
	if err != nil {
		return pos, err
	}
	if c, ok := f.r.(*capReader); ok {
		c.left = max(c.limit-pos, 0)
	}
	return pos, nil
}

// Open opens path for reading under l (see Check).
func Open(path string, l Limit) (*File, error) {
	fi, err := Check(path, l)
	if err != nil {
		return nil, err
	}
	if isPipe(path, fi, l) {
		sp, err := readPipe(path, l)
		if err != nil {
			return nil, err
		}
		return &File{r: sp.reader(), fi: fi}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	return &File{f: f, r: &capReader{r: f, left: l.Max, limit: l.Max, err: &TooLargeError{Limit: l}}, fi: fi}, nil
}

// ReadFile reads the whole file at path under l (see Check).
func ReadFile(path string, l Limit) ([]byte, error) {
	fi, err := Check(path, l)
	if err != nil {
		return nil, err
	}
	if isPipe(path, fi, l) {
		sp, err := readPipe(path, l)
		if err != nil {
			return nil, err
		}
		return sp.bytes(path)
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

// readPipe reads the pipe at path once, within l, and keeps what it read
// for every later read of that path. The bytes go to an unlinked temporary
// file as they are read, so a pipe that runs past the limit (yes | assay
// lint /dev/stdin) is refused with the memory of a copy buffer, not of the
// limit (a growing buffer held several times the limit before it was
// refused).
func readPipe(path string, l Limit) (*spool, error) {
	key := filepath.Clean(path)
	piped.Lock()
	defer piped.Unlock()
	if sp, ok := piped.m[key]; ok {
		return sp, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(path, err)
	}
	defer f.Close()
	if l.Max > MaxPipe {
		l.Max = MaxPipe
	}
	src := &capReader{r: f, left: l.Max, err: &Error{Path: path, Err: &TooLargeError{Limit: l}}}
	sp := &spool{}
	if tmp, err := os.CreateTemp("", "assay-pipe-*"); err == nil {
		os.Remove(tmp.Name()) // unlinked: gone when the process ends
		n, err := io.Copy(tmp, src)
		if err != nil {
			tmp.Close()
			return nil, readErr(path, err)
		}
		sp.f, sp.size = tmp, n
	} else {
		// No temporary directory to write to: the bytes are kept in
		// memory, read in blocks so that at most the limit is held.
		var blocks [][]byte
		var n int
		for {
			blk := make([]byte, 1<<20)
			m, err := io.ReadFull(src, blk)
			blocks, n = append(blocks, blk[:m]), n+m
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return nil, readErr(path, err)
			}
		}
		sp.b = make([]byte, 0, n)
		for _, blk := range blocks {
			sp.b = append(sp.b, blk...)
		}
	}
	if piped.m == nil {
		piped.m = map[string]*spool{}
	}
	piped.m[key] = sp
	return sp, nil
}

// Reader bounds r to l.Max bytes: a read past them fails with a
// *TooLargeError naming l (no path: the caller positions it).
func Reader(r io.Reader, l Limit) io.Reader {
	return &capReader{r: r, left: l.Max, err: &TooLargeError{Limit: l}}
}

// capReader reads at most left bytes of r, then fails with err; a reader
// that ends exactly at the limit ends normally.
type capReader struct {
	r     io.Reader
	left  int64
	limit int64 // the bytes it may read from the start (File.Seek)
	err   error
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

// MaxGzipRatio is how many times its compressed size a gzip stream that
// Gunzip reads may decompress to, once it is past GzipFree bytes. Text and
// JSON compress 3 to 10 times; a stream that expands more is a gzip bomb
// (a few MB that decompress to GBs), which is refused while it is read
// instead of after its bytes are held.
const (
	MaxGzipRatio = 100
	GzipFree     = 64 * MiB
)

// RatioError is the reason a gzip stream that expands past MaxGzipRatio
// is refused.
type RatioError struct {
	Limit Limit
}

func (e *RatioError) Error() string {
	return fmt.Sprintf("a %s more than %d times its compressed size (a gzip bomb?)", e.Limit.What, MaxGzipRatio)
}

// Gunzip decompresses the gzip stream r (every member of it) within l:
// reading fails with a *TooLargeError past l.Max decompressed bytes, and
// with a *RatioError once the decompressed bytes pass GzipFree and are
// more than MaxGzipRatio times the compressed bytes read so far. Neither
// error has a path: the caller positions it.
func Gunzip(r io.Reader, l Limit) (io.ReadCloser, error) {
	cr := &countReader{r: r}
	zr, err := gzip.NewReader(cr)
	if err != nil {
		return nil, err
	}
	return &gunzipReader{zr: zr, in: cr, cap: capReader{r: zr, left: l.Max, limit: l.Max, err: &TooLargeError{Limit: l}}, l: l}, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type gunzipReader struct {
	zr  *gzip.Reader
	in  *countReader
	cap capReader
	out int64
	l   Limit
}

func (g *gunzipReader) Read(p []byte) (int, error) {
	n, err := g.cap.Read(p)
	g.out += int64(n)
	if g.out > GzipFree && g.out > MaxGzipRatio*g.in.n {
		return n, &RatioError{Limit: g.l}
	}
	return n, err
}

func (g *gunzipReader) Close() error { return g.zr.Close() }
