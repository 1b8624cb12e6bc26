package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// FuzzCodexDecode feeds arbitrary bytes to the decoder: it must never panic,
// and whatever it emits must keep the model's invariants. The fixture roots
// are searched for fork parents, so history_base chains are exercised too.
func FuzzCodexDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(testdataDir, "*.jsonl"))
	forks, _ := filepath.Glob(filepath.Join(testdataDir, "home", "*", "*", "*", "*", "*.jsonl"))
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "codex", "*", "*.jsonl"))
	for _, p := range append(append(paths, forks...), real...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	d := Decoder{Roots: homeRoots("home")}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "rollout-fuzz.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var last int64
		pairs := map[int64]int64{}
		sum, err := d.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
			if e.Seq != last+1 {
				t.Fatalf("seq %d after %d", e.Seq, last)
			}
			last = e.Seq
			if !strings.HasPrefix(e.Window, "codex:") {
				t.Fatalf("window %q", e.Window)
			}
			if e.PairSeq != 0 {
				pairs[e.Seq] = e.PairSeq
			}
			return nil
		})
		if err != nil {
			return
		}
		for a, b := range pairs {
			if back, ok := pairs[b]; ok && back != a {
				t.Fatalf("pairing not symmetric: %d->%d->%d", a, b, back)
			}
		}
		if sum.HeadKnown && sum.HeadOrdinal < 0 {
			t.Fatalf("negative head ordinal %d", sum.HeadOrdinal)
		}
	})
}
