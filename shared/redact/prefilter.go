package redact

import (
	"fmt"
	"sync"
)

// The prefilter: one pass over a text finds which rules can match it, so
// only those run. Every rule lists trigger literals (gitleaks' keywords and
// the project's own, ASCII, matched case-insensitively), and an
// Aho-Corasick automaton, made a DFA over byte classes, finds all of them
// at once, one table load per byte. A pass of strings.Contains per literal
// (several hundred) or lower-casing the text first would cost more than
// the masking itself, which runs on every event of every history page.

// maxRuleWords bounds the rules the prefilter can tell apart (64 each).
const maxRuleWords = 8

// ruleSet is a set of rule indices.
type ruleSet [maxRuleWords]uint64

func (rs *ruleSet) has(i int) bool { return rs[i>>6]&(1<<(i&63)) != 0 }
func (rs *ruleSet) add(i int)      { rs[i>>6] |= 1 << (i & 63) }

// acDFA is the automaton.
type acDFA struct {
	// class maps a byte to its column: one per byte that occurs in a
	// trigger, upper-case ASCII letters sharing their lower-case letter's,
	// and column 0 for every other byte.
	class  [256]uint8
	stride uint32
	// delta is the transition table, row by row, each entry the offset
	// (state × stride) of the next state's row, so a step is one add and
	// one load.
	delta []uint32
	// States from row offset outFrom on end at least one trigger; out
	// holds their rule sets in that order.
	outFrom uint32
	out     []ruleSet
	// maxLen is the longest trigger's length.
	maxLen int
}

// automaton is built on first use from every rule's triggers.
var automaton = sync.OnceValue(func() *acDFA {
	rs := rules()
	triggers := make([][]string, len(rs))
	for i := range rs {
		triggers[i] = rs[i].triggers
	}
	return buildDFA(triggers)
})

// buildDFA returns the automaton that finds, for each i, whether a text
// holds one of triggers[i] (lower-case ASCII, matched ASCII
// case-insensitively).
func buildDFA(triggers [][]string) *acDFA {
	if len(triggers) > 64*maxRuleWords {
		panic(fmt.Sprintf("redact: %d rules, the prefilter tells %d apart", len(triggers), 64*maxRuleWords))
	}
	a := &acDFA{}
	nclass := 1
	for _, ts := range triggers {
		for _, t := range ts {
			for i := 0; i < len(t); i++ {
				c := t[i]
				if c >= 0x80 || c >= 'A' && c <= 'Z' {
					panic(fmt.Sprintf("redact: trigger %q is not lower-case ASCII", t))
				}
				if a.class[c] == 0 {
					a.class[c] = uint8(nclass)
					nclass++
				}
			}
		}
	}
	if nclass > 255 {
		panic("redact: too many trigger bytes")
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}

	// The trie, with each node's rule set.
	type node struct {
		next  []int32 // by class; 0 = none (the root is never a child)
		out   ruleSet
		fail  int32
		isOut bool
	}
	nodes := []node{{next: make([]int32, nclass)}}
	for i, ts := range triggers {
		for _, t := range ts {
			n := int32(0)
			for j := 0; j < len(t); j++ {
				c := a.class[t[j]]
				if nodes[n].next[c] == 0 {
					nodes = append(nodes, node{next: make([]int32, nclass)})
					nodes[n].next[c] = int32(len(nodes) - 1)
				}
				n = nodes[n].next[c]
			}
			nodes[n].out.add(i)
			nodes[n].isOut = true
		}
	}

	// Breadth first: failure links, outputs inherited along them, and
	// every missing transition filled from the failure state's (already
	// complete, being shallower).
	order := []int32{0}
	for q := 0; q < len(order); q++ {
		n := order[q]
		for c := 0; c < nclass; c++ {
			child := nodes[n].next[c]
			if child == 0 {
				if n != 0 {
					nodes[n].next[c] = nodes[nodes[n].fail].next[c]
				}
				continue
			}
			if n != 0 {
				f := nodes[nodes[n].fail].next[c]
				nodes[child].fail = f
				for w := range nodes[child].out {
					nodes[child].out[w] |= nodes[f].out[w]
				}
				nodes[child].isOut = nodes[child].isOut || nodes[f].isOut
			}
			order = append(order, child)
		}
	}

	// Number the states so those with output come last.
	id := make([]uint32, len(nodes))
	next := uint32(0)
	for _, want := range []bool{false, true} {
		for n := range nodes {
			if nodes[n].isOut == want {
				id[n] = next
				next++
			}
		}
	}
	for _, ts := range triggers {
		for _, t := range ts {
			a.maxLen = max(a.maxLen, len(t))
		}
	}
	a.stride = uint32(nclass)
	a.delta = make([]uint32, len(nodes)*nclass)
	a.out = make([]ruleSet, 0, len(nodes))
	for n := range nodes {
		row := id[n] * a.stride
		for c := 0; c < nclass; c++ {
			a.delta[row+uint32(c)] = id[nodes[n].next[c]] * a.stride
		}
	}
	outStates := 0
	for n := range nodes {
		if nodes[n].isOut {
			outStates++
		}
	}
	a.outFrom = uint32(len(nodes)-outStates) * a.stride
	a.out = make([]ruleSet, outStates)
	for n := range nodes {
		if nodes[n].isOut {
			a.out[id[n]-uint32(len(nodes)-outStates)] = nodes[n].out
		}
	}
	return a
}

