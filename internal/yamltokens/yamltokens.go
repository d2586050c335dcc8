// Package yamltokens rewrites goccy/go-yaml lexer tokens, before the
// parser sees them, around the parser's costs that grow faster than the
// input.
//
// goccy/go-yaml v1.19.2 parses a block mapping by recursing once per key
// and copying the keys parsed so far at every level (goccy/go-yaml pull
// request #889, open): a mapping of 40,000 keys, such as a case's
// judgments, takes 12 s and 6.6 GB of allocations, while the same mapping
// written in flow style ({...}) parses in linear time. FlowLargeMappings
// turns a large block mapping whose values are all one-line scalars into
// the equivalent flow mapping: the same keys, values and positions, only
// the mapping node is flow style (IsFlowStyle, and its token is the "{"
// inserted at its first key).
package yamltokens

import "github.com/goccy/go-yaml/token"

// MinEntries is the number of entries from which FlowLargeMappings
// rewrites a block mapping; smaller ones parse quickly as they are.
var MinEntries = 512

// FlowLargeMappings returns tks with every block mapping of at least
// MinEntries entries of the form `key: scalar` (one line each, no comment,
// tag, anchor or alias, and nothing else in the mapping) written as a flow
// mapping. It returns tks itself when there is none.
func FlowLargeMappings(tks token.Tokens) token.Tokens {
	var out token.Tokens
	copied := 0 // tks[:copied] are in out
	for i := 0; i < len(tks); i++ {
		n := mappingRun(tks, i)
		if n < MinEntries {
			continue
		}
		if out == nil {
			out = make(token.Tokens, 0, len(tks)+n+2)
		}
		for _, tk := range tks[copied:i] {
			out.Add(tk)
		}
		out.Add(token.MappingStart("{", copyPos(tks[i].Position, 0)))
		for e := range n {
			k := i + 3*e
			if e > 0 {
				out.Add(token.CollectEntry(",", copyPos(tks[k-1].Position, len(tks[k-1].Origin))))
			}
			out.Add(tks[k], tks[k+1], tks[k+2])
		}
		last := tks[i+3*n-1]
		out.Add(token.MappingEnd("}", copyPos(last.Position, len(last.Origin))))
		i += 3*n - 1
		copied = i + 1
	}
	if out == nil {
		return tks
	}
	for _, tk := range tks[copied:] {
		out.Add(tk)
	}
	return out
}

// copyPos is a new position, shifted right by d columns.
func copyPos(p *token.Position, d int) *token.Position {
	c := *p
	c.Column += d
	c.Offset += d
	return &c
}

// mappingRun is the number of entries of the block mapping whose first key
// is tks[i], when the whole mapping is `key: scalar` lines; else 0.
func mappingRun(tks token.Tokens, i int) int {
	if !entry(tks, i) {
		return 0
	}
	key := tks[i].Position
	// the mapping starts here: after its parent key's ":" on an earlier
	// line, after "- ", after "---", or at the start
	if i > 0 {
		prev := tks[i-1]
		switch prev.Type {
		case token.MappingValueType:
			// the value of the key before the ":", which is left of it
			if prev.Position.Line >= key.Line || i < 2 {
				return 0
			}
			parent := tks[i-2]
			if !scalar(parent.Type) || parent.Position == nil || parent.Position.Line != prev.Position.Line || parent.Position.Column >= key.Column {
				return 0
			}
		case token.SequenceEntryType:
			if prev.Position.Column >= key.Column {
				return 0
			}
		case token.DocumentHeaderType:
		default:
			return 0
		}
	}
	n, line := 0, 0
	for ; ; n++ {
		k := i + 3*n
		if k == len(tks) {
			return n
		}
		p := tks[k].Position
		if p.Column < key.Column && p.Line > line || tks[k].Type == token.DocumentHeaderType || tks[k].Type == token.DocumentEndType {
			return n // the end of the mapping
		}
		if p.Column != key.Column || p.Line <= line || !entry(tks, k) {
			return 0 // something else in the mapping
		}
		line = tks[k+2].Position.Line
	}
}

// entry reports whether tks[k:k+3] is `key: scalar` on one line.
func entry(tks token.Tokens, k int) bool {
	if k+2 >= len(tks) {
		return false
	}
	key, colon, val := tks[k], tks[k+1], tks[k+2]
	if key.Position == nil || colon.Position == nil || val.Position == nil {
		return false
	}
	return scalar(key.Type) && colon.Type == token.MappingValueType && scalar(val.Type) &&
		key.Position.Line == colon.Position.Line && colon.Position.Line == val.Position.Line
}

func scalar(t token.Type) bool {
	switch t {
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType,
		token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType,
		token.FloatType, token.BoolType, token.NullType, token.InfinityType, token.NanType:
		return true
	}
	return false
}
