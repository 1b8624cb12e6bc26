package pi

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold a bash
// execution ("Ran `cmd`"), a failed request ("[request failed] ") and a
// line too long to read (its notice).
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords,
		filepath.Join(testdataDir, "v3_compaction_branch.jsonl"), filepath.Join(testdataDir, "request_failed.jsonl"), filepath.Join(testdataDir, "v3_tools.jsonl"),
		harnesstest.OversizedLine(t, toolsSession, 4))
}

// TestOversizedLineSkipped: one line over the bound is skipped with a
// notice; the rest of the session stays readable at stable addresses.
func TestOversizedLineSkipped(t *testing.T) {
	for _, after := range []int{1, 4, 9} {
		harnesstest.OversizedLineSkipped(t, Plugin(), toolsSession, after, skippedText)
	}
}
