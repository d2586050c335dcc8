package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-eval/assay"
)

// Conversations and tool trajectories in the native format (package doc,
// "Conversations"): a case's turns: list, each turn a mapping of query,
// relevant, judgments and expect (or a bare string: a turn with nothing
// to expect), and the tools: expectation.

var (
	turnFields      = []string{"query", "relevant", "judgments", "expect"}
	trajectoryField = []string{"mode", "args", "calls"}
	callFields      = []string{"name", "args", "args_match", "args_regex"}
)

// maxTurns bounds the turns of one conversation: a conversation is sent
// turn by turn with its whole history, so a longer one is a mistake.
const maxTurns = 1000

// turns reads a case's turns: list into c.Turns.
func (d *nativeDecoder) turns(f yfield, c *assay.Case) error {
	r := d.r
	if nodeIsNull(f.val) {
		return nil
	}
	seq, ok := asSeq(f.val)
	if !ok {
		return r.errAt(f.val, "turns: want a list of turns (a mapping with query:, or a string), got %s", nodeDesc(f.val))
	}
	if len(seq.Items) == 0 {
		d.prob(f.val, "turns: an empty list asks nothing: give at least one turn, or remove turns")
	}
	if len(seq.Items) > maxTurns {
		return r.errAt(f.val, "turns: %d turns, more than the %d a conversation may have", len(seq.Items), maxTurns)
	}
	c.Turns = make([]assay.Turn, 0, len(seq.Items))
	for i, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return err
		}
		line, col := nodePos(item)
		t := assay.Turn{Source: fmt.Sprintf("%s:%d", r.file, line)}
		what := fmt.Sprintf("turns[%d]", i)
		if s, ok := nodeScalar(item); ok {
			if strings.TrimSpace(s) == "" {
				d.prob(item, "%s: an empty message asks nothing: write the user's message", what)
			}
			t.Query = s
			c.Turns = append(c.Turns, t)
			continue
		}
		fs, err := r.fields(item, what, turnFields, func(key string) string {
			if slices.Contains(expectFields, key) {
				return fmt.Sprintf("%q is an expectation: put it under the turn's \"expect:\"", key)
			}
			return ""
		})
		if err != nil {
			return err
		}
		// A turn is read as a case of its own: the same fields, the same
		// rules, its expectations in tc.Expect.
		var tc assay.Case
		var lines fieldLines
		hasQuery := false
		var relevant []string
		var relevantNodes []*ynode
		for _, tf := range fs {
			var err error
			switch tf.key {
			case "query":
				tc.Query, err = r.text(what+".query", tf.val)
				hasQuery = !nodeIsNull(tf.val)
			case "relevant":
				relevant, relevantNodes, err = r.strList(tf)
			case "judgments":
				err = d.judgments(tf, &tc)
			case "expect":
				err = d.expect(tf, &tc, &lines)
			}
			if err != nil {
				return err
			}
		}
		for j, id := range relevant {
			if id == "" {
				d.prob(relevantNodes[j], "%s.relevant: empty document id", what)
				continue
			}
			if tc.Judgments == nil {
				tc.Judgments = map[string]int{}
			}
			if d.p.suite.RecallOver == assay.RecallOverRelevant {
				tc.Relevant = append(tc.Relevant, id)
			}
			if _, ok := tc.Judgments[id]; !ok {
				tc.Judgments[id] = 1
			}
		}
		if !hasQuery {
			d.p.probs = append(d.p.probs, problem{line: line, col: col, msg: fmt.Sprintf("case %q: %s has no \"query\"", c.ID, what)})
		}
		if tc.Expect.MaxTurns > 0 {
			d.prob(item, "%s: max_turns is an expectation of the conversation: put it under the case's \"expect:\"", what)
		}
		t.Query, t.Judgments, t.Relevant, t.Expect = tc.Query, tc.Judgments, tc.Relevant, tc.Expect
		c.Turns = append(c.Turns, t)
	}
	return nil
}

