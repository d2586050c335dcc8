package suite

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/assay-eval/assay/internal/yamltree"

	"github.com/assay-eval/assay"
	"github.com/assay-eval/assay/internal/boundedfile"
)

// Field names of a judge definition (docs/judge.md).
var (
	judgeFields     = []string{"url", "model", "api_key", "temperature", "seed", "max_tokens", "timeout", "retries", "concurrency", "response_format", "rubric", "budget", "max_calls", "max_cost", "prompt_price", "completion_price", "probes", "labels", "min_kappa"}
	criterionFields = []string{"name", "description", "scale", "passages"}
	budgetFields    = []string{"max_calls", "max_tokens", "max_cost", "prompt_price", "completion_price"}
	// ResponseFormats are the values of a judge's response_format.
	ResponseFormats = []string{"json_schema", "json_object", "none"}
)

// criterionName is what a rubric criterion may be called: it becomes the
// metric judge.NAME and a key of the judge's JSON answer.
var criterionName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// envRef is an api_key written as a reference to the environment.
var envRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// judgeFile bounds a --judge file.
var judgeFile = boundedfile.Limit{What: "judge file", Max: 1 * boundedfile.MiB}

// LoadJudge reads a judge definition file (--judge FILE): the same fields
// as a suite's `judge:` block, at the top level of a YAML or JSON mapping.
// Errors are positioned (file:line:col).
func LoadJudge(path string) (*assay.JudgeConfig, error) {
	src, err := boundedfile.ReadFile(path, judgeFile)
	if err != nil {
		return nil, fmt.Errorf("--judge %s: %w", path, err)
	}
	return ParseJudge(path, src)
}

// ParseJudge parses a judge definition from src; file names it in errors.
func ParseJudge(file string, src []byte) (cfg *assay.JudgeConfig, err error) {
	defer func() {
		if r := recover(); r != nil {
			cfg, err = nil, Errorf(file, 1, 1, "cannot parse: %v", r)
		}
	}()
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	if err := checkNesting(file, src); err != nil {
		return nil, err
	}
	body, err := parseBody(file, string(src), func(d yamltree.Doc) error {
		line, col := nodePos(d.Body)
		return Errorf(file, line, col, "a judge file holds one YAML document; found a second one")
	})
	if err != nil {
		return nil, err
	}
	if body == nil {
		return nil, Errorf(file, 1, 1, "empty judge file: want a mapping with url and model")
	}
	r := &nodeReader{file: file}
	if body, err = r.resolve(body); err != nil {
		return nil, err
	}
	d := &nativeDecoder{r: r, p: &parsed{suite: &assay.Suite{}, topLines: map[string]int{}}}
	if cfg, err = d.judgeDef(yfield{key: "judge", val: body}); err != nil {
		return nil, err
	}
	oneLineProblems(d.p.probs)
	if len(d.p.probs) > 0 {
		p := d.p.probs[0]
		return nil, Errorf(file, p.line, p.col, "%s", p.msg)
	}
	return cfg, nil
}

