package store

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/atomicfile"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/nesting"
)

// A finished run's cases.jsonl.gz is a series of gzip members, each
// holding whole case lines (a new member starts once caseBlock bytes of
// lines are in the current one), and CaseIndexFile beside it says which
// members hold the lines of each case id. Any gzip reader reads the
// members one after the other as one stream (ReadCases does), so the
// file is what it was before the index; ReadCase reads only the members
// of one case.
//
// CaseIndexFile is binary, little-endian:
//
//	header  8 bytes  "ASSAYCX2"
//	        8 bytes  the size of cases.jsonl.gz it indexes
//	        4 bytes  the number of members
//	        4 bytes  the number of entries
//	member  8 bytes  offset of a member in cases.jsonl.gz
//	        4 bytes  the member's length
//	entry   4 bytes  the high 32 bits of FNV-1a 64 of the case id
//	        4 bytes  the member's number (0: the first listed)
//
// Members are listed in file order; entries are sorted by hash, then
// member. A case whose trials lie in several members has an entry per
// member. Ids whose hashes collide share entries: the lines read are
// filtered by id, so a collision costs a read, never a wrong case. An
// index that does not match (another size of cases.jsonl.gz, a size that
// is not its members' and entries', a member outside the file) is not
// used: the case is read by streaming every line, as for a run written
// before the index existed.
//
// Runs written before it have the first form, "ASSAYCX1", read as
// before: the same header without the member count (8 bytes of entry
// count), then entries of 20 bytes each (the whole 64-bit hash, the
// member's offset in 8 bytes and its length in 4). The second takes
// 8 bytes a case rather than 20.
const CaseIndexFile = "cases.idx"

const (
	caseIndexMagic     = "ASSAYCX2"
	caseIndexMagicV1   = "ASSAYCX1"
	caseIndexHeader    = 24
	caseIndexEntrySize = 20 // of the first form
	caseIndexMember    = 12
	caseIndexEntry2    = 8
	// caseBlock is the size of case lines after which a member ends.
	caseBlock = 64 << 10
	// maxMember bounds the compressed length of a member the index may
	// name: a block plus a longest line, with room for incompressible data.
	maxMember = caseBlock + boundedfile.MaxLine + boundedfile.MaxLine/8
	// caseGzipLevel is the compression of the members. Level 5 makes the
	// case lines of a run 2-8% larger than the best compression (level 9)
	// in about a third of its CPU: compressing cases.jsonl at Finish was
	// the largest cost a store adds to a run. Any level reads the same.
	caseGzipLevel = 5
)

type caseIndexEntry struct {
	hash uint64
	off  uint64
	n    uint32
}

func caseHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// lineID is the id of a case line as caseLine writes it: the value of
// its first field, "id". ok is false for any other line.
//
// A line that starts {"id":" and whose id is printable ASCII without an
// escape, as almost every id is, is read without a decoder (its bytes are
// the id); any other line goes through the decoder, which says the same
// of those (TestLineIDSameAsDecoder, FuzzLineID).
func lineID(line []byte) (string, bool) {
	if rest, ok := bytes.CutPrefix(line, []byte(`{"id":"`)); ok {
		for i, c := range rest {
			if c == '"' {
				return string(rest[:i]), true
			}
			if c < 0x20 || c >= 0x80 || c == '\\' {
				break
			}
		}
	}
	return decodeLineID(line)
}

