package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/redact"
)

// KindTools is the kind of the tools (trajectory) expectation's check.
const KindTools = "tools"

// argShown is how many characters of an argument's value a detail shows.
const argShown = 40

// Trajectory compares the calls the system made (obs.Tools, errored calls
// included, in order) with want, by want.Mode (package doc, "Trajectory
// matching"). A failing check names the first divergence:
// `call 3: expected search(q≈'refund'), got get_doc(id='d7')`.
func Trajectory(obs assay.Observation, want assay.ToolTrajectory) assay.Check {
	got := obs.Tools
	exp := want.Calls
	ok := func(i, j int) bool { return callMatches(exp[i], got[j], want.Args) }
	switch want.Mode {
	case "", assay.TrajectoryStrict:
		for i := 0; i < len(exp) || i < len(got); i++ {
			switch {
			case i >= len(got):
				return fail(KindTools, fmt.Sprintf("call %d: expected %s, got no call (%s made)", i+1, showExpected(exp[i]), plural(len(got), "call")))
			case i >= len(exp):
				return fail(KindTools, fmt.Sprintf("call %d: unexpected %s (%s expected)", i+1, showCall(got[i]), plural(len(exp), "call")))
			case !ok(i, i):
				return fail(KindTools, fmt.Sprintf("call %d: expected %s, got %s", i+1, showExpected(exp[i]), showCall(got[i])))
			}
		}
		return pass(KindTools)
	case assay.TrajectoryUnordered, assay.TrajectorySubset, assay.TrajectorySuperset:
	default:
		return fail(KindTools, fmt.Sprintf("unknown mode %q (want strict, unordered, subset or superset)", want.Mode))
	}
	expOf, gotOf := matchCalls(len(exp), len(got), ok)
	needExpected := want.Mode != assay.TrajectorySubset
	needGot := want.Mode != assay.TrajectorySuperset
	if needExpected {
		for i, j := range expOf {
			if j >= 0 {
				continue
			}
			return fail(KindTools, missingDetail(exp[i], got, gotOf))
		}
	}
	if needGot {
		for j, i := range gotOf {
			if i >= 0 {
				continue
			}
			return fail(KindTools, fmt.Sprintf("call %d: unexpected %s (not among the expected calls)", j+1, showCall(got[j])))
		}
	}
	return pass(KindTools)
}

// missingDetail says that expected call e was not made, naming the first
// unmatched call of the same tool when there is one (its arguments differ).
func missingDetail(e assay.ExpectedCall, got []assay.ToolCall, gotOf []int) string {
	for j, c := range got {
		if c.Name == e.Name && gotOf[j] < 0 {
			return fmt.Sprintf("call %d: expected %s, got %s", j+1, showExpected(e), showCall(c))
		}
	}
	if len(got) == 0 {
		return fmt.Sprintf("expected %s, got no call", showExpected(e))
	}
	names := make([]string, len(got))
	again := ""
	for j, c := range got {
		names[j] = c.Name
		if c.Name == e.Name {
			again = " once more" // each call of it matches another expected call
		}
	}
	return fmt.Sprintf("expected %s%s, not called (calls: %s)", showExpected(e), again, nameList(names))
}

