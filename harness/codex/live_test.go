package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/livetest"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/history"
)

// TestDecodeWhileAppended decodes real Codex rollouts while the rest of each
// is appended line by line, with torn last lines: see internal/livetest.
func TestDecodeWhileAppended(t *testing.T) {
	var files []string
	filepath.WalkDir(filepath.Join(testbin.Root(), "testdata", "transcripts", "codex"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if len(files) == 0 {
		t.Fatal("no recorded Codex rollouts")
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)[:28], func(t *testing.T) {
			// The rollout's own folder is the root, so a fork finds its
			// parent as it would under ~/.codex/sessions.
			dec := Decoder{Roots: []string{filepath.Dir(f)}}
			n := livetest.Run(t, f, livetest.Collect(func(s history.Session, emit history.EmitFunc) (history.Summary, error) {
				return dec.Decode(s, history.DecodeOptions{}, emit)
			}))
			t.Logf("%d decodes while appending", n)
		})
	}
}
