package redact

import "github.com/notesoup/notesoup/shared/redact/internal/ac"

// The prefilter: one pass over a text finds which rules can match it, so
// only those run. Every rule lists trigger literals (gitleaks' keywords and
// the project's own, ASCII, matched case-insensitively), and an
// Aho-Corasick automaton, made a DFA over byte classes (internal/ac),
// finds all of them at once, one table load per byte. A strings.Contains
// per literal (several hundred) or lower-casing the text first would cost
// more than the masking itself, which runs on every event of every history
// page.

// ruleSet is a set of rule indices.
type ruleSet [ac.MaxRuleWords]uint64

// has reports whether rule i is in the set.
func (rs *ruleSet) has(i int) bool { return rs[i>>6]&(1<<(i&63)) != 0 }

// acDFA is the automaton's tables (internal/ac describes them).
type acDFA struct {
	class   [256]uint8
	stride  uint32
	delta   []uint32
	outFrom uint32
	out     []ruleSet
	maxLen  int
}

// automaton returns the prefilter. Its tables are data generated with the
// rules (prefilter_tables.go, from ownTriggers and gitleaks' keywords):
// building them takes a millisecond, more than a history page's masking,
// and every helper process would pay it.
func automaton() *acDFA { return &prefilter }

// scan returns the rules one of whose triggers s holds. A long text is
// scanned as four interleaved streams over its quarters (each from the
// root, overlapping the next by a trigger's length less one, so no
// occurrence is missed): a DFA step waits on the previous step's load, and
// four independent chains keep the core busy where one would leave it
// idle for most of each load's latency.
func (a *acDFA) scan(s string) ruleSet {
	var fired ruleSet
	delta, class, outFrom := a.delta, &a.class, a.outFrom
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
	for i := 0; i < len(s); i++ {
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