// judgeDef reads a judge definition mapping.
func (d *nativeDecoder) judgeDef(f yfield) (*assay.JudgeConfig, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	fs, err := r.fields(f.val, "judge", judgeFields, nil)
	if err != nil {
		return nil, err
	}
	line, _ := nodePos(f.val)
	cfg := &assay.JudgeConfig{Source: fmt.Sprintf("%s:%d", r.file, line)}
	seen := map[string]bool{}
	for _, jf := range fs {
		seen[jf.key] = true
		if nodeIsNull(jf.val) {
			continue
		}
		switch jf.key {
		case "url":
			cfg.URL, err = r.str(jf)
			if err == nil && !regexp.MustCompile(`^https?://[^\s]+$`).MatchString(cfg.URL) {
				d.prob(jf.val, "judge.url: want an http(s) base URL such as http://127.0.0.1:11434/v1, got %q", cfg.URL)
			}
		case "model":
			cfg.Model, err = r.str(jf)
		case "api_key":
			cfg.APIKey, err = r.str(jf)
			if err == nil && cfg.APIKey != "" && !envRef.MatchString(cfg.APIKey) {
				d.prob(jf.val, "judge.api_key: write a reference to the environment such as ${OPENAI_API_KEY}, not the key itself")
			}
		case "temperature":
			var v float64
			if v, err = r.number("judge.temperature", jf.val); err == nil {
				if v < 0 || v > 2 {
					d.prob(jf.val, "judge.temperature: want a number from 0 to 2, got %v", v)
				}
				cfg.Temperature = &v
			}
		case "seed":
			var v int
			if v, err = r.integer("judge.seed", jf.val); err == nil {
				cfg.Seed = &v
			}
		case "max_tokens":
			cfg.MaxTokens, err = d.positive("judge.max_tokens", jf.val)
		case "timeout":
			var s string
			if s, err = r.str(jf); err == nil {
				v, perr := time.ParseDuration(s)
				if perr != nil || v <= 0 {
					d.prob(jf.val, "judge.timeout: want a positive Go duration such as 30s, got %q", s)
				}
				cfg.Timeout = assay.Duration(v)
			}
		case "retries":
			var v int
			if v, err = r.integer("judge.retries", jf.val); err == nil {
				if v < 0 || v > 10 {
					d.prob(jf.val, "judge.retries: want 0 to 10, got %d", v)
				}
				cfg.Retries = &v
			}
		case "concurrency":
			cfg.Concurrency, err = d.positive("judge.concurrency", jf.val)
		case "response_format":
			if cfg.ResponseFormat, err = r.str(jf); err == nil && !slices.Contains(ResponseFormats, cfg.ResponseFormat) {
				d.prob(jf.val, "judge.response_format: unknown value %q (want json_schema, json_object or none)", cfg.ResponseFormat)
			}
		case "rubric":
			cfg.Rubric, err = d.rubric(jf)
		case "budget":
			err = d.budget(jf, &cfg.Budget)
		case "labels":
			if cfg.Labels, err = r.str(jf); err == nil && cfg.Labels != "" && !filepath.IsAbs(cfg.Labels) {
				cfg.Labels = filepath.Join(fileDir(r.file), cfg.Labels)
			}
		case "min_kappa":
			var v float64
			if v, err = r.number("judge.min_kappa", jf.val); err == nil {
				if v < -1 || v > 1 {
					d.prob(jf.val, "judge.min_kappa: want a kappa from -1 to 1 (0.6 is substantial agreement), got %v", v)
				}
				cfg.MinKappa = &v
			}
		case "probes":
			var nodes []*ynode
			if cfg.Probes, nodes, err = r.strList(jf); err == nil {
				for i, p := range cfg.Probes {
					if !slices.Contains(assay.JudgeProbes, p) {
						d.prob(nodes[i], "judge.probes: unknown probe %q (want position, verbosity or consistency)", p)
					}
				}
			}
		case "max_calls", "max_cost", "prompt_price", "completion_price":
			// The budget's limits may be written beside the other fields
			// (max_calls: 3) as well as in budget: (max_tokens there is the
			// budget's; beside them it is the limit of one answer).
			err = d.budgetField("judge."+jf.key, jf.key, jf.val, &cfg.Budget)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, req := range []string{"url", "model"} {
		if !seen[req] {
			d.prob(f.val, "judge: missing %q", req)
		}
	}
	if b := cfg.Budget; seen["max_cost"] && b.PromptPrice == 0 && b.CompletionPrice == 0 {
		d.prob(f.val, "judge.max_cost needs the per-token prices: add prompt_price and completion_price")
	}
	return cfg, nil
}

// positive reads an integer >= 1.
func (d *nativeDecoder) positive(what string, n *ynode) (int, error) {
	v, err := d.r.integer(what, n)
	if err == nil && v < 1 {
		d.prob(n, "%s: must be at least 1, got %d", what, v)
	}
	return v, err
}

// rubric reads a list of criteria.
func (d *nativeDecoder) rubric(f yfield) ([]assay.JudgeCriterion, error) {
	r := d.r
	seq, ok := asSeq(f.val)
	if !ok {
		return nil, r.errAt(f.val, "judge.rubric: want a list of criteria ({name, description, scale}), got %s", nodeDesc(f.val))
	}
	if len(seq.Items) == 0 {
		d.prob(f.val, "judge.rubric: empty list; leave the field out for the default rubric")
	}
	var out []assay.JudgeCriterion
	seen := map[string]bool{}
	for _, item := range seq.Items {
		item, err := r.resolve(item)
		if err != nil {
			return nil, err
		}
		fs, err := r.fields(item, "rubric criterion", criterionFields, nil)
		if err != nil {
			return nil, err
		}
		c := assay.JudgeCriterion{Min: 0, Max: 1}
		for _, cf := range fs {
			switch cf.key {
			case "name":
				c.Name, err = r.str(cf)
				if err == nil && (!criterionName.MatchString(c.Name) || c.Name == "reasoning") {
					d.prob(cf.val, "judge.rubric: criterion name %q: want a lowercase word (a-z, 0-9, _), not \"reasoning\"", c.Name)
				}
			case "description":
				c.Description, err = r.text(cf.key, cf.val)
			case "scale":
				lo, hi, serr := d.scale(cf)
				err = serr
				c.Min, c.Max = lo, hi
			case "passages":
				c.Passages, err = r.boolean("judge.rubric.passages", cf.val)
			}
			if err != nil {
				return nil, err
			}
		}
		if c.Name == "" {
			d.prob(item, "judge.rubric: criterion has no \"name\"")
			continue
		}
		if seen[c.Name] {
			d.prob(item, "judge.rubric: duplicate criterion %q", c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	return out, nil
}

// scale reads [MIN, MAX].
func (d *nativeDecoder) scale(f yfield) (float64, float64, error) {
	r := d.r
	seq, ok := asSeq(f.val)
	if !ok || len(seq.Items) != 2 {
		return 0, 0, r.errAt(f.val, "scale: want [MIN, MAX] such as [0, 1] or [1, 5], got %s", nodeDesc(f.val))
	}
	var v [2]float64
	for i, n := range seq.Items {
		n, err := r.resolve(n)
		if err != nil {
			return 0, 0, err
		}
		if v[i], err = r.number("scale", n); err != nil {
			return 0, 0, err
		}
	}
	if v[0] >= v[1] {
		d.prob(f.val, "scale: MIN must be less than MAX, got [%v, %v]", v[0], v[1])
	}
	return v[0], v[1], nil
}

// budget reads the judge's budget block.
func (d *nativeDecoder) budget(f yfield, b *assay.JudgeBudget) error {
	r := d.r
	fs, err := r.fields(f.val, "judge.budget", budgetFields, nil)
	if err != nil {
		return err
	}
	for _, bf := range fs {
		if nodeIsNull(bf.val) {
			continue
		}
		if err := d.budgetField("judge.budget."+bf.key, bf.key, bf.val, b); err != nil {
			return err
		}
	}
	if b.MaxCost > 0 && b.PromptPrice == 0 && b.CompletionPrice == 0 {
		d.prob(f.val, "judge.budget.max_cost needs the per-token prices: add prompt_price and completion_price")
	}
	return nil
}

// budgetField reads one limit or price of the judge's budget (what names
// it in errors); a limit given both beside the judge's fields and in its
// budget: block is an error.
func (d *nativeDecoder) budgetField(what, key string, val *ynode, b *assay.JudgeBudget) error {
	r := d.r
	var err error
	var v float64
	set := false
	switch key {
	case "max_calls":
		set = b.MaxCalls != 0
		b.MaxCalls, err = d.positive(what, val)
	case "max_tokens":
		set = b.MaxTokens != 0
		b.MaxTokens, err = d.positive(what, val)
	default:
		if v, err = r.number(what, val); err == nil && (v < 0 || (key == "max_cost" && v == 0)) {
			d.prob(val, "%s: must be greater than 0, got %v", what, v)
		}
		switch key {
		case "max_cost":
			set, b.MaxCost = b.MaxCost != 0, v
		case "prompt_price":
			set, b.PromptPrice = b.PromptPrice != 0, v
		case "completion_price":
			set, b.CompletionPrice = b.CompletionPrice != 0, v
		}
	}
	if err == nil && set {
		d.prob(val, "%s: the budget's %s is given twice (beside the judge's fields and in budget:): keep one", what, key)
	}
	return err
}

// judgeBounds reads expect.judge or defaults.judge: criterion -> least
// score.
func (d *nativeDecoder) judgeBounds(f yfield) (map[string]float64, error) {
	r := d.r
	if nodeIsNull(f.val) {
		return nil, nil
	}
	fs, err := r.fields(f.val, f.key, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		d.prob(f.val, "%s: an empty mapping checks nothing: give criterion: least score, e.g. groundedness: 0.8", f.key)
	}
	out := make(map[string]float64, len(fs))
	for _, bf := range fs {
		if !criterionName.MatchString(bf.key) || bf.key == "reasoning" {
			d.prob(bf.keyNode, "%s: %q is not a criterion name (a lowercase word, e.g. groundedness)", f.key, bf.key)
			continue
		}
		v, err := r.number(f.key+"."+bf.key, bf.val)
		if err != nil {
			return nil, err
		}
		out[bf.key] = v
	}
	return out, nil
}
