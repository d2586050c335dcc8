package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// The OpenAI wire format, as sent and as read.

type chatBody struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Temperature    float64         `json:"temperature"`
	Seed           *int            `json:"seed,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string            `json:"type"`
	JSONSchema *jsonSchemaFormat `json:"json_schema,omitempty"`
}

type jsonSchemaFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type embedBody struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

type chatResult struct {
	content, finish, model string
	usage                  Usage
}

// decodeChat reads a chat completion: the first choice's message content.
func decodeChat(raw []byte, out *chatResult) error {
	var w struct {
		Model   string `json:"model"`
		Choices []struct {
			Message *struct {
				Content *string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *Usage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return errors.New("response is not the JSON expected: " + jsonErr(err))
	}
	if len(w.Choices) == 0 {
		return errors.New("response has no choices")
	}
	c := w.Choices[0]
	if c.Message == nil || c.Message.Content == nil {
		return errors.New("response's first choice has no message content")
	}
	out.content, out.finish, out.model = *c.Message.Content, c.FinishReason, w.Model
	if w.Usage != nil {
		if err := checkUsage(*w.Usage); err != nil {
			return err
		}
		out.usage = *w.Usage
	}
	return nil
}

// decodeEmbed reads an embeddings answer: exactly one vector per input,
// by index, all of one length (dims when > 0), every value finite.
func decodeEmbed(raw []byte, n, dims int, out *EmbedResponse) error {
	var w struct {
		Model string `json:"model"`
		Data  []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
		Usage *Usage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return errors.New("response is not the JSON expected: " + jsonErr(err))
	}
	if len(w.Data) != n {
		return fmt.Errorf("response has %d vectors for %d inputs", len(w.Data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range w.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n {
			return fmt.Errorf("response vector %d has index %d, outside 0..%d", i, idx, n-1)
		}
		if vecs[idx] != nil {
			return fmt.Errorf("response has two vectors for index %d", idx)
		}
		if len(d.Embedding) == 0 {
			return fmt.Errorf("response vector %d is empty", idx)
		}
		for _, v := range d.Embedding {
			if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
				return fmt.Errorf("response vector %d has a value that is not finite", idx)
			}
		}
		vecs[idx] = d.Embedding
	}
	want := dims
	if want == 0 && n > 0 {
		want = len(vecs[0])
	}
	for i, v := range vecs {
		if len(v) != want {
			return fmt.Errorf("response vector %d has %d dimensions, want %d", i, len(v), want)
		}
	}
	out.Vectors, out.Model = vecs, w.Model
	if w.Usage != nil {
		if err := checkUsage(*w.Usage); err != nil {
			return err
		}
		out.Usage = *w.Usage
	}
	return nil
}

func checkUsage(u Usage) error {
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.TotalTokens < 0 {
		return errors.New("response usage has a negative token count")
	}
	return nil
}
