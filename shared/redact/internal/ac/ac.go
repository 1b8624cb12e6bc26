// Package ac builds the tables of shared/redact's prefilter: an
// Aho-Corasick automaton, made a DFA over byte classes, that finds in one
// pass which of many literal sets a text holds one literal of, ASCII
// case-insensitively. The generator (shared/redact/internal/gen) builds it
// once and writes the tables into the package as data, so no process pays
// for building it; shared/redact's tests build it again from the current
// triggers to check the data is current.
package ac

import "fmt"

// MaxRuleWords bounds the sets the automaton tells apart (64 per word).
const MaxRuleWords = 8

// DFA is the automaton's tables.
type DFA struct {
	// Class maps a byte to its column: one per byte that occurs in a
	// literal, upper-case ASCII letters sharing their lower-case letter's,
	// and column 0 for every other byte.
	Class [256]uint8
	// Stride is the number of columns.
	Stride uint32
	// Delta is the transition table, row by row, each entry the offset
	// (state × Stride) of the next state's row, so a step is one add and
	// one load. The start state's row is at 0.
	Delta []uint32
	// States from row offset OutFrom on end at least one literal; Out
	// holds, for each in order, the sets (as bits) whose literal they end.
	OutFrom uint32
	Out     [][MaxRuleWords]uint64
	// MaxLen is the longest literal's length.
	MaxLen int
}

// Build returns the automaton that finds, for each i, whether a text holds
// one of sets[i] (lower-case ASCII literals, matched ASCII
// case-insensitively). Equal input gives equal tables.
func Build(sets [][]string) (*DFA, error) {
	if len(sets) > 64*MaxRuleWords {
		return nil, fmt.Errorf("%d literal sets, the automaton tells %d apart", len(sets), 64*MaxRuleWords)
	}
	a := &DFA{}
	nclass := 1
	for _, ts := range sets {
		for _, t := range ts {
			if t == "" {
				return nil, fmt.Errorf("an empty literal would match every text")
			}
			a.MaxLen = max(a.MaxLen, len(t))
			for i := 0; i < len(t); i++ {
				c := t[i]
				if c >= 0x80 || c >= 'A' && c <= 'Z' {
					return nil, fmt.Errorf("literal %q is not lower-case ASCII", t)
				}
				if a.Class[c] == 0 {
					a.Class[c] = uint8(nclass)
					nclass++
				}
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.Class[c] = a.Class[c+'a'-'A']
	}

	// The trie, its child links flat by node and class (0: none; the root
	// is no node's child).
	next := make([]int32, nclass)
	var out [][MaxRuleWords]uint64
	isOut := []bool{false}
	out = append(out, [MaxRuleWords]uint64{})
	for i, ts := range sets {
		for _, t := range ts {
			n := int32(0)
			for j := 0; j < len(t); j++ {
				k := int(n)*nclass + int(a.Class[t[j]])
				if next[k] == 0 {
					next[k] = int32(len(isOut))
					next = append(next, make([]int32, nclass)...)
					out = append(out, [MaxRuleWords]uint64{})
					isOut = append(isOut, false)
				}
				n = next[k]
			}
			out[n][i>>6] |= 1 << (i & 63)
			isOut[n] = true
		}
	}
	nodes := len(isOut)

	// Breadth first: failure links, outputs inherited along them, and
	// every missing transition filled from the failure state's (complete
	// already, being shallower).
	fail := make([]int32, nodes)
	order := []int32{0}
	for q := 0; q < len(order); q++ {
		n := order[q]
		for c := 0; c < nclass; c++ {
			k := int(n)*nclass + c
			child := next[k]
			if child == 0 {
				if n != 0 {
					next[k] = next[int(fail[n])*nclass+c]
				}
				continue
			}
			if n != 0 {
				f := next[int(fail[n])*nclass+c]
				fail[child] = f
				for w := range out[child] {
					out[child][w] |= out[f][w]
				}
				isOut[child] = isOut[child] || isOut[f]
			}
			order = append(order, child)
		}
	}

	// Number the states so those with output come last, the start first,
	// each group breadth first: the shallow states, which most bytes of
	// any text lead to, share a few pages of the table, and a process
	// faults in only those (a page fault costs as much as scanning
	// kilobytes).
	id := make([]uint32, nodes)
	seq := uint32(0)
	for _, want := range []bool{false, true} {
		for _, n := range order {
			if isOut[n] == want {
				id[n] = seq
				seq++
			}
		}
	}
	outStates := 0
	for _, o := range isOut {
		if o {
			outStates++
		}
	}
	a.Stride = uint32(nclass)
	a.Delta = make([]uint32, nodes*nclass)
	for n := range nodes {
		row := id[n] * a.Stride
		for c := range nclass {
			a.Delta[row+uint32(c)] = id[next[n*nclass+c]] * a.Stride
		}
	}
	first := uint32(nodes - outStates)
	a.OutFrom = first * a.Stride
	a.Out = make([][MaxRuleWords]uint64, outStates)
	for n := range nodes {
		if isOut[n] {
			a.Out[id[n]-first] = out[n]
		}
	}
	return a, nil
}
