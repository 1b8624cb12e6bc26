package pi

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/heaptest"
	"github.com/notesoup/notesoup/shared/history"
)

// Sizes of generated sessions. memTestBytes is the issue's "200 MB
// transcript"; heapLimit its "under 64 MB of heap".
const (
	benchBytes   = 32 << 20
	memTestBytes = 200 << 20
	heapLimit    = 64 << 20
)

// genSession writes a realistic Pi v3 session of at least size bytes: turns
// of a user prompt, an assistant message with thinking, text and two tool
// calls, two chained tool results of a few KiB, a final answer, with a
// compaction every 200 turns and a branch every 50. It returns the number of
// turns written.
func genSession(t testing.TB, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	put := func(format string, args ...any) {
		n, _ := fmt.Fprintf(w, format, args...)
		written += int64(n)
	}
	put(`{"type":"session","version":3,"id":"gen-session","timestamp":"2026-12-02T10:00:00.000Z","cwd":"/w/gen"}` + "\n")
	put(`{"type":"model_change","id":"root0000","parentId":null,"timestamp":"2026-12-02T10:00:00.000Z","provider":"fake","modelId":"fake-model"}` + "\n")
	output := strings.Repeat(`line of tool output with \"quotes\" and a tab\t `, 40)
	thinking := strings.Repeat("private reasoning ", 30)
	leaf, id := "root0000", 0
	next := func() string { id++; return fmt.Sprintf("%08x", id) }
	turns := 0
	for written < size {
		turns++
		ts := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(turns) * time.Second).Format(time.RFC3339Nano)
		branchFrom := leaf
		u := next()
		put(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"user","content":"turn %d: please look at file%d.go and fix the bug","timestamp":1796208043000}}`+"\n", u, leaf, ts, turns, turns)
		a := next()
		put(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"reasoning_content"},{"type":"text","text":"Reading file%d.go."},{"type":"toolCall","id":"call_%d_a","name":"read","arguments":{"path":"file%d.go"}},{"type":"toolCall","id":"call_%d_b","name":"bash","arguments":{"command":"go test ./..."}}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":1200,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":1220,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1796208043527}}`+"\n", a, u, ts, thinking, turns, turns, turns, turns)
		r1 := next()
		put(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"toolResult","toolCallId":"call_%d_a","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":1796208043598}}`+"\n", r1, a, ts, turns, output)
		r2 := next()
		put(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"toolResult","toolCallId":"call_%d_b","toolName":"bash","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":1796208043598}}`+"\n", r2, r1, ts, turns, output)
		f := next()
		put(`{"type":"message","id":"%s","parentId":"%s","timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"Fixed the bug in file%d.go."}],"stopReason":"stop","timestamp":1796208043600}}`+"\n", f, r2, ts, turns)
		leaf = f
		if turns%50 == 0 {
			leaf = branchFrom // the next turn starts a sibling branch
		}
		if turns%200 == 0 {
			c := next()
			put(`{"type":"compaction","id":"%s","parentId":"%s","timestamp":"%s","summary":"## Goal\nsummary of %d turns","firstKeptEntryId":"%s","tokensBefore":100000}`+"\n", c, leaf, ts, turns, leaf)
			leaf = c
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

// BenchmarkPiDecode measures decode throughput (MB/s of session file) over
// a generated 32 MiB session, both passes included.
func BenchmarkPiDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	genSession(b, path, benchBytes)
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
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// TestDecodeMemoryBounded decodes a generated 200 MB session and samples the
// heap while it runs: the decoder keeps tree metadata, not text, so the peak
// stays under 64 MB.
func TestDecodeMemoryBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	turns := genSession(t, path, memTestBytes)
	var events, texts int
	var sum history.Summary
	var err error
	heaptest.Within(t, fmt.Sprintf("decode of a %d MB session", memTestBytes>>20), heapLimit, func() {
		sum, err = Decoder{}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
			events++
			texts += len(e.Text)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every 50th turn is abandoned by the next one's branch, so the active
	// path holds fewer than 8 events per turn, but most of them.
	if events < turns*6 || texts < memTestBytes/2 {
		t.Errorf("decoded %d events with %d bytes of text from %d turns: the file was not really read", events, texts, turns)
	}
	if !sum.HeadKnown || sum.HeadOrdinal < turns/200-1 {
		t.Errorf("head %s known=%v ordinal %d after %d turns", sum.HeadWindow, sum.HeadKnown, sum.HeadOrdinal, turns)
	}
}
