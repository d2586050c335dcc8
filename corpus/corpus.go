package corpus

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
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
	"github.com/assay-eval/assay/internal/diag"
	"github.com/assay-eval/assay/internal/nesting"
)

// Load reads the corpus at path: a directory of .md/.txt files, or a .jsonl
// or .jsonl.gz file. The documents come back sorted by id.
func Load(path string) ([]assay.Document, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	if fi.IsDir() {
		return loadDir(path)
	}
	switch {
	case strings.HasSuffix(path, ".jsonl.gz"):
		return loadJSONLFile(path, true)
	case strings.HasSuffix(path, ".jsonl"):
		return loadJSONLFile(path, false)
	}
	return nil, fmt.Errorf("%s: not a corpus: want a directory of .md/.txt files, a .jsonl or a .jsonl.gz file", path)
}

// Files lists the files Load reads for path, in a stable order: the .md and
// .txt files of a directory (as paths joined to path), or path itself.
func Files(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	rels, err := dirFiles(path)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = filepath.Join(path, filepath.FromSlash(r))
	}
	return out, nil
}

// pathError turns an os error into "path: reason" without Go's "stat"/"open"
// operation prefix.
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", path, err)
}

// isDocFile reports whether a directory entry name is a corpus document.
func isDocFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".txt"
}

// dirFiles returns the slash paths, relative to root, of the documents below
// root, sorted. Symlinks are followed, to files and to directories (root
// itself may be one): a document's path is the one through the link. A
// directory is walked once: reached again through another link, it is
// skipped (its documents keep their first path). A link back to a
// directory that encloses it (a loop) is an error naming it, and so is a
// tree deeper than maxDirDepth.
func dirFiles(root string) ([]string, error) {
	var rels []string
	walked := map[string]bool{} // real paths of the directories walked
	open := map[string]string{} // real path -> path, of the directories being walked
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return pathError(dir, err)
		}
		if encloser, ok := open[real]; ok {
			return fmt.Errorf("%s: a symlink loop: it leads back to %s, which encloses it", dir, encloser)
		}
		if walked[real] {
			return nil
		}
		if depth > maxDirDepth {
			return fmt.Errorf("%s: the corpus is more than %d directories deep", dir, maxDirDepth)
		}
		walked[real], open[real] = true, dir
		defer delete(open, real)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return pathError(dir, err)
		}
		for _, e := range entries { // sorted by name
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p, r := filepath.Join(dir, name), path.Join(rel, name)
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				// A dangling link, or one to a file, is judged as a
				// file: a document that is not a regular file (a FIFO,
				// a device, a symlink to one, a dangling link) is kept
				// so that reading it says so.
				if fi, err := os.Stat(p); err == nil {
					isDir = fi.IsDir()
				}
			}
			if isDir {
				if err := walk(p, r, depth+1); err != nil {
					return err
				}
				continue
			}
			if isDocFile(name) {
				rels = append(rels, r)
			}
		}
		return nil
	}
	if err := walk(root, "", 0); err != nil {
		return nil, err
	}
	slices.Sort(rels)
	return rels, nil
}

// maxDirDepth bounds how deep a corpus directory is walked.
const maxDirDepth = 100

func loadDir(root string) ([]assay.Document, error) {
	rels, err := dirFiles(root)
	if err != nil {
		return nil, err
	}
	docs := make([]assay.Document, 0, len(rels))
	for _, rel := range rels {
		p := filepath.Join(root, filepath.FromSlash(rel))
		b, err := boundedfile.ReadFile(p, boundedfile.CorpusDoc)
		if err != nil {
			return nil, err
		}
		text := normalize(string(b))
		base := filepath.Base(rel)
		title := ""
		if strings.EqualFold(filepath.Ext(base), ".md") {
			title = Heading(text)
		}
		if title == "" {
			title = strings.TrimSuffix(base, filepath.Ext(base))
		}
		docs = append(docs, assay.Document{ID: rel, Path: rel, Title: title, Text: text})
	}
	// rels are sorted, so docs are sorted by id already.
	return docs, nil
}

// normalize removes a UTF-8 byte order mark and turns CRLF into LF.
func normalize(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// Heading returns the text of the first ATX markdown heading ("# Title",
// "## Title", ...) of a markdown document, skipping YAML front matter and
// fenced code blocks, or "" when there is none.
func Heading(md string) string {
	lines := strings.Split(md, "\n")
	i := 0
	if len(lines) > 0 && strings.TrimRight(lines[0], " \t\r") == "---" {
		for i = 1; i < len(lines); i++ {
			if l := strings.TrimRight(lines[i], " \t\r"); l == "---" || l == "..." {
				i++
				break
			}
		}
		if i >= len(lines) { // unterminated front matter: not front matter
			i = 0
		}
	}
	fence := ""
	for ; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue // indented code
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
			fence = strings.Repeat(trimmed[:1], n)
			continue
		}
		level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if level < 1 || level > 6 {
			continue
		}
		rest := trimmed[level:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue // "#hashtag" is not a heading
		}
		rest = strings.TrimSpace(rest)
		// An optional closing sequence of #s, preceded by a space.
		if j := strings.TrimRight(rest, "#"); j != rest && (j == "" || strings.HasSuffix(j, " ")) {
			rest = strings.TrimSpace(j)
		}
		if rest != "" {
			return rest
		}
	}
	return ""
}