// trajectory reads expect.tools: a mapping of mode, args and calls, or a
// list of calls (mode strict, args exact). A call is a mapping of name,
// args, args_match and args_regex, or a bare tool name, whose arguments
// are not compared.
func (d *nativeDecoder) trajectory(f yfield) (*assay.ToolTrajectory, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	t := &assay.ToolTrajectory{}
	callsNode := f.val
	if isSeq := isSeq(f.val); !isSeq {
		fs, err := r.fields(f.val, "tools", trajectoryField, nil)
		if err != nil {
			return nil, err
		}
		callsNode = nil
		for _, tf := range fs {
			var err error
			switch tf.key {
			case "mode":
				if t.Mode, err = r.str(tf); err == nil {
					switch t.Mode {
					case "", assay.TrajectoryStrict, assay.TrajectoryUnordered, assay.TrajectorySubset, assay.TrajectorySuperset:
					default:
						d.prob(tf.val, "tools.mode: unknown mode %q (want strict, unordered, subset or superset)", t.Mode)
					}
				}
			case "args":
				if t.Args, err = r.str(tf); err == nil {
					d.argsMode(tf.val, "tools.args", t.Args)
				}
			case "calls":
				callsNode = tf.val
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if callsNode == nil || nodeIsNull(callsNode) {
		t.Calls = []assay.ExpectedCall{}
		if t.Mode == assay.TrajectorySuperset {
			d.prob(f.val, "tools: superset of no call checks nothing: give the calls, or remove tools")
		}
		return t, nil
	}
	seq, ok := asSeq(callsNode)
	if !ok {
		return nil, r.errAt(callsNode, "tools.calls: want a list of calls (a tool name, or a mapping with name:), got %s", nodeDesc(callsNode))
	}
	t.Calls = make([]assay.ExpectedCall, 0, len(seq.Items))
	for i, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return nil, err
		}
		what := fmt.Sprintf("tools.calls[%d]", i)
		if s, ok := nodeScalar(item); ok {
			if s == "" {
				d.prob(item, "%s: empty tool name", what)
			}
			t.Calls = append(t.Calls, assay.ExpectedCall{Name: s, ArgsMatch: assay.ArgsIgnore})
			continue
		}
		fs, err := r.fields(item, what, callFields, nil)
		if err != nil {
			return nil, err
		}
		var c assay.ExpectedCall
		hasName := false
		for _, cf := range fs {
			var err error
			switch cf.key {
			case "name":
				c.Name, err = r.str(cf)
				hasName = c.Name != ""
			case "args":
				c.Args, err = d.callArgs(what+".args", cf.val)
			case "args_match":
				if c.ArgsMatch, err = r.str(cf); err == nil {
					d.argsMode(cf.val, what+".args_match", c.ArgsMatch)
				}
			case "args_regex":
				if c.ArgsRegex, err = r.strMap(cf); err == nil {
					for k, p := range c.ArgsRegex {
						if _, rerr := regexp.Compile(p); rerr != nil {
							d.prob(cf.val, "%s.args_regex.%s: invalid regexp: %s", what, k, strings.TrimPrefix(rerr.Error(), "error parsing regexp: "))
						}
					}
				}
			}
			if err != nil {
				return nil, err
			}
		}
		if !hasName {
			d.prob(item, "%s has no \"name\"", what)
		}
		t.Calls = append(t.Calls, c)
	}
	return t, nil
}

func (d *nativeDecoder) argsMode(n *ynode, what, m string) {
	switch m {
	case "", assay.ArgsExact, assay.ArgsIgnore, assay.ArgsSubset, assay.ArgsSuperset:
		return
	}
	d.prob(n, "%s: unknown mode %q (want exact, ignore, subset or superset)", what, m)
}

// callArgs reads a call's expected arguments: a mapping whose values are
// any YAML (or JSON) values, kept as JSON values (numbers as float64).
func (d *nativeDecoder) callArgs(what string, n *ynode) (map[string]any, error) {
	r := d.r
	if nodeIsNull(n) {
		return nil, nil
	}
	fs, err := r.fields(n, what, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(fs))
	for _, f := range fs {
		var v any
		if !nodeIsNull(f.val) {
			var err error
			if v, err = f.val.Plain(); err != nil {
				return nil, r.errAt(f.val, "%s.%s: %v", what, f.key, err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				return nil, r.errAt(f.val, "%s.%s: not a JSON value: %v", what, f.key, err)
			}
			v = nil
			if err := json.Unmarshal(b, &v); err != nil {
				return nil, r.errAt(f.val, "%s.%s: not a JSON value: %v", what, f.key, err)
			}
		}
		out[f.key] = v
	}
	return out, nil
}
