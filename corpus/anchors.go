package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	"github.com/assay-eval/assay/sentence"
)

// Content anchors.
//
// A judgment may name its document by what it contains instead of by id,
// so that it survives a re-chunk (every document split in two, chunk ids
// renumbered): the judgment follows the text to the chunks that hold it.
//
//   - "quote:TEXT" names every document whose text contains TEXT, white
//     space runs counting as one space (case-sensitive).
//   - "sha256:HEX" (64 hex digits) names every document that has a
//     passage with that hash: the whole text, a paragraph (blank-line
//     separated) or a sentence (package sentence), each with its white
//     space runs made one space and trimmed, hashed with SHA-256
//     (PassageHash).
//
// A reference that is a document's id is that document, even when it looks
// like an anchor.

const (
	quotePrefix = "quote:"
	hashPrefix  = "sha256:"
)

// IsAnchor reports whether ref is written as a content anchor: "quote:"
// and some text, or "sha256:" and 64 hex digits.
func IsAnchor(ref string) bool {
	if q, ok := strings.CutPrefix(ref, quotePrefix); ok {
		return strings.TrimSpace(q) != ""
	}
	if h, ok := strings.CutPrefix(ref, hashPrefix); ok {
		if len(h) != 64 {
			return false
		}
		_, err := hex.DecodeString(h)
		return err == nil
	}
	return false
}

// PassageHash is the anchor "sha256:HEX" of a passage: the SHA-256 of its
// text with white space runs made one space and trimmed.
func PassageHash(passage string) string {
	sum := sha256.Sum256([]byte(squeeze(passage)))
	return hashPrefix + hex.EncodeToString(sum[:])
}

// squeeze makes every white space run one space and trims the ends.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

// anchorIndex is built on first use: the squeezed texts, and the passage
// hashes (to document indexes).
type anchorIndex struct {
	once     sync.Once
	texts    []string
	hashOnce sync.Once
	hashes   map[string][]int
}

// Anchored returns the ids of the documents that contain the content
// anchor ref, in corpus order; nil when ref is not an anchor (or is a
// document's id) or no document contains it.
func (x *Names) Anchored(ref string) []string {
	if x == nil || x.IsID(ref) || !IsAnchor(ref) {
		return nil
	}
	var ids []string
	if q, ok := strings.CutPrefix(ref, quotePrefix); ok {
		x.anchors.once.Do(func() {
			x.anchors.texts = make([]string, len(x.docs))
			for i, d := range x.docs {
				x.anchors.texts[i] = squeeze(d.Text)
			}
		})
		q = squeeze(q)
		for i, t := range x.anchors.texts {
			if strings.Contains(t, q) {
				ids = append(ids, x.docs[i].ID)
			}
		}
		return ids
	}
	x.anchors.hashOnce.Do(func() {
		x.anchors.hashes = map[string][]int{}
		for i, d := range x.docs {
			seen := map[string]bool{}
			add := func(p string) {
				if strings.TrimSpace(p) == "" {
					return
				}
				h := PassageHash(p)
				if !seen[h] {
					seen[h] = true
					x.anchors.hashes[h] = append(x.anchors.hashes[h], i)
				}
			}
			add(d.Text)
			for _, para := range strings.Split(strings.ReplaceAll(d.Text, "\r\n", "\n"), "\n\n") {
				add(para)
			}
			for _, sp := range sentence.Split(d.Text) {
				add(d.Text[sp.Start:sp.End])
			}
		}
	})
	for _, i := range x.anchors.hashes[strings.ToLower(ref)] {
		ids = append(ids, x.docs[i].ID)
	}
	return ids
}
