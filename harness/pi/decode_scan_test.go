package pi

import (
	"testing"

	"github.com/notesoup/notesoup/internal/scantest"
)

// checkScanAgrees asserts the scanner's contract (scantest.Agrees) and
// reports whether it took the line.
func checkScanAgrees(t *testing.T, line []byte) bool {
	t.Helper()
	return scantest.Agrees(t, line, func(l []byte) (fastEntry, bool) { return scanEntry(l, true) })
}

func TestScanEntryAgreesWithUnmarshal(t *testing.T) {
	cases := []string{
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"hi \u00e9\n"}]}}`,
		`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls", "n": [1, 2.5e3, -0]}}]}}`,
		`{"Type":"message"}`,                     // case-folded key: left to encoding/json
		`{"type":"message","type":"compaction"}`, // duplicate
		`{"type":"message","id":"a"} x`,          // trailing data
		`{"type":"message","id":"a",}`,           // trailing comma
		`{"type":"message","summary":"\x01"}`,    // control character
		`{"type":"m\ud800"}`,                     // lone surrogate
		"{\"type\":\"\xff\"}",                    // invalid UTF-8
		`{"type":"message","message":{"isError":1}}`,
		`{"type":"message","content":"text"}`,
		`{"type":"message","content":[null]}`,
		`{"t\u0079pe":"message"}`,
		`{"type":"message","n":01}`,
		`{"type":"message","n":1.}`,
		`{"type":"message","n":-}`,
		`  {"type":"compaction","summary":"s","id":"x","parentId":"y"}  `,
		`{"type":"compaction","summary":"\ud83d\ude00 \ud83d x \udc00 \ud83d\u0041 \u00e9 \\ \" \/ \b\f\n\r\t"}`,
		"{\"type\":\"compaction\",\"summary\":\"bad \xff\xfe utf8 \\n with escape \xc3\"}",
	}
	for _, c := range cases {
		checkScanAgrees(t, []byte(c))
	}
	// Every line of the real recordings is taken, and agrees.
	taken := 0
	scantest.EachRecordedLine(t, func(line []byte) {
		if checkScanAgrees(t, line) {
			taken++
		}
	}, "pi/*/*.jsonl")
	if taken < 80 {
		t.Errorf("the scanner took only %d recorded lines", taken)
	}
}

func FuzzScanEntry(f *testing.F) {
	f.Add([]byte(`{"type":"message","id":"a","parentId":"b","timestamp":"2026-12-02T10:00:00Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"x\"y"}],"isError":true}}`))
	f.Add([]byte(`{"type":"custom_message","id":"a","content":[{"type":"text","text":"t"}],"summary":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScanAgrees(t, line)
	})
}

// TestLineAt: a line looked up again by its offset in a file read whole is
// the line jsonl handed out (no newline, no carriage return before it).
func TestLineAt(t *testing.T) {
	whole := []byte("{\"a\":1}\n{\"b\":2}\r\n{\"c\":3}")
	for _, tc := range []struct {
		off  uint64
		want string
	}{{0, `{"a":1}`}, {8, `{"b":2}`}, {17, `{"c":3}`}} {
		if got := string(lineAt(whole, tc.off)); got != tc.want {
			t.Errorf("lineAt(%d) = %q, want %q", tc.off, got, tc.want)
		}
	}
}
