package codex

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// recordedTools is a recorded rollout with tool calls.
const recordedTools = "../../testdata/transcripts/codex/tools/rollout-2026-12-02T12-09-14-01a236a8-ae0f-7c42-9107-6ff0851bd7a6.jsonl"

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold a failed turn
// ("[turn failed] "), tool calls and a line too long to read (its notice).
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords,
		filepath.Join(testdataDir, "turn_failed.jsonl"), filepath.Join(testdataDir, "paginated_tools.jsonl"),
		harnesstest.OversizedLine(t, recordedTools, 3))
}

// TestOversizedLineSkipped: one line over the bound is skipped with a
// notice; the rest of the rollout stays readable at stable addresses.
func TestOversizedLineSkipped(t *testing.T) {
	for _, after := range []int{1, 3, 6} {
		harnesstest.OversizedLineSkipped(t, Plugin(), recordedTools, after, skippedText)
	}
}
