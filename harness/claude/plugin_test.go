package claude

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

// TestRawSearchPromise holds the decoder to what Describe promises a raw
// search (harnesstest.RawSearchPromise). The fixtures hold tool calls and results.
func TestRawSearchPromise(t *testing.T) {
	harnesstest.RawSearchPromise(t, Plugin(), nil,
		filepath.Join("..", "..", "testdata", "transcripts", "claude", "tools", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl"))
}
