package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// FuzzCopilotDecode feeds arbitrary bytes to the decoder: it must never
// panic, and whatever it emits must keep the model's invariants (ascending
// seqs, windows of the session, symmetric pairing, a known head).
func FuzzCopilotDecode(f *testing.F) {
	real, _ := filepath.Glob(filepath.Join(transcriptsDir, "*", "*", eventsFile))
	for _, p := range real {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(session(start, user("u1", "a"), said("a1", "b", req("c1", "x")), done("t", "c1", "r"),
		ev("r", "session.snapshot_rewind", `{"upToEventId":"a1","eventsRemoved":2}`), user("u2", "c"))))
	f.Add([]byte(session(start, ev("k", "session.compaction_complete", `{"success":true,"summaryContent":"s"}`), done("t", "c9", "orphan"))))
	f.Fuzz(func(t *testing.T, data []byte) {
		var last int64
		pairs := map[int64]int64{}
		sum, err := decode(bytes.NewReader(data), int64(len(data)), "/r/s1/events.jsonl", func(e history.Event) error {
			if e.Seq <= last {
				t.Fatalf("seq %d after %d", e.Seq, last)
			}
			last = e.Seq
			if !strings.HasPrefix(e.Window, "copilot:") || e.Line < 1 {
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
