package ac

import (
	"testing"
)

// holds runs the automaton over s and reports which sets fired.
func holds(a *DFA, s string, n int) []bool {
	st := uint32(0)
	var fired [MaxRuleWords]uint64
	for i := 0; i < len(s); i++ {
		st = a.Delta[st+uint32(a.Class[s[i]])]
		if st >= a.OutFrom {
			o := a.Out[(st-a.OutFrom)/a.Stride]
			for w := range fired {
				fired[w] |= o[w]
			}
		}
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = fired[i>>6]&(1<<(i&63)) != 0
	}
	return out
}

func TestBuild(t *testing.T) {
	sets := [][]string{{"he", "she"}, {"his"}, {"hers"}, {"s."}, {"://"}}
	a, err := Build(sets)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		text string
		want []bool
	}{
		{"", []bool{false, false, false, false, false}},
		{"ushers", []bool{true, false, true, false, false}}, // overlapping: she, he, hers
		{"HIS", []bool{false, true, false, false, false}},   // case-insensitive
		{"this.", []bool{false, true, false, true, false}},
		{"http://x", []bool{false, false, false, false, true}},
		{"h e r s", []bool{false, false, false, false, false}},
	} {
		got := holds(a, tt.text, len(sets))
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: set %d (%q) fired = %v, want %v", tt.text, i, sets[i], got[i], tt.want[i])
			}
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	for _, sets := range [][][]string{{{""}}, {{"Abc"}}, {{"caf\u00e9"}}, make([][]string, 64*MaxRuleWords+1)} {
		if _, err := Build(sets); err == nil {
			t.Errorf("Build(%.40q) accepted", sets)
		}
	}
}
