package history

import (
	"strings"
	"testing"
)

func TestState(t *testing.T) {
	tests := []struct {
		s      Summary
		want   int
		errHas string
	}{
		{Summary{Windows: []string{"c:s:0", "c:s:1", "c:s:2"}, HeadWindow: "c:s:1", HeadKnown: true, HeadOrdinal: 1}, 1, ""},
		{Summary{Windows: []string{"c:s:3", "c:s:unknown:x"}, HeadWindow: "c:s:3", HeadKnown: true, HeadOrdinal: 3}, 3, ""},
		{Summary{Windows: []string{"c:s:0", "c:s:unknown:x"}, HeadWindow: "c:s:unknown:x"}, 0, "unknown"},
		{Summary{}, 0, "refusing to guess"},
	}
	for _, tc := range tests {
		got, err := State(tc.s)
		if tc.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("State(%+v) = %d, %v; want error with %q", tc.s, got, err, tc.errHas)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("State(%+v) = %d, %v; want %d", tc.s, got, err, tc.want)
		}
	}
}

func TestBootMarker(t *testing.T) {
	tests := []struct {
		text   string
		h, sid string
		n      int
		ok     bool
	}{
		{"x " + BootMarker("claude:abc-1:2") + " y", "claude", "abc-1", 2, true},
		{BootMarker("pi:s:0"), "pi", "s", 0, true},
		{`<notesoup-boot window="claude:abc:two">`, "", "", 0, false},
		{`<notesoup-boot window="claude:abc:-1">`, "", "", 0, false},
		{`<notesoup-boot window="claude:abc:1`, "", "", 0, false},
		{`<notesoup-boot window="bad"> then ` + BootMarker("codex:t:4"), "codex", "t", 4, true},
		{"no marker", "", "", 0, false},
	}
	for _, tc := range tests {
		h, sid, n, ok := ParseBootMarker(tc.text)
		if h != tc.h || sid != tc.sid || n != tc.n || ok != tc.ok {
			t.Errorf("ParseBootMarker(%q) = %q %q %d %v", tc.text, h, sid, n, ok)
		}
	}
}
