package suite

import (
	"fmt"

	"github.com/assay-eval/assay"
)

// endpoint reads an embeddings: or rerank: block (docs/suite.md): a
// mapping of url, model, api_key (as ${VAR}, expanded by the target),
// dimensions and batch; url and model are required.
func (d *nativeDecoder) endpoint(f yfield) (*assay.ModelEndpoint, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	fs, err := r.fields(f.val, f.key, assay.ModelEndpointFields, nil)
	if err != nil {
		return nil, err
	}
	pos := func(line, col int) string { return fmt.Sprintf("%s:%d:%d", r.file, line, col) }
	e := &assay.ModelEndpoint{Pos: map[string]string{"": pos(f.line, f.col)}}
	for _, ef := range fs {
		var s string
		var n int
		switch ef.key {
		case "dimensions", "batch":
			n, err = r.integer(f.key+"."+ef.key, ef.val)
		default:
			s, err = r.str(ef)
		}
		if err != nil {
			return nil, err
		}
		if msg := assay.CheckModelEndpointField(ef.key, s, n); msg != "" {
			return nil, r.errAt(ef.val, "%s.%s", f.key, msg)
		}
		line, col := nodePos(ef.val)
		e.Pos[ef.key] = pos(line, col)
		switch ef.key {
		case "url":
			e.URL = s
		case "model":
			e.Model = s
		case "api_key":
			e.APIKey = s
		case "dimensions":
			e.Dimensions = n
		case "batch":
			e.Batch = n
		}
	}
	for _, req := range []string{"url", "model"} {
		if _, ok := e.Pos[req]; !ok {
			return nil, r.errAt(f.val, "%s: missing %q", f.key, req)
		}
	}
	return e, nil
}
