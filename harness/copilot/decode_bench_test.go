package copilot

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// benchBytes is the size of the generated session the benchmark decodes.
const benchBytes = 32 << 20

// genSession writes a session the way the Copilot CLI writes one, of at
// least size bytes: per turn a user message, the system prompt again (as
// the CLI records it per interaction), a turn start, a usage record, an
// assistant message with reasoning and a tool request, the tool's start
// and completion with its output, a closing message and a turn end.
func genSession(t testing.TB, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	put := func(typ, data string, n int) {
		k, _ := fmt.Fprintf(w, `{"type":%q,"data":%s,"id":"e%d-%s","timestamp":"2026-12-03T10:00:00.000Z","parentId":null}`+"\n", typ, data, n, typ)
		written += int64(k)
	}
	put("session.start", `{"sessionId":"gen-session","version":1,"context":{"cwd":"/w"}}`, 0)
	system := strings.Repeat("You are the GitHub Copilot CLI. ", 200)
	output := strings.Repeat(`line of tool output with \"quotes\" and a tab\t `, 40)
	reasoning := strings.Repeat("private reasoning ", 30)
	turns := 0
	for written < size {
		turns++
		put("user.message", fmt.Sprintf(`{"content":"turn %d: please look at file%d.go and fix the bug","transformedContent":"<current_datetime>x</current_datetime>\n\nturn %d"}`, turns, turns, turns), turns)
		put("system.message", fmt.Sprintf(`{"role":"system","content":%q}`, system), turns)
		put("assistant.turn_start", `{"turnId":"0"}`, turns)
		put("session.usage_record", `{"usage":{"model":"m","inputTokens":1200,"outputTokens":20}}`, turns)
		put("assistant.message", fmt.Sprintf(`{"messageId":"m%d","content":"Reading file%d.go.","toolRequests":[{"toolCallId":"c%d","name":"view","arguments":{"path":"file%d.go"},"type":"function"}],"reasoningText":%q}`, turns, turns, turns, turns, reasoning), turns)
		put("tool.execution_start", fmt.Sprintf(`{"toolCallId":"c%d","toolName":"view","arguments":{"path":"file%d.go"}}`, turns, turns), turns)
		put("tool.execution_complete", fmt.Sprintf(`{"toolCallId":"c%d","success":true,"result":{"content":"%s","detailedContent":"%s"}}`, turns, output, output), turns)
		put("assistant.message", fmt.Sprintf(`{"messageId":"f%d","content":"Fixed the bug in file%d.go.","toolRequests":[]}`, turns, turns), turns)
		put("assistant.turn_end", `{"turnId":"0"}`, turns)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return turns
}

// BenchmarkDecode decodes a generated 32 MiB session.
func BenchmarkDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s", eventsFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	turns := genSession(b, path, benchBytes)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := (Decoder{}).Decode(history.Session{Path: path}, history.DecodeOptions{}, func(history.Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != turns*5 {
			b.Fatalf("%d events from %d turns, want %d", n, turns, turns*5)
		}
	}
}
