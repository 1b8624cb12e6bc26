package pi

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// TestPairsOnlyAmongEmittedEvents: every pair_seq the decoder sets names
// an event it emitted, which points back. In abandoned_result.jsonl the
// selected branch holds a tool call whose result sits on an abandoned
// branch: the call must be listed unpaired, as history read says no result
// was recorded. Every fixture and recorded session is checked the same way.
func TestPairsOnlyAmongEmittedEvents(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/pi/*.jsonl")
	recorded, _ := filepath.Glob("../../testdata/transcripts/pi/*/*.jsonl")
	files = append(files, recorded...)
	checked := 0
	for _, path := range files {
		events := map[int64]history.Event{}
		_, err := Decoder{}.Decode(history.Session{Harness: Name, Path: path}, history.DecodeOptions{}, func(e history.Event) error {
			events[e.Seq] = e
			return nil
		})
		if err != nil {
			continue // the refusal fixtures
		}
		checked++
		for _, e := range events {
			if e.PairSeq == 0 {
				continue
			}
			p, ok := events[e.PairSeq]
			if !ok || p.PairSeq != e.Seq {
				t.Errorf("%s: event %d (%s) pairs with %d, which is not an emitted event pointing back", filepath.Base(path), e.Seq, e.Kind, e.PairSeq)
			}
		}
		if filepath.Base(path) == "abandoned_result.jsonl" {
			var uses int
			for _, e := range events {
				if e.Kind == history.KindToolUse {
					uses++
				}
				if e.Kind == history.KindToolResult {
					t.Errorf("abandoned_result.jsonl: the result on the abandoned branch was emitted (seq %d)", e.Seq)
				}
			}
			if uses != 1 {
				t.Errorf("abandoned_result.jsonl: %d tool calls emitted, want the one on the selected branch", uses)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d sessions decoded", checked)
	}
}
