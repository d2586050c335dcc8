package trec

import (
	"strings"
	"testing"
)

// FuzzParseQrels: any bytes give a Qrels or a trec_eval message, never a panic.
func FuzzParseQrels(f *testing.F) {
	f.Add([]byte("1 0 a 1\n1 0 b 0\n"))
	f.Add([]byte("# c\n 1\t0 b -1\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQrels(data, "q")
		if err == nil && q.NumTopics() == 0 && len(data) > 0 && strings.TrimSpace(string(data)) != "" && data[0] != '#' {
			t.Fatalf("no error and no topic for %q", data)
		}
	})
}

// FuzzParseRun: the run parser and the evaluator never panic, and the
// output is the same whether the run is read streaming or from stdin.
func FuzzParseRun(f *testing.F) {
	f.Add([]byte("1 Q0 a 1 1.5 t\n1 Q0 b 2 1.5 t\n"), uint8(1))
	f.Add([]byte("  # c\n1 Q0 a 1 0x1p3 t x\n\n2 Q0 a 1 nan t\n"), uint8(2))
	options := []string{"", "-q -m all_trec", "-q -c -J -M1 -m all_trec", "-l2 -q -m all_trec", "-c -n"}
	f.Fuzz(func(t *testing.T, run []byte, opt uint8) {
		args := options[int(opt)%len(options)]
		files := map[string]string{"q": "1 0 a 1\n1 0 b 0\n2 0 a 2\n", "r": string(run), "<stdin>": string(run)}
		c1, o1, e1 := runQuiet(files, args+" q r")
		c2, o2, e2 := runQuiet(files, args+" q -")
		e2 = strings.ReplaceAll(e2, "'-'", "'r'")
		if c1 != c2 || o1 != o2 || e1 != e2 {
			t.Fatalf("file and stdin differ: %d %q %q / %d %q %q", c1, o1, e1, c2, o2, e2)
		}
	})
}

func runQuiet(files map[string]string, args string) (int, string, string) {
	sys, out, errb := memIO(files, files["<stdin>"])
	code := Main(strings.Fields(args), sys)
	return code, out.String(), errb.String()
}

// FuzzEvaluate: any qrels and run bytes, under each option set, give an
// exit status and never a panic; output is either complete or absent.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte("1 0 a 1\n1 0 b -1\n2 0 c 3\n"), []byte("1 Q0 a 1 1 t\n1 Q0 b 1 1 t\n2 Q0 z 1 nan t\n"), uint8(0))
	f.Add([]byte("1 0 a 99999999999999\n"), []byte("1 Q0 a 1 1 t\n"), uint8(2))
	options := []string{"-q -m all_trec", "-q -c -J -m all_trec", "-l0 -q -m all_trec -m ndcg.0=2,1=-1", "-M0 -c -q -m all_trec", "-l3 -m rbp.p=0.5 -m G.2=0.5 -q"}
	f.Fuzz(func(t *testing.T, qrels, run []byte, opt uint8) {
		args := options[int(opt)%len(options)]
		code, _, _ := runQuiet(map[string]string{"q": string(qrels), "r": string(run)}, args+" q r")
		switch code {
		case 0, 1, 2, 4, 7:
		default:
			t.Fatalf("exit status %d", code)
		}
	})
}
