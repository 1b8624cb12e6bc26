package gemini

import (
	"bytes"
	"os"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// TestAddressesStableAsFilesGrow decodes every prefix of every recorded
// chat (a chat read while the CLI writes it): each address a prefix shows
// must show the same thing in the whole file, so an address a reader got
// earlier still names what it named.
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
				end += i + 1
				for seq, e := range decodeBytes(t, data[:end]) {
					f, ok := full[seq]
					if !ok || f.Kind != e.Kind || f.Role != e.Role || f.ToolID != e.ToolID || f.Window != e.Window {
						t.Fatalf("%s: after %d lines seq %d is %+v; in the whole file %+v", path, n+1, seq, e, f)
					}
				}
			}
		}
	}
}

func decodeBytes(t *testing.T, data []byte) map[int64]history.Event {
	t.Helper()
	out := map[int64]history.Event{}
	_, err := decode(bytes.NewReader(data), int64(len(data)), "chat.jsonl", func(e history.Event) error {
		out[e.Seq] = e
		return nil
	})
	if err != nil {
		t.Fatalf("decode of %d bytes: %v", len(data), err)
	}
	return out
}