// decodeLineID is lineID through encoding/json's decoder.
func decodeLineID(line []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	if t, err := dec.Token(); err != nil || t != "id" {
		return "", false
	}
	t, err := dec.Token()
	id, ok := t.(string)
	return id, err == nil && ok
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// compressCases gzips dir/cases.jsonl into dir/cases.jsonl.gz, a member
// per block of lines, and writes dir/cases.idx (CaseIndexFile), each
// through a synced temporary file and a rename; then it removes the plain
// file. A line whose id cannot be read (not one caseLine wrote) leaves
// the run without an index: its cases are read by streaming.
func compressCases(dir string) error {
	return compressIndexed(dir, CasesFile, CasesGzFile, CaseIndexFile)
}

// compressIndexed is compressCases of the lines of dir/plain (each a JSON
// object whose first field is "id") into dir/gz and dir/idx.
func compressIndexed(dir, plainName, gzName, idxName string) error {
	plain := filepath.Join(dir, plainName)
	in, err := os.Open(plain)
	if err != nil {
		return err
	}
	defer in.Close()
	gzPath := filepath.Join(dir, gzName)
	out, err := atomicfile.Create(gzPath, atomicfile.Options{Sync: true, Locked: true})
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	cw := &countWriter{w: bw}
	entries, err := writeMembers(cw, in)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		out.Abort()
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	idxPath := filepath.Join(dir, idxName)
	if entries != nil {
		if err := writeFileAtomic(idxPath, func(w io.Writer) error { return writeCaseIndex(w, cw.n, entries) }); err != nil {
			return err
		}
	} else {
		os.Remove(idxPath)
	}
	if err := os.Remove(plain); err != nil {
		return err
	}
	atomicfile.SyncDir(dir)
	return nil
}

// writeMembers copies the lines of in to w as gzip members of about
// caseBlock bytes of lines each, and returns the index entries of the
// members (nil when a line's id could not be read).
func writeMembers(w *countWriter, in io.Reader) ([]caseIndexEntry, error) {
	var entries []caseIndexEntry
	indexed := true
	zw, _ := gzip.NewWriterLevel(w, caseGzipLevel)
	br := bufio.NewReaderSize(in, 64<<10)
	start, size := w.n, 0
	var hashes []uint64 // of the current member's lines
	end := func() error {
		if err := zw.Close(); err != nil {
			return err
		}
		n := w.n - start
		slices.Sort(hashes)
		for _, h := range slices.Compact(hashes) {
			entries = append(entries, caseIndexEntry{h, uint64(start), uint32(n)})
		}
		if n > maxMember {
			indexed = false
		}
		hashes, start, size = hashes[:0], w.n, 0
		zw.Reset(w)
		return nil
	}
	atStart := true // the next fragment begins a line
	for {
		frag, rerr := br.ReadSlice('\n')
		if rerr != nil && rerr != io.EOF && rerr != bufio.ErrBufferFull {
			return nil, rerr
		}
		if atStart && len(bytes.TrimSpace(frag)) > 0 {
			// A line longer than the buffer comes in fragments; its id
			// is in the first.
			if id, ok := lineID(frag); ok {
				hashes = append(hashes, caseHash(id))
			} else {
				indexed = false
			}
		}
		if len(frag) > 0 {
			if _, err := zw.Write(frag); err != nil {
				return nil, err
			}
			size += len(frag)
		}
		atStart = bytes.HasSuffix(frag, []byte{'\n'}) || atStart && len(bytes.TrimSpace(frag)) == 0
		if rerr == io.EOF {
			break
		}
		if atStart && size >= caseBlock {
			if err := end(); err != nil {
				return nil, err
			}
		}
	}
	if size > 0 || w.n == start && len(entries) == 0 {
		// The last member (an empty one for a run without cases, so the
		// file is still gzip).
		if err := end(); err != nil {
			return nil, err
		}
	}
	if !indexed {
		return nil, nil
	}
	slices.SortFunc(entries, func(a, b caseIndexEntry) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.off, b.off))
	})
	if entries == nil {
		entries = []caseIndexEntry{}
	}
	return entries, nil
}

// writeCaseIndex writes the index (the second form) of entries, sorted
// by hash then offset, of a gzip file of gzSize bytes.
func writeCaseIndex(w io.Writer, gzSize int64, entries []caseIndexEntry) error {
	// The members, in file order, and each entry's member number.
	var members []caseIndexEntry
	number := map[uint64]uint32{}
	offs := make([]caseIndexEntry, len(entries))
	copy(offs, entries)
	slices.SortFunc(offs, func(a, b caseIndexEntry) int { return cmp.Compare(a.off, b.off) })
	for _, e := range offs {
		if _, ok := number[e.off]; !ok {
			number[e.off] = uint32(len(members))
			members = append(members, e)
		}
	}
	type entry struct{ hash, member uint32 }
	short := make([]entry, len(entries))
	for i, e := range entries {
		short[i] = entry{uint32(e.hash >> 32), number[e.off]}
	}
	slices.SortFunc(short, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.member, b.member))
	})
	short = slices.Compact(short)
	b := make([]byte, 0, caseIndexHeader+len(members)*caseIndexMember+len(short)*caseIndexEntry2)
	b = append(b, caseIndexMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(gzSize))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(members)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(short)))
	for _, m := range members {
		b = binary.LittleEndian.AppendUint64(b, m.off)
		b = binary.LittleEndian.AppendUint32(b, m.n)
	}
	for _, e := range short {
		b = binary.LittleEndian.AppendUint32(b, e.hash)
		b = binary.LittleEndian.AppendUint32(b, e.member)
	}
	_, err := w.Write(b)
	return err
}

// errNoIndex: the run has no case index it may use.
var errNoIndex = errors.New("no usable case index")

