package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/harness"
	"github.com/assay-eval/assay/store"
)

// The case table's search looks at each case's query (from the cases the
// run kept, else the suite file the run recorded when it still has the
// run's fingerprint) and at its answers (the observations beside the
// run), besides what its rows hold (id, checks, error, tags).
//
// Reading a run's answers means reading its case lines, which at 100,000
// cases takes seconds; so the first search of a run writes its text
// index: each query and each answer, lower-cased, with its case id, to a
// temporary file (removed from the directory as soon as it is created
// where the system allows it). Every search of that run then scans the
// index, tens of megabytes at most for such a run, in constant memory. The
// indexes of the last few runs searched are kept, and the matching ids of
// the last few searches, so paging and sorting a search reads nothing
// again.

type searchKey struct {
	run runKey
	q   string
}

var searches struct {
	mu   sync.Mutex
	keys []searchKey // most recent last
	ids  map[searchKey]map[string]bool
	// indexes are the text indexes of the last runs searched, most
	// recent last.
	indexes []*textIndex
}

const (
	keptSearches = 8
	keptIndexes  = 2
)

// textMatches returns the ids of the cases of c whose query or answer
// contains q (case-insensitively).
func (s *source) textMatches(ctx context.Context, c *cachedRun, q string) (map[string]bool, error) {
	k := searchKey{c.key, strings.ToLower(q)}
	searches.mu.Lock()
	if ids, ok := searches.ids[k]; ok {
		searches.mu.Unlock()
		return ids, nil
	}
	searches.mu.Unlock()
	ix, err := s.textIndex(ctx, c)
	if err != nil {
		return nil, err
	}
	defer ix.release()
	ids, err := ix.match(ctx, k.q)
	if err != nil {
		return nil, err
	}
	searches.mu.Lock()
	defer searches.mu.Unlock()
	if searches.ids == nil {
		searches.ids = map[searchKey]map[string]bool{}
	}
	if _, ok := searches.ids[k]; !ok {
		searches.keys = append(searches.keys, k)
		searches.ids[k] = ids
		if len(searches.keys) > keptSearches {
			delete(searches.ids, searches.keys[0])
			searches.keys = searches.keys[1:]
		}
	}
	return ids, nil
}

// textIndex is the lower-cased queries and answers of one run, each as a
// record of its case id and its text, in a temporary file.
type textIndex struct {
	key   runKey
	at    time.Time
	ready chan struct{}
	err   error
	f     *os.File
	size  int64

	// users counts the searches reading f; f is closed when the index is
	// dropped from the kept ones and no search reads it.
	users   int
	dropped bool
	visible bool // the file could not be removed while open
}

// textIndex returns the text index of c, writing it on first use; the
// caller releases it.
func (s *source) textIndex(ctx context.Context, c *cachedRun) (*textIndex, error) {
	searches.mu.Lock()
	for i, ix := range searches.indexes {
		if ix.key == c.key && fresh(c.key, ix.at) {
			searches.indexes = append(append(searches.indexes[:i:i], searches.indexes[i+1:]...), ix)
			ix.users++
			searches.mu.Unlock()
			<-ix.ready
			if ix.err != nil {
				ix.release()
				if ctx.Err() == nil && (errors.Is(ix.err, context.Canceled) || errors.Is(ix.err, context.DeadlineExceeded)) {
					// The search that wrote it went away: write it for this one.
					return s.textIndex(ctx, c)
				}
				return nil, ix.err
			}
			return ix, nil
		}
	}
	ix := &textIndex{key: c.key, at: time.Now(), ready: make(chan struct{}), users: 1}
	searches.indexes = append(searches.indexes, ix)
	if len(searches.indexes) > keptIndexes {
		searches.indexes[0].drop()
		searches.indexes = searches.indexes[1:]
	}
	searches.mu.Unlock()
	ix.err = ix.write(ctx, s.st, c.run, c.path)
	close(ix.ready)
	if ix.err != nil {
		// Not kept: the next search writes it again (the error may be
		// this request's cancellation).
		searches.mu.Lock()
		for i, x := range searches.indexes {
			if x == ix {
				searches.indexes = append(searches.indexes[:i], searches.indexes[i+1:]...)
				x.dropped = true
				break
			}
		}
		searches.mu.Unlock()
		ix.release()
		return nil, ix.err
	}
	return ix, nil
}

