package codex

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold a failed turn ("[turn failed] ") and tool calls.
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords,
		filepath.Join(testdataDir, "turn_failed.jsonl"), filepath.Join(testdataDir, "paginated_tools.jsonl"))
}
