package harness

import "testing"

func TestNameMayHold(t *testing.T) {
	tests := []struct {
		name, prefix string
		want         bool
	}{
		{"0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl", "0b5e8a61", true},                                                         // Claude
		{"2026-12-02T10-00-00-000Z_4f1e2d3c-aaaa-4bbb-8ccc-000000000001.jsonl", "4f1e2d3c", true},                                // Pi
		{"rollout-2026-12-02T10-00-00-01a2cccc-0000-7000-8000-00000000000c.jsonl", "01a2cccc-0000-7000-8000-00000000000c", true}, // Codex
		{"0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl", "77777777", false},
		{"anything.jsonl", "", true},
	}
	for _, tc := range tests {
		if got := NameMayHold(tc.name, tc.prefix); got != tc.want {
			t.Errorf("NameMayHold(%q, %q) = %v, want %v", tc.name, tc.prefix, got, tc.want)
		}
	}
}