// caseMembers returns the members of gz (its size gzSize) that the
// index idx names for the hash h, in file order; errNoIndex when the
// index does not match gz.
func caseMembers(idx io.ReaderAt, idxSize, gzSize int64, h uint64) ([]caseIndexEntry, error) {
	var head [caseIndexHeader]byte
	if idxSize < caseIndexHeader {
		return nil, errNoIndex
	}
	if _, err := idx.ReadAt(head[:], 0); err != nil {
		return nil, errNoIndex
	}
	if int64(binary.LittleEndian.Uint64(head[8:])) != gzSize {
		return nil, errNoIndex
	}
	var out []caseIndexEntry
	var err error
	switch string(head[:8]) {
	case caseIndexMagic:
		out, err = caseMembers2(idx, idxSize, head, h)
	case caseIndexMagicV1:
		out, err = caseMembers1(idx, idxSize, head, h)
	default:
		return nil, errNoIndex
	}
	if err != nil {
		return nil, errNoIndex
	}
	for i, e := range out {
		if e.off >= uint64(gzSize) || uint64(e.n) > uint64(gzSize)-e.off || e.n == 0 || e.n > maxMember ||
			i > 0 && e.off <= out[i-1].off {
			return nil, errNoIndex
		}
	}
	return out, nil
}