func loadJSONLFile(path string, gz bool) ([]assay.Document, error) {
	f, err := boundedfile.Open(path, boundedfile.CorpusFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := boundedfile.Gunzip(f, boundedfile.CorpusGzip)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		defer zr.Close()
		r = zr
	}
	return ReadJSONL(path, r)
}

// jsonlDoc is one line of a JSONL corpus.
type jsonlDoc struct {
	UnderID  json.RawMessage `json:"_id"`
	ID       json.RawMessage `json:"id"`
	Title    *string         `json:"title"`
	Text     *string         `json:"text"`
	Lang     string          `json:"lang"`
	Metadata map[string]any  `json:"metadata"`
}

// ReadJSONL reads a JSONL corpus from r; name is used in error positions
// ("name:line: msg"). The documents come back sorted by id.
func ReadJSONL(name string, r io.Reader) ([]assay.Document, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var docs []assay.Document
	seen := map[string]int{}
	for line := 1; ; line++ {
		b, err := boundedfile.ReadLine(br, boundedfile.MaxLine)
		if err != nil && err != io.EOF {
			return nil, diag.Errorf(name, line, 0, "%v", err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if e := nesting.JSON(t); e != nil {
				return nil, diag.Errorf(name, line, e.Col, "%s", e.Msg)
			}
			d, perr := parseJSONLine(t)
			if perr != nil {
				return nil, diag.Errorf(name, line, 0, "%v", perr)
			}
			if first, dup := seen[d.ID]; dup {
				return nil, diag.Errorf(name, line, 0, "duplicate id %q (first at line %d)", d.ID, first)
			}
			seen[d.ID] = line
			docs = append(docs, d)
		}
		if err == io.EOF {
			break
		}
	}
	Sort(docs)
	return docs, nil
}

func parseJSONLine(b []byte) (assay.Document, error) {
	var j jsonlDoc
	if b[0] != '{' {
		if !json.Valid(b) {
			return assay.Document{}, errors.New("invalid JSON: want one object per line")
		}
		return assay.Document{}, errors.New("want a JSON object per line")
	}
	if err := json.Unmarshal(b, &j); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return assay.Document{}, fmt.Errorf("%q: want a %s, got a JSON %s", te.Field, goTypeWord(te.Type.Kind().String()), te.Value)
		}
		return assay.Document{}, fmt.Errorf("invalid JSON: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	raw, field := j.UnderID, "_id"
	if len(raw) == 0 || string(raw) == "null" {
		raw, field = j.ID, "id"
	}
	if len(raw) == 0 || string(raw) == "null" {
		return assay.Document{}, errors.New(`missing "_id" or "id"`)
	}
	id, err := idString(raw)
	if err != nil {
		return assay.Document{}, fmt.Errorf("%q: %v", field, err)
	}
	if id == "" {
		return assay.Document{}, fmt.Errorf("%q is empty", field)
	}
	d := assay.Document{ID: id, Lang: j.Lang}
	if j.Title != nil {
		d.Title = normalize(*j.Title)
	}
	if j.Text != nil {
		d.Text = normalize(*j.Text)
	}
	if j.Title == nil && j.Text == nil {
		return assay.Document{}, fmt.Errorf("document %q has neither \"title\" nor \"text\"", id)
	}
	if len(j.Metadata) > 0 {
		d.Meta = make(map[string]string, len(j.Metadata))
		for k, v := range j.Metadata {
			switch v := v.(type) {
			case string:
				d.Meta[k] = v
			case nil:
				d.Meta[k] = ""
			default:
				vb, _ := json.Marshal(v)
				d.Meta[k] = string(vb)
			}
		}
	}
	return d, nil
}

func goTypeWord(kind string) string {
	switch kind {
	case "string", "ptr":
		return "string"
	case "map":
		return "object"
	}
	return kind
}

// idString accepts a JSON string or number as a document id.
func idString(raw json.RawMessage) (string, error) {
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), nil // a JSON number (already validated), as written
	}
	return "", fmt.Errorf("want a string or a number, got %s", raw)
}

// Sort orders documents by id (byte order), as Load returns them.
func Sort(docs []assay.Document) {
	slices.SortStableFunc(docs, func(a, b assay.Document) int { return strings.Compare(a.ID, b.ID) })
}

// Fingerprint is "sha256:<hex>" over the documents' canonical bytes: for each
// document in id order, its id, title and text, each length-prefixed. The
// input order does not matter.
func Fingerprint(docs []assay.Document) string {
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(docs[a].ID, docs[b].ID) })
	h := sha256.New()
	var num [20]byte
	put := func(s string) {
		h.Write(strconv.AppendInt(num[:0], int64(len(s)), 10))
		h.Write([]byte{':'})
		io.WriteString(h, s)
	}
	for _, i := range idx {
		put(docs[i].ID)
		put(docs[i].Title)
		put(docs[i].Text)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
