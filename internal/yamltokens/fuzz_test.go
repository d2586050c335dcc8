package yamltokens

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
)

// values parses src, with every eligible block mapping rewritten when
// rewrite is set, and decodes each document.
func values(src string, rewrite bool) (out []any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	tks := lexer.Tokenize(src)
	if rewrite {
		saved := MinEntries
		MinEntries = 1
		tks = FlowLargeMappings(tks)
		MinEntries = saved
	}
	f, err := parser.Parse(tks, 0)
	if err != nil {
		return nil, err
	}
	for _, d := range f.Docs {
		var v any
		if d.Body != nil {
			if err := yaml.NodeToValue(d.Body, &v); err != nil {
				return nil, err
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// FuzzFlowLargeMappings: rewriting block mappings as flow mappings never
// changes the value of a document goccy/go-yaml reads.
func FuzzFlowLargeMappings(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb: two\n\"c d\": 'e'\n",
		"x:\n  a: 1\n  b: 2\ny: [1, 2]\n",
		"- a: 1\n  b: 2\n- c: 3\n",
		"a: 1 # c\nb: 2\n",
		"a: &x 1\nb: *x\n",
		"a:\n  b: 1\n  c:\n    d: 2\n",
		"---\na: 1\n---\nb: 2\n",
		"a: \"multi\n  line\"\nb: 2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.ContainsRune(src, '\t') {
			return
		}
		want, err := values(src, false)
		if err != nil {
			return
		}
		got, err := values(src, true)
		if err != nil {
			t.Fatalf("the rewrite makes a readable document fail: %v\n%q", err, src)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the rewrite changes the value:\n%q\nwithout: %#v\nwith:    %#v", src, want, got)
		}
	})
}
