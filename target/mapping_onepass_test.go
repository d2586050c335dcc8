package target

import (
	"testing"

	"github.com/tidwall/gjson"
)

// sameResult compares what a mapping reads of a gjson result.
func sameResult(a, b gjson.Result) bool {
	return a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && a.Num == b.Num && a.Index == b.Index && a.Exists() == b.Exists()
}

// onePassPaths are the default map's paths and a few that are not one key.
var onePassPaths = []string{"answer", "retrieved", "citations", "refused", "tools", "outcome", "approval_pending", "latency_ms", "spans", "versions", "usage", "measures", "error", "a-b", "x_1", "0", "retrieved.0.id", "retrieved.#", "@this", "a\\.b", "A"}

// TestResponseGetIsGJSON: a response's get finds, for every path, what
// gjson.GetBytes finds in its body: the first of a repeated key, a key
// written with escapes, nothing in a body that is not an object.
func TestResponseGetIsGJSON(t *testing.T) {
	bodies := []string{
		`{"answer": "The kettle is descaled once a month.", "retrieved": [{"id": "kettle.md", "score": 3.2}], "citations": [{"id": "kettle.md"}], "refused": false}`,
		`{"answer": "first", "answer": "second", "error": {"class": "exec", "message": "x"}}`,
		` {"answ\u0065r": "escaped key", "a-b": 1, "x_1": null, "0": [1], "A": 2, "a.b": 3} `,
		`["answer", {"answer": 1}]`,
		`"answer"`,
		`{}`,
		`{"versions": {"model": "m1"}, "usage": {"input_tokens": 3}, "measures": {"m": 1.5}, "spans": []}`,
	}
	for _, body := range bodies {
		if !oneKeyPath("answer") {
			t.Fatal("answer is one key")
		}
		r := &response{body: []byte(body)}
		if err := r.checkJSON("response"); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		for _, p := range onePassPaths {
			if got, want := r.get(p), gjson.GetBytes([]byte(body), p); !sameResult(got, want) {
				t.Errorf("%s: path %q: get %#v, gjson %#v", body, p, got, want)
			}
		}
	}
}

// FuzzResponseGet: whatever the body, get is gjson.GetBytes.
func FuzzResponseGet(f *testing.F) {
	f.Add([]byte(`{"answer": "a", "retrieved": [{"id": "d"}], "answer": 2}`))
	f.Add([]byte(`{"a\u006e\u0073wer": true, "tools": [], "x": {"answer": 1}}`))
	f.Add([]byte(`[{"answer": 1}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := &response{body: body}
		if r.checkJSON("response") != nil {
			return
		}
		for _, p := range onePassPaths {
			if got, want := r.get(p), gjson.GetBytes(body, p); !sameResult(got, want) {
				t.Fatalf("%q: path %q: get %#v, gjson %#v", body, p, got, want)
			}
		}
	})
}

// TestFirstValuesIsGet: the one pass over a document or citation object
// finds for each key what gjson's Get finds: the first of a repeated key,
// a null, a key written with escapes; the id keys come first, in order.
func TestFirstValuesIsGet(t *testing.T) {
	for i, k := range idKeys {
		if hitKeys[i] != k || citationKeys[i] != k {
			t.Fatalf("key %d: hit %q citation %q, id %q", i, hitKeys[i], citationKeys[i], k)
		}
	}
	objects := []string{
		`{"id": "kettle.md", "score": 3.2}`,
		`{"doc_id": null, "docid": 7, "title": "T", "title": "second", "text": "", "content": "c"}`,
		`{"\u0069d": "escaped", "path": "a/b", "quote": {"x": 1}, "score": "2.5"}`,
		`{}`,
		`{"_id": [1], "document_id": "d", "docId": true}`,
	}
	for _, o := range objects {
		r := gjson.Parse(o)
		for _, names := range [][]string{hitKeys[:], citationKeys[:]} {
			got := make([]gjson.Result, len(names))
			firstValues(r, names, got)
			for i, name := range names {
				want := r.Get(name)
				if got[i].Type != want.Type || got[i].Raw != want.Raw || got[i].Str != want.Str || got[i].Num != want.Num || got[i].Exists() != want.Exists() {
					t.Errorf("%s: %s: %#v, Get %#v", o, name, got[i], want)
				}
			}
		}
	}
}
