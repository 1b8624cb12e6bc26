package reset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// maxEventBytes bounds one encoded event; the largest legitimate field is a
// last_word, which a model writes in a sentence or two.
const maxEventBytes = 64 << 10

// DecodeEvent parses one event from JSON, e.g.
// {"type":"reset_requested","last_word":"check CI","terminate":false}.
// Unknown fields, unknown types and a turn origin outside the alphabet are
// errors naming the input. The reset tool's arguments stay raw: a
// non-boolean terminate decodes fine and is refused by Step, before
// anything is recorded.
func DecodeEvent(data []byte) (Event, error) {
	var ev Event
	if len(data) > maxEventBytes {
		return ev, fmt.Errorf("event: %d bytes, more than the %d allowed", len(data), maxEventBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("event: %v; want a JSON object with a \"type\" from %v", err, EventKinds)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("event: trailing data after the JSON object")
	}
	if !slices.Contains(EventKinds, ev.Kind) {
		return Event{}, fmt.Errorf("event: unknown type %q; want one of %v", ev.Kind, EventKinds)
	}
	switch ev.Kind {
	case EvTurnStarted:
		switch ev.Origin {
		case OriginNatural, OriginContinuation, OriginCloseOut:
		default:
			return Event{}, fmt.Errorf("event turn_started: origin %q; want natural, continuation or closeout", ev.Origin)
		}
	case EvSessionChanged:
		if ev.Session == "" {
			return Event{}, fmt.Errorf("event session_changed: missing \"session\" (the session identity)")
		}
	case EvCompactionCommitted, EvCompactionFailed, EvCompactionVetoed:
		if ev.Marker == "" {
			return Event{}, fmt.Errorf("event %s: missing \"marker\" (the attempt's marker from run_compaction)", ev.Kind)
		}
	}
	if ev.Kind != EvResetRequested && (len(ev.LastWord) > 0 || len(ev.Terminate) > 0) {
		return Event{}, fmt.Errorf("event %s: last_word and terminate belong to reset_requested only", ev.Kind)
	}
	return ev, nil
}
