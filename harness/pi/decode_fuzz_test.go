package pi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// FuzzPiDecode feeds arbitrary bytes to the decoder: it must never panic,
// and whatever it emits must keep the model's invariants.
func FuzzPiDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(testdataDir, "*.jsonl"))
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "pi", "*", "*.jsonl"))
	for _, p := range append(paths, real...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "")
		}
	}
	f.Add([]byte("{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"), "a")
	f.Fuzz(func(t *testing.T, data []byte, head string) {
		var last int64
		pairs := map[int64]int64{}
		sum, err := decode(bytes.NewReader(data), int64(len(data)), "fuzz.jsonl", history.DecodeOptions{Head: head}, func(e history.Event) error {
			if e.Seq <= last {
				t.Fatalf("seq %d after %d", e.Seq, last)
			}
			last = e.Seq
			if !strings.HasPrefix(e.Window, "pi:") {
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
