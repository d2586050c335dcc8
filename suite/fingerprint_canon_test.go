package suite

import (
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/assay-eval/assay"
)

// marshalDigest is the case digest as it was computed before
// canonjson.AppendCase: the SHA-256 of json.Marshal of each case, summed.
func marshalDigest(t *testing.T, cases []assay.Case) [sha256.Size]byte {
	var sum [sha256.Size]byte
	for i := range cases {
		b, err := json.Marshal(&cases[i])
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		carry := 0
		for j := len(sum) - 1; j >= 0; j-- {
			v := int(sum[j]) + int(h[j]) + carry
			sum[j], carry = byte(v), v>>8
		}
	}
	return sum
}

// TestCaseDigestIsMarshal: the digest of every suite under testdata
// (conversations, nuggets, tool trajectories and latency bounds among
// them, which take the json.Marshal path) is the json.Marshal digest, so
// no suite's fingerprint changes.
func TestCaseDigestIsMarshal(t *testing.T) {
	var paths []string
	filepath.WalkDir("testdata", func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			switch filepath.Ext(p) {
			case ".yaml", ".yml", ".jsonl", ".json":
				paths = append(paths, p)
			}
		}
		return nil
	})
	loaded := 0
	for _, p := range paths {
		s, err := Load(p)
		if err != nil || len(s.Cases) == 0 {
			continue
		}
		loaded++
		var d caseDigest
		for i := range s.Cases {
			d.add(&s.Cases[i], s.Dir)
		}
		if want := marshalDigest(t, s.Cases); d.sum != want {
			t.Errorf("%s: case digest differs from json.Marshal's", p)
		}
	}
	if loaded < 5 {
		t.Fatalf("only %d suites loaded from testdata", loaded)
	}
}

// TestCaseDigestAddAllocations pins the cut: adding a plain case to the
// digest allocates nothing (json.Marshal allocated its encoding).
func TestCaseDigestAddAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates (sync.Pool drops items)")
	}
	c := assay.Case{ID: "c000000", Query: "how often is the kettle descaled 0", Expect: assay.Expect{AnswerIncludes: []string{"month"}}}
	var d caseDigest
	d.add(&c, "")
	if n := testing.AllocsPerRun(200, func() { d.add(&c, "") }); n != 0 {
		t.Errorf("caseDigest.add allocates %v times per case, want 0", n)
	}
}