// matchCalls finds a largest one-to-one matching between n expected and m
// made calls (augmenting paths), so that a call that fits two expected
// ones is not spent on the wrong one. expOf[i] is the made call matched to
// expected call i (-1: none), gotOf[j] the expected call matched to made
// call j. Ties go to the earliest calls.
func matchCalls(n, m int, ok func(i, j int) bool) (expOf, gotOf []int) {
	fits := make([][]bool, n)
	for i := range fits {
		fits[i] = make([]bool, m)
		for j := range fits[i] {
			fits[i][j] = ok(i, j)
		}
	}
	expOf = make([]int, n)
	gotOf = make([]int, m)
	for i := range expOf {
		expOf[i] = -1
	}
	for j := range gotOf {
		gotOf[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := 0; j < m; j++ {
			if !fits[i][j] || seen[j] {
				continue
			}
			seen[j] = true
			if gotOf[j] < 0 || try(gotOf[j], seen) {
				gotOf[j], expOf[i] = i, j
				return true
			}
		}
		return false
	}
	for i := 0; i < n; i++ {
		try(i, make([]bool, m))
	}
	return expOf, gotOf
}

// callMatches reports whether call c is the expected call e: the same
// tool name, the arguments of ArgsRegex present and matching, and the
// other arguments equal by e's args mode (mode when e sets none).
func callMatches(e assay.ExpectedCall, c assay.ToolCall, mode string) bool {
	if e.Name != c.Name {
		return false
	}
	if e.ArgsMatch != "" {
		mode = e.ArgsMatch
	}
	got, ok := callArgs(c.Args)
	if !ok {
		return mode == assay.ArgsIgnore && len(e.ArgsRegex) == 0
	}
	for k, p := range e.ArgsRegex {
		v, present := got[k]
		if !present {
			return false
		}
		re, err := regexp.Compile(p)
		if err != nil || !re.MatchString(argText(v)) {
			return false
		}
	}
	want := e.Args
	if len(e.ArgsRegex) > 0 {
		got = without(got, e.ArgsRegex)
		want = without(want, e.ArgsRegex)
	}
	switch mode {
	case "", assay.ArgsExact:
		return len(got) == len(want) && within(want, got)
	case assay.ArgsIgnore:
		return true
	case assay.ArgsSubset:
		return within(got, want)
	case assay.ArgsSuperset:
		return within(want, got)
	}
	return false
}

// within reports whether every argument of a is in b with an equal value.
func within(a, b map[string]any) bool {
	for k, v := range a {
		w, ok := b[k]
		if !ok || !reflect.DeepEqual(v, w) {
			return false
		}
	}
	return true
}

// without returns m less the keys of drop.
func without[V any](m map[string]any, drop map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if _, ok := drop[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// callArgs decodes a call's arguments: an object (numbers as float64), or
// none. ok is false for arguments that are not a JSON object; a string
// holding one (OpenAI's "arguments" form) is decoded too.
func callArgs(raw assay.RawJSON) (map[string]any, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, true
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	if s, isString := v.(string); isString {
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, false
		}
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// argText is an argument's value as a regular expression sees it: a
// string as is, anything else as its JSON text.
func argText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// showExpected writes an expected call: search(q='refund', k=5), an
// argument matched by a regular expression as q≈'refund'.
func showExpected(e assay.ExpectedCall) string {
	parts := make([]string, 0, len(e.Args)+len(e.ArgsRegex))
	for _, k := range sortedKeys(e.Args) {
		parts = append(parts, k+"="+showValue(e.Args[k]))
	}
	for _, k := range sortedKeys(e.ArgsRegex) {
		parts = append(parts, k+"≈"+quoteArg(e.ArgsRegex[k]))
	}
	sort.Strings(parts)
	return name(e.Name) + "(" + strings.Join(parts, ", ") + ")"
}

// showCall writes a call the system made: get_doc(id='d7').
func showCall(c assay.ToolCall) string {
	args, ok := callArgs(c.Args)
	if !ok {
		return name(c.Name) + "(" + redact.Clip(string(c.Args), argShown) + ")"
	}
	parts := make([]string, 0, len(args))
	for _, k := range sortedKeys(args) {
		parts = append(parts, k+"="+showValue(args[k]))
	}
	return name(c.Name) + "(" + strings.Join(parts, ", ") + ")"
}

func showValue(v any) string {
	if s, ok := v.(string); ok {
		return quoteArg(s)
	}
	b, _ := json.Marshal(v)
	return redact.Clip(string(b), argShown)
}

// quoteArg writes a string argument in single quotes, escaped as Go would
// and cut to argShown characters.
func quoteArg(s string) string {
	q := strconv.Quote(redact.Clip(s, argShown))
	return "'" + strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`) + "'"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CheckTrajectory reports what is wrong with a tools expectation: an
// unknown mode or args mode, a call without a name, an invalid regular
// expression. The loaders and NewOptions call it; nil when it is sound.
func CheckTrajectory(t *assay.ToolTrajectory) error {
	switch t.Mode {
	case "", assay.TrajectoryStrict, assay.TrajectoryUnordered, assay.TrajectorySubset, assay.TrajectorySuperset:
	default:
		return fmt.Errorf("tools.mode: unknown mode %q (want strict, unordered, subset or superset)", t.Mode)
	}
	if err := checkArgsMode("tools.args", t.Args); err != nil {
		return err
	}
	if len(t.Calls) == 0 && t.Mode == assay.TrajectorySuperset {
		return fmt.Errorf("tools.calls: superset of no call checks nothing: give at least one call")
	}
	for i, c := range t.Calls {
		if c.Name == "" {
			return fmt.Errorf("tools.calls[%d]: no name", i)
		}
		if err := checkArgsMode(fmt.Sprintf("tools.calls[%d].args_match", i), c.ArgsMatch); err != nil {
			return err
		}
		for _, k := range sortedKeys(c.ArgsRegex) {
			if _, err := regexp.Compile(c.ArgsRegex[k]); err != nil {
				return fmt.Errorf("tools.calls[%d].args_regex.%s: %s", i, k, regexpError(err))
			}
		}
	}
	return nil
}

func checkArgsMode(what, m string) error {
	switch m {
	case "", assay.ArgsExact, assay.ArgsIgnore, assay.ArgsSubset, assay.ArgsSuperset:
		return nil
	}
	return fmt.Errorf("%s: unknown mode %q (want exact, ignore, subset or superset)", what, m)
}
