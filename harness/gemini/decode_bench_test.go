package gemini

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/history"
)

// benchBytes is the size of the generated chat the benchmark decodes.
const benchBytes = 32 << 20

// genChat writes a chat the way the Gemini CLI writes one, of at least size
// bytes: per turn a user prompt, the model's message written three times
// as it grows (text, then with a tool call and its result), the function
// response, a closing message and a lastUpdated patch after each; a resume
// ($set.messages of the whole history so far, bounded) every 100 turns.
func genChat(t testing.TB, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	put := func(format string, args ...any) {
		n, _ := fmt.Fprintf(w, format+"\n", args...)
		written += int64(n)
	}
	put(`{"sessionId":"gen-chat","projectHash":"h","startTime":"2026-12-02T10:00:00.000Z","lastUpdated":"2026-12-02T10:00:00.000Z","kind":"main"}`)
	output := strings.Repeat(`line of tool output with \"quotes\" and a tab\t `, 40)
	thoughts := `[{"subject":"Planning","description":"` + strings.Repeat("private reasoning ", 30) + `","timestamp":"2026-12-02T10:00:00.000Z"}]`
	var history []string
	turns := 0
	for written < size {
		turns++
		ts := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(turns) * time.Second).Format(time.RFC3339Nano)
		u := fmt.Sprintf(`{"id":"u%d","timestamp":"%s","type":"user","content":[{"text":"turn %d: please look at file%d.go and fix the bug"}]}`, turns, ts, turns, turns)
		put("%s", u)
		put(`{"$set":{"lastUpdated":"%s"}}`, ts)
		g := fmt.Sprintf(`{"id":"g%d","timestamp":"%s","type":"gemini","content":"Reading file%d.go.","thoughts":%s,"tokens":{"input":1200,"output":20,"cached":0,"thoughts":0,"tool":0,"total":1220},"model":"gemini-2.5-flash"`, turns, ts, turns, thoughts)
		put("%s}", g)
		put(`{"$set":{"lastUpdated":"%s"}}`, ts)
		call := fmt.Sprintf(`{"id":"read_file_%d","name":"read_file","args":{"file_path":"file%d.go"},"result":[{"functionResponse":{"id":"read_file_%d","name":"read_file","response":{"output":"%s"}}}],"status":"success","timestamp":"%s","resultDisplay":"","displayName":"ReadFile","description":"file%d.go","renderOutputAsMarkdown":true}`, turns, turns, turns, output, ts, turns)
		put(`%s,"toolCalls":[%s]}`, g, call)
		put(`{"id":"r%d","timestamp":"%s","type":"user","content":[{"functionResponse":{"id":"read_file_%d","name":"read_file","response":{"output":"%s"}}}]}`, turns, ts, turns, output)
		put(`{"$set":{"lastUpdated":"%s"}}`, ts)
		put(`{"id":"f%d","timestamp":"%s","type":"gemini","content":"Fixed the bug in file%d.go.","thoughts":[],"model":"gemini-2.5-flash"}`, turns, ts, turns)
		put(`{"$set":{"lastUpdated":"%s"}}`, ts)
		history = append(history, u, fmt.Sprintf(`{"id":"f%d","type":"gemini","content":[{"text":"Fixed the bug in file%d.go."}]}`, turns, turns))
		if turns%100 == 0 {
			if len(history) > 400 {
				history = history[len(history)-400:]
			}
			put(`{"$set":{"messages":[%s],"lastUpdated":"%s"}}`, strings.Join(history, ","), ts)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return turns
}

// BenchmarkGeminiDecode measures decode throughput (MB/s of chat file) over
// a generated 32 MiB chat.
func BenchmarkGeminiDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "session-bench.jsonl")
	turns := genChat(b, path, benchBytes)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := (Decoder{}).Decode(history.Session{Path: path}, history.DecodeOptions{}, func(history.Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 5*turns {
			b.Fatalf("%d events from %d turns, want 5 a turn", n, turns)
		}
	}
}
