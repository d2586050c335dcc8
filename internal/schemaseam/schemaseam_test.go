package schemaseam_test

import (
	"testing"

	"github.com/assay-eval/assay/internal/schemaseam"
)

type fake struct{}

func (fake) Compile(string, []byte) (schemaseam.Schema, error) { return nil, nil }
func (fake) Check(string, []byte) string                       { return "" }

// Nothing is registered until a package registers; the last registration
// is the one; nil panics.
func TestRegister(t *testing.T) {
	if v := schemaseam.Registered(); v != nil {
		t.Fatalf("Registered() = %T before any Register; want nil", v)
	}
	schemaseam.Register(fake{})
	if _, ok := schemaseam.Registered().(fake); !ok {
		t.Fatalf("Registered() = %T; want the fake registered", schemaseam.Registered())
	}
	defer func() {
		if recover() == nil {
			t.Error("Register(nil) did not panic")
		}
	}()
	schemaseam.Register(nil)
}
