package copilot

import (
	"bytes"
	"os"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// TestAddressesStableAsFilesGrow decodes every prefix of every recorded
// session (a session read while the CLI writes it), cut at each line and
// inside it: each address a prefix shows must show the same thing in the
// whole file, in the same window, so an address a reader got earlier still
// names what it named.
func TestAddressesStableAsFilesGrow(t *testing.T) {
	for _, files := range recorded(t) {
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			full := decodeBytes(t, data)
			for n, end := 0, 0; end < len(data); n++ {
				i := bytes.IndexByte(data[end:], '\n')
				if i < 0 {
					break
				}
				// The next line half written, then whole.
				for _, cut := range []int{end + i/2, end + i + 1} {
					for seq, e := range decodeBytes(t, data[:cut]) {
						f, ok := full[seq]
						if !ok || f.Kind != e.Kind || f.Role != e.Role || f.ToolID != e.ToolID || f.Window != e.Window || f.Line != e.Line {
							t.Fatalf("%s: cut at byte %d (line %d) seq %d is %+v; in the whole file %+v", path, cut, n+1, seq, e, f)
						}
					}
				}
				end += i + 1
			}
		}
	}
}

func decodeBytes(t *testing.T, data []byte) map[int64]history.Event {
	t.Helper()
	out := map[int64]history.Event{}
	_, err := decode(bytes.NewReader(data), int64(len(data)), "/r/s1/events.jsonl", func(e history.Event) error {
		out[e.Seq] = e
		return nil
	})
	// Only a file without one complete line yet may be refused (retry).
	if err != nil && (bytes.IndexByte(data, '\n') >= 0 || !history.IsRetryable(err)) {
		t.Fatalf("decode of %d bytes: %v", len(data), err)
	}
	return out
}
