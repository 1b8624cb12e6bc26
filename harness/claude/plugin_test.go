package claude

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// recordedTools is a recorded transcript with tool calls and results.
var recordedTools = filepath.Join("..", "..", "testdata", "transcripts", "claude", "tools", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold tool calls and
// results, and a line too long to read (its notice).
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords, recordedTools, harnesstest.OversizedLine(t, recordedTools, 5))
}

// TestOversizedLineSkipped: one line over the bound is skipped with a
// notice; the rest of the transcript stays readable at stable addresses.
func TestOversizedLineSkipped(t *testing.T) {
	for _, after := range []int{5, 12} { // rows come before: a file of metadata alone is not read
		harnesstest.OversizedLineSkipped(t, Plugin(), recordedTools, after, skippedText)
	}
}
