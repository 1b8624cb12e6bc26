package pi

import (
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/internal/livetest"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/history"
)

// TestDecodeWhileAppended decodes real Pi sessions while the rest of each
// is appended line by line, with torn last lines: see internal/livetest.
func TestDecodeWhileAppended(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testbin.Root(), "samples", "pi", "sessions", "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Pi samples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f)), func(t *testing.T) {
			n := livetest.Run(t, f, livetest.Collect(func(s history.Session, emit history.EmitFunc) (history.Summary, error) {
				return Decoder{}.Decode(s, history.DecodeOptions{}, emit)
			}))
			t.Logf("%d decodes while appending", n)
		})
	}
}
