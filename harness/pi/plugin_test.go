package pi

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold a bash execution ("Ran `cmd`") and a failed request ("[request failed] ").
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), SynthesizedWords,
		filepath.Join(testdataDir, "v3_compaction_branch.jsonl"), filepath.Join(testdataDir, "request_failed.jsonl"), filepath.Join(testdataDir, "v3_tools.jsonl"))
}
