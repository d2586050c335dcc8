package llm

import (
	"testing"
)

// FuzzDecodeChat: any body is a content or an error, never a panic.
func FuzzDecodeChat(f *testing.F) {
	for _, s := range []string{`{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}`,
		`{"choices":[]}`, `{"choices":[{"message":null}]}`, `[]`, `null`, `{"choices":[{"message":{"content":null}}]}`, `{"usage":{"total_tokens":-5},"choices":[{"message":{"content":""}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r chatResult
		if err := decodeChat(b, &r); err == nil && (r.usage.TotalTokens < 0 || r.usage.PromptTokens < 0) {
			t.Fatalf("negative usage accepted: %+v", r)
		}
	})
}

// FuzzDecodeEmbed: a decoded answer always has one vector of one length
// per input; anything else is an error, never a panic.
func FuzzDecodeEmbed(f *testing.F) {
	for _, s := range []string{`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3,4]}]}`,
		`{"data":[{"index":1,"embedding":[1]},{"index":0,"embedding":[2]}]}`, `{"data":[{"index":-1,"embedding":[1]}]}`,
		`{"data":[{"embedding":[1e39]}]}`, `{"data":null}`, `{}`} {
		f.Add([]byte(s), 2, 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, n, dims int) {
		if n < 0 || n > 64 || dims < 0 || dims > 64 {
			return
		}
		var out EmbedResponse
		if err := decodeEmbed(b, n, dims, &out); err != nil {
			return
		}
		if len(out.Vectors) != n {
			t.Fatalf("%d vectors for %d inputs", len(out.Vectors), n)
		}
		for _, v := range out.Vectors {
			if len(v) != len(out.Vectors[0]) || len(v) == 0 || (dims > 0 && len(v) != dims) {
				t.Fatalf("vector lengths differ: %v", out.Vectors)
			}
		}
	})
}