// scan returns the rules one of whose triggers s holds. A long text is
// scanned as four interleaved streams over its quarters (each from the
// root, overlapping the next by a trigger's length less one, so no
// occurrence is missed): a DFA step waits on the previous step's load, and
// four independent chains keep the core busy where one would leave it
// idle for most of each load's latency.
func (a *acDFA) scan(s string) ruleSet {
	var fired ruleSet
	delta, class, outFrom := a.delta, &a.class, a.outFrom
	i := 0
	if q := len(s) / 4; q > 4*a.maxLen {
		// Stream k covers s[k*q-back : (k+1)*q] (the last to the end).
		back := a.maxLen - 1
		b, c, d := q-back, 2*q-back, 3*q-back
		n := q + back // steps of streams 1-3 over their windows
		var s0, s1, s2, s3 uint32
		// Stream 0 starts back bytes later in its window, so all four
		// step together: stream 0 from 0, the others from their starts.
		for j := 0; j < back; j++ {
			s1 = a.step(s1, s[b+j], &fired)
			s2 = a.step(s2, s[c+j], &fired)
			s3 = a.step(s3, s[d+j], &fired)
		}
		for j := back; j < n; j++ {
			s0 = delta[s0+uint32(class[s[j-back]])]
			s1 = delta[s1+uint32(class[s[b+j]])]
			s2 = delta[s2+uint32(class[s[c+j]])]
			s3 = delta[s3+uint32(class[s[d+j]])]
			if max(s0, s1, s2, s3) >= outFrom {
				a.emit(s0, &fired)
				a.emit(s1, &fired)
				a.emit(s2, &fired)
				a.emit(s3, &fired)
			}
		}
		// Stream 3 continues to the end on its own.
		for j := d + n; j < len(s); j++ {
			s3 = a.step(s3, s[j], &fired)
		}
		return fired
	}
	st := uint32(0)
	for ; i < len(s); i++ {
		st = delta[st+uint32(class[s[i]])]
		if st >= outFrom {
			a.emit(st, &fired)
		}
	}
	return fired
}

// step makes one transition and records its rules.
func (a *acDFA) step(st uint32, c byte, fired *ruleSet) uint32 {
	st = a.delta[st+uint32(a.class[c])]
	a.emit(st, fired)
	return st
}

// emit adds the rules of state st, if it ends a trigger, to fired.
func (a *acDFA) emit(st uint32, fired *ruleSet) {
	if st < a.outFrom {
		return
	}
	o := &a.out[(st-a.outFrom)/a.stride]
	for w := range fired {
		fired[w] |= o[w]
	}
}
