package reset

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseCap: any accepted cap is a whole positive token count within
// bounds (or 0 for off) and its canonical form parses back to itself.
func FuzzParseCap(f *testing.F) {
	for _, s := range []string{"100k", "1.5m", "120000", "off", "0.5k", "1.2345k", "", "k", "9999999999999m", ".5k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseCap(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseCap(%q) returned %d with an error", s, n)
			}
			return
		}
		if n == 0 {
			if strings.ToLower(strings.TrimSpace(s)) != "off" {
				t.Fatalf("ParseCap(%q) = 0 without off", s)
			}
			return
		}
		if n < 0 || n > MaxCapTokens {
			t.Fatalf("ParseCap(%q) = %d out of bounds", s, n)
		}
		back, err := ParseCap(FormatTokens(n))
		if err != nil || back != n {
			t.Fatalf("FormatTokens(%d) = %q does not parse back: %d, %v", n, FormatTokens(n), back, err)
		}
	})
}

// FuzzDecodeEvent: decoding never panics, and a decoded event steps any
// reachable state without panicking, keeps the state well-formed, and a
// refused reset request leaves the state untouched.
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"reset_requested","last_word":"x","terminate":true}`,
		`{"type":"reset_requested","terminate":"yes"}`,
		`{"type":"reset_requested","last_word":5}`,
		`{"type":"turn_started","origin":"natural"}`,
		`{"type":"compaction_committed","marker":"notesoup-reset:1:2","evidence":true}`,
		`{"type":"session_changed","session":"b","seed":9}`,
		`{"type":"manual_stop"}`, `{"type":"step","subagent":true}`, `{"type":"budget_hard"}`,
	} {
		f.Add([]byte(s))
	}
	bases := []State{NewState("s", 1)}
	s, _ := Step(bases[0], Event{Kind: EvResetRequested})
	bases = append(bases, s)
	s, _ = Step(Step2(s, Event{Kind: EvStep}), Event{Kind: EvTurnCompleted})
	bases = append(bases, s)
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := DecodeEvent(data)
		if err != nil {
			return
		}
		for _, b := range bases {
			next, acts := Step(b, ev)
			if len(acts) == 0 {
				t.Fatalf("no action for %s", data)
			}
			if err := next.validate(); err != nil {
				t.Fatalf("event %s made an ill-formed state: %v", data, err)
			}
			if ev.Kind == EvResetRequested && acts[0].Kind == ActRefuse {
				a, _ := json.Marshal(b)
				c, _ := json.Marshal(next)
				if string(a) != string(c) {
					t.Fatalf("refused request %s changed the state", data)
				}
			}
		}
	})
}

// Step2 steps and drops the actions, for building fixtures.
func Step2(s State, ev Event) State {
	next, _ := Step(s, ev)
	return next
}
