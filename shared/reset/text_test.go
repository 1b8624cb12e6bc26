package reset

import (
	"strings"
	"testing"
)

func TestWarningTextEndsWithToolAndCountdown(t *testing.T) {
	for _, c := range []struct {
		tool string
		left int64
		tail string
	}{
		{"empty_brain", 12345, "Reset tool: empty_brain — 12,345 tokens left before the automatic reset."},
		{"mcp__notesoup__empty_brain", 999, "Reset tool: mcp__notesoup__empty_brain — 999 tokens left before the automatic reset."},
		{"empty_brain", 1234567, "empty_brain — 1,234,567 tokens left before the automatic reset."},
		{"empty_brain", -5, "empty_brain — 0 tokens left before the automatic reset."},
	} {
		got := WarningText(c.tool, c.left)
		if !strings.HasSuffix(got, c.tail) {
			t.Errorf("WarningText(%q, %d) ends %q, want suffix %q", c.tool, c.left, got[max(0, len(got)-80):], c.tail)
		}
		if !strings.Contains(got, "notes") || !strings.Contains(got, "last_word") {
			t.Errorf("warning does not tell the model to save notes and pass a last_word")
		}
	}
}

func TestHandoffPools(t *testing.T) {
	for _, p := range []Pool{PoolNormal, PoolForced} {
		ps := Handoffs(p)
		if len(ps) < 3 {
			t.Fatalf("pool %s has %d paragraphs, want several", p, len(ps))
		}
		seen := map[string]bool{}
		for i, para := range ps {
			if len(para) < 200 || seen[para] {
				t.Errorf("pool %s paragraph %d is short or duplicated", p, i)
			}
			seen[para] = true
			got, err := Handoff(p, i)
			if err != nil || got != para {
				t.Errorf("Handoff(%s, %d) = %q, %v", p, i, got, err)
			}
		}
		if _, err := Handoff(p, len(ps)); err == nil {
			t.Errorf("Handoff out of range accepted")
		}
	}
	// Normal paragraphs speak of a reset the model chose; forced ones of one
	// it did not.
	for _, para := range Handoffs(PoolNormal) {
		if !strings.Contains(para, "you asked") && !strings.Contains(para, "on purpose") && !strings.Contains(para, "you requested") && !strings.Contains(para, "your own choice") {
			t.Errorf("normal paragraph does not say the model asked: %q", para[:60])
		}
	}
}

func TestHandoffIndexDeterministicAndSpread(t *testing.T) {
	counts := map[int]int{}
	for w := int64(0); w < 400; w++ {
		i := HandoffIndex(PoolForced, 7, 1, w)
		if i != HandoffIndex(PoolForced, 7, 1, w) {
			t.Fatalf("choice for window %d not reproducible", w)
		}
		counts[i]++
	}
	if len(counts) != len(Handoffs(PoolForced)) {
		t.Fatalf("over 400 windows only paragraphs %v were chosen", counts)
	}
	for i, n := range counts {
		if n < 40 {
			t.Errorf("paragraph %d chosen %d/400 times: the choice is lopsided", i, n)
		}
	}
	differs := false
	for seed := uint64(0); seed < 20; seed++ {
		if HandoffIndex(PoolNormal, seed, 1, 3) != HandoffIndex(PoolNormal, 0, 1, 3) {
			differs = true
		}
	}
	if !differs {
		t.Fatalf("the seed does not influence the choice")
	}
}
