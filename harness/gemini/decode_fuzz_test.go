package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// FuzzGeminiDecode feeds arbitrary bytes to the decoder: it must never
// panic, and whatever it emits must keep the model's invariants (ascending
// seqs, windows of the chat, symmetric pairing, a known head).
func FuzzGeminiDecode(f *testing.F) {
	real, _ := filepath.Glob(filepath.Join(transcriptsDir, "*", "*", "chats", "*.jsonl"))
	for _, p := range real {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(chat(meta, user("u1", "a"), gem("g1", "b", call("c1", "x", "success")), `{"$rewindTo":"u1"}`, user("u2", "c"))))
	f.Add([]byte(chat(meta, `{"$set":{"messages":[{"id":"s","type":"user","content":"snap"}]}}`, `{"id":"u","type":"user","content":[{"functionResponse":{"id":"c1","response":{"error":"e"}}}]}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var last int64
		pairs := map[int64]int64{}
		sum, err := decode(bytes.NewReader(data), int64(len(data)), "fuzz.jsonl", func(e history.Event) error {
			if e.Seq <= last {
				t.Fatalf("seq %d after %d", e.Seq, last)
			}
			last = e.Seq
			if !strings.HasPrefix(e.Window, "gemini:") || e.Line < 1 {
				t.Fatalf("window %q line %d", e.Window, e.Line)
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
			if back, ok := pairs[b]; !ok || back != a {
				t.Fatalf("pairing not symmetric: %d->%d->%d", a, b, back)
			}
		}
		if !sum.HeadKnown || sum.HeadOrdinal < 0 || len(sum.Windows) != sum.HeadOrdinal+1 {
			t.Fatalf("summary %+v", sum)
		}
	})
}