// drop removes ix from use: its file is closed by its last user. The
// caller holds searches.mu.
func (ix *textIndex) drop() {
	ix.dropped = true
	if ix.users == 0 {
		ix.close()
	}
}

func (ix *textIndex) release() {
	searches.mu.Lock()
	defer searches.mu.Unlock()
	ix.users--
	if ix.users == 0 && ix.dropped {
		ix.close()
	}
}

func (ix *textIndex) close() {
	if ix.f != nil {
		ix.f.Close()
		if ix.visible {
			os.Remove(ix.f.Name())
		}
		ix.f = nil
	}
}

// write writes the index of run: each case's query, then each trial's
// answer.
func (ix *textIndex) write(ctx context.Context, st Store, run *assay.Run, path string) (err error) {
	f, err := os.CreateTemp("", "assay-ui-search-*")
	if err != nil {
		return err
	}
	ix.f = f
	ix.visible = os.Remove(f.Name()) != nil
	w := bufio.NewWriterSize(f, 64<<10)
	var werr error
	var rec []byte
	add := func(id, text string) {
		if werr != nil {
			return
		}
		rec = binary.AppendUvarint(rec[:0], uint64(len(id)))
		rec = append(rec, id...)
		rec = binary.AppendUvarint(rec, uint64(len(text)))
		rec = append(rec, text...)
		_, werr = w.Write(rec)
	}
	harness.RunSuiteCases(ctx, st, run, path, func(c assay.Case) bool {
		add(c.ID, strings.ToLower(c.Query))
		return ctx.Err() == nil && werr == nil
	})
	if path != "" {
		// The run's files: each line's id and answer alone are decoded.
		err = store.ReadAnswers(filepath.Dir(path), func(id, answer string, ok bool) error {
			if ok {
				add(id, strings.ToLower(answer))
			}
			return errors.Join(ctx.Err(), werr)
		})
	} else {
		err = harness.RefCases(ctx, st, run, path, true, func(r assay.CaseResult) error {
			if o := r.Observation; o != nil {
				add(r.ID, strings.ToLower(o.Answer))
			}
			return errors.Join(ctx.Err(), werr)
		})
	}
	if errors.Is(err, fs.ErrNotExist) {
		// A run.json written alone has no case lines: no answers to search.
		err = nil
	}
	if err == nil {
		err = errors.Join(ctx.Err(), werr, w.Flush())
	}
	if err == nil {
		ix.size, err = f.Seek(0, io.SeekCurrent)
	}
	return err
}

// match returns the ids of the records whose text contains q (lower
// case).
func (ix *textIndex) match(ctx context.Context, q string) (map[string]bool, error) {
	ids := map[string]bool{}
	r := bufio.NewReaderSize(io.NewSectionReader(ix.f, 0, ix.size), 64<<10)
	qb := []byte(q)
	var id, text []byte
	field := func(buf []byte) ([]byte, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if n > uint64(ix.size) {
			return nil, fmt.Errorf("search index: a record of %d bytes in %d", n, ix.size)
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err = io.ReadFull(r, buf); err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf, err
	}
	for i := 0; ; i++ {
		var err error
		if id, err = field(id); err == io.EOF {
			return ids, nil
		} else if err != nil {
			return nil, err
		}
		if text, err = field(text); err != nil {
			return nil, err
		}
		if bytes.Contains(text, qb) && !ids[string(id)] {
			ids[string(id)] = true
		}
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}