// search is the first i in [0, n) with !less(i), less being true for a
// prefix of the range; it stops at the first error of less.
func search(n uint64, less func(uint64) (bool, error)) (uint64, error) {
	lo, hi := uint64(0), n
	for lo < hi {
		mid := lo + (hi-lo)/2
		l, err := less(mid)
		if err != nil {
			return 0, err
		}
		if l {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// caseMembers2 reads the index's second form ("ASSAYCX2").
func caseMembers2(idx io.ReaderAt, idxSize int64, head [caseIndexHeader]byte, h uint64) ([]caseIndexEntry, error) {
	m := uint64(binary.LittleEndian.Uint32(head[16:]))
	n := uint64(binary.LittleEndian.Uint32(head[20:]))
	entries := uint64(caseIndexHeader) + m*caseIndexMember
	if entries+n*caseIndexEntry2 != uint64(idxSize) {
		return nil, errNoIndex
	}
	var buf [caseIndexMember]byte
	entry := func(i uint64) (hash, member uint32, err error) {
		if _, err := idx.ReadAt(buf[:caseIndexEntry2], int64(entries+i*caseIndexEntry2)); err != nil {
			return 0, 0, err
		}
		return binary.LittleEndian.Uint32(buf[0:]), binary.LittleEndian.Uint32(buf[4:]), nil
	}
	want := uint32(h >> 32)
	lo, err := search(n, func(i uint64) (bool, error) {
		hash, _, err := entry(i)
		return hash < want, err
	})
	if err != nil {
		return nil, err
	}
	var out []caseIndexEntry
	for i := lo; i < n; i++ {
		hash, member, err := entry(i)
		if err != nil {
			return nil, err
		}
		if hash != want {
			break
		}
		if uint64(member) >= m {
			return nil, errNoIndex
		}
		if _, err := idx.ReadAt(buf[:], int64(caseIndexHeader+uint64(member)*caseIndexMember)); err != nil {
			return nil, err
		}
		out = append(out, caseIndexEntry{h, binary.LittleEndian.Uint64(buf[0:]), binary.LittleEndian.Uint32(buf[8:])})
	}
	return out, nil
}

// caseMembers1 reads the index's first form ("ASSAYCX1").
func caseMembers1(idx io.ReaderAt, idxSize int64, head [caseIndexHeader]byte, h uint64) ([]caseIndexEntry, error) {
	n := binary.LittleEndian.Uint64(head[16:])
	if n > uint64(idxSize) || caseIndexHeader+n*caseIndexEntrySize != uint64(idxSize) {
		return nil, errNoIndex
	}
	var buf [caseIndexEntrySize]byte
	entry := func(i uint64) (caseIndexEntry, error) {
		if _, err := idx.ReadAt(buf[:], caseIndexHeader+int64(i)*caseIndexEntrySize); err != nil {
			return caseIndexEntry{}, err
		}
		return caseIndexEntry{binary.LittleEndian.Uint64(buf[0:]), binary.LittleEndian.Uint64(buf[8:]), binary.LittleEndian.Uint32(buf[16:])}, nil
	}
	lo, err := search(n, func(i uint64) (bool, error) {
		e, err := entry(i)
		return e.hash < h, err
	})
	if err != nil {
		return nil, err
	}
	var out []caseIndexEntry
	for i := lo; i < n; i++ {
		e, err := entry(i)
		if err != nil {
			return nil, err
		}
		if e.hash != h {
			break
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadCase calls fn with each trial of the case id of a run, in the order
// ReadCases gives them, observations decoded only withObservations. dir
// is the run's directory. A finished run with a case index
// (CaseIndexFile) that matches its cases.jsonl.gz is read in the members
// that hold the case and nothing else; any other run (one written before
// the index existed, one still being written, an index that does not
// match) is read by streaming all its lines (ReadCases) and keeping the
// case's. A case the run lacks calls fn never and is not an error.
func ReadCase(dir, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	err := readIndexedCase(dir, id, withObservations, fn)
	if !errors.Is(err, errNoIndex) {
		return err
	}
	return readCases(dir, decoder(withObservations), func(r assay.CaseResult) error {
		if r.ID != id {
			return nil
		}
		return fn(r)
	})
}

func decoder(withObservations bool) func([]byte, *assay.CaseResult) error {
	if withObservations {
		return decodeWithObservation
	}
	return decodeResult
}

// readIndexedCase is ReadCase through the case index; errNoIndex when
// there is none it may use.
func readIndexedCase(dir, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	decode := decoder(withObservations)
	return readIndexed(dir, CasesGzFile, CaseIndexFile, id, func(path string, off uint64, n int, t []byte) error {
		if e := nesting.JSON(t); e != nil {
			return fmt.Errorf("%s: block at byte %d, line %d:%d: %s", path, off, n, e.Col, e.Msg)
		}
		var r assay.CaseResult
		if err := decode(t, &r); err != nil {
			return fmt.Errorf("%s: block at byte %d, line %d: %v", path, off, n, err)
		}
		return fn(r)
	})
}

// readIndexed calls fn with each line of id in dir/gzName through the
// index dir/idxName (the member's offset and the line's number in it,
// for messages); errNoIndex when there is no index it may use.
func readIndexed(dir, gzName, idxName, id string, fn func(path string, off uint64, n int, line []byte) error) error {
	idx, err := os.Open(filepath.Join(dir, idxName))
	if err != nil {
		return errNoIndex
	}
	defer idx.Close()
	ifi, err := idx.Stat()
	if err != nil || !ifi.Mode().IsRegular() {
		return errNoIndex
	}
	gzPath := filepath.Join(dir, gzName)
	gfi, err := boundedfile.Check(gzPath, boundedfile.Cases)
	if err != nil || !gfi.Mode().IsRegular() {
		return errNoIndex
	}
	gz, err := os.Open(gzPath)
	if err != nil {
		return errNoIndex
	}
	defer gz.Close()
	if fi, err := gz.Stat(); err != nil || fi.Size() != gfi.Size() {
		return errNoIndex
	}
	members, err := caseMembers(idx, ifi.Size(), gfi.Size(), caseHash(id))
	if err != nil {
		return err
	}
	for _, m := range members {
		if err := readMember(gzPath, gz, m, id, fn); err != nil {
			return err
		}
	}
	return nil
}

// readMember calls fn with the lines of id in the gzip member m of the
// file path.
func readMember(path string, ra io.ReaderAt, m caseIndexEntry, id string, fn func(path string, off uint64, n int, line []byte) error) error {
	sr := io.NewSectionReader(ra, int64(m.off), int64(m.n))
	zr, err := gzip.NewReader(sr)
	if err != nil {
		return fmt.Errorf("%s: block at byte %d: %v", path, m.off, err)
	}
	defer zr.Close()
	zr.Multistream(false)
	br := bufio.NewReaderSize(boundedfile.Reader(zr, boundedfile.CasesGzip), 64<<10)
	for n := 1; ; n++ {
		b, rerr := boundedfile.ReadLine(br, boundedfile.MaxLine)
		if rerr != nil && rerr != io.EOF {
			return fmt.Errorf("%s: block at byte %d, line %d: %v", path, m.off, n, rerr)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if lid, ok := lineID(t); ok && lid == id {
				if err := fn(path, m.off, n, t); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			return nil
		}
	}
}

// RunCase calls fn with each trial of the case id of the run runID under
// root (ReadCase of its directory). An unknown run wraps ErrNotFound; a
// run without the case calls fn never.
func RunCase(ctx context.Context, root, runID, id string, withObservations bool, fn func(assay.CaseResult) error) error {
	dir, err := existingRunDir(root, runID)
	if err != nil {
		return err
	}
	each := func(r assay.CaseResult) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(r)
	}
	if err := ReadCase(dir, id, withObservations, each); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
