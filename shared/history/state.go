package history

import "fmt"

// State answers history_state for a decoded session: the head's window
// ordinal as the decoder resolved it independently (never the number of
// windows seen minus one), or an explicit refusal when it is unknown, so a
// reset never builds on a guessed ordinal.
func State(s Summary) (int, error) {
	if !s.HeadKnown {
		if s.HeadWindow != "" {
			return 0, fmt.Errorf("history_state: the head is in %s, whose window ordinal is unknown (its ancestry is incomplete); refusing to guess", s.HeadWindow)
		}
		return 0, fmt.Errorf("history_state: the head's window ordinal is unknown; refusing to guess")
	}
	if s.HeadOrdinal < 0 {
		return 0, fmt.Errorf("history_state: decoder reported a negative ordinal %d for %s", s.HeadOrdinal, s.HeadWindow)
	}
	return s.HeadOrdinal, nil
}
