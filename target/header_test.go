package target

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/assay-eval/assay"
)

// TestStepHeaderBuiltOnceWhenLiteral: a step whose header values are all
// literal sends the header it would build per request (Content-Type only
// with a body, Accept unless given), built once; a templated value is
// rendered for each case.
func TestStepHeaderBuiltOnceWhenLiteral(t *testing.T) {
	lit := &httpStep{headers: []httpHeader{{name: "X-Api-Key", val: strTmpl{lit: "k"}}}}
	d := caseData(assay.Case{ID: "c1", Query: "q"}, 5, 0, nil, nil)
	for _, withBody := range []bool{false, true} {
		got, err := lit.header(d, withBody)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := lit.buildHeader(d, withBody)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("with body %v: %v, want %v", withBody, got, want)
		}
		if (got.Get("Content-Type") != "") != withBody || got.Get("Accept") != "application/json" || got.Get("X-Api-Key") != "k" {
			t.Errorf("with body %v: %v", withBody, got)
		}
		again, _ := lit.header(d, withBody)
		if reflect.ValueOf(again).UnsafePointer() != reflect.ValueOf(got).UnsafePointer() {
			t.Errorf("with body %v: built again", withBody)
		}
	}
	n := &node{value: "{{.ID}}"}
	idT, err := compileStr(n, "header", "{{.ID}}")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &httpStep{headers: []httpHeader{{name: "X-Case", val: idT}, {name: "Accept", val: strTmpl{lit: "text/plain"}}}}
	for _, id := range []string{"a", "b"} {
		got, err := tmpl.header(caseData(assay.Case{ID: id}, 5, 0, nil, nil), true)
		if err != nil {
			t.Fatal(err)
		}
		want := http.Header{"X-Case": {id}, "Accept": {"text/plain"}, "Content-Type": {"application/json"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %s: %v, want %v", id, got, want)
		}
	}
}
