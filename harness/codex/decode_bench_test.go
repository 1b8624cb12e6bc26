package codex

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

// Sizes of generated rollouts. memTestBytes is the issue's "200 MB
// transcript"; heapLimit its "under 64 MB of heap".
const (
	benchBytes   = 32 << 20
	memTestBytes = 200 << 20
	heapLimit    = 64 << 20
)

// genRollout writes a realistic paginated rollout of at least size bytes:
// turns of a user prompt, reasoning, an assistant preamble, two parallel
// exec_command calls and their outputs of a few KiB, item_completed and
// token records, a final answer, and a compaction every 200 turns. It
// returns the number of turns written.
func genRollout(t testing.TB, path string, size int64) int {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	ord := 0
	put := func(ts, typ, payload string, args ...any) {
		n, _ := fmt.Fprintf(w, `{"timestamp":"%s","ordinal":%d,"type":"%s","payload":`+payload+"}\n", append([]any{ts, ord, typ}, args...)...)
		ord++
		written += int64(n)
	}
	put("2026-12-02T10:00:00.000Z", "session_meta", `{"session_id":"gen-thread","id":"gen-thread","timestamp":"2026-12-02T10:00:00.000Z","cwd":"/w/gen","history_mode":"paginated","base_instructions":{"text":"%s"}}`, strings.Repeat("You are a coding agent. ", 200))
	output := strings.Repeat(`line of command output with \"quotes\" and a tab\t `, 40)
	reasoning := strings.Repeat("private reasoning ", 30)
	turns := 0
	for written < size {
		turns++
		ts := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(turns) * time.Second).Format(time.RFC3339Nano)
		put(ts, "event_msg", `{"type":"task_started","turn_id":"turn%d"}`, turns)
		put(ts, "response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":"turn %d: please look at file%d.go and fix the bug"}]}`, turns, turns)
		put(ts, "response_item", `{"type":"reasoning","id":"rs_%d","summary":[{"type":"summary_text","text":"%s"}],"content":null,"encrypted_content":null}`, turns, reasoning)
		put(ts, "response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading file%d.go.","annotations":[]}]}`, turns)
		put(ts, "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat file%d.go\"}","call_id":"call_%d_a"}`, turns, turns)
		put(ts, "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"call_%d_b"}`, turns)
		put(ts, "token_usage_record", `{"thread_id":"gen-thread","response_id":"resp_%d","usage":{"input_tokens":1200,"output_tokens":20,"total_tokens":1220}}`, turns)
		put(ts, "event_msg", `{"type":"item_completed","item":{"type":"CommandExecution","id":"call_%d_a","aggregated_output":"%s","exit_code":0}}`, turns, output)
		put(ts, "response_item", `{"type":"function_call_output","call_id":"call_%d_a","output":"%s"}`, turns, output)
		put(ts, "response_item", `{"type":"function_call_output","call_id":"call_%d_b","output":[{"type":"input_text","text":"%s"}]}`, turns, output)
		put(ts, "response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed the bug in file%d.go.","annotations":[]}]}`, turns)
		put(ts, "event_msg", `{"type":"task_complete","turn_id":"turn%d","last_agent_message":"Fixed."}`, turns)
		if turns%200 == 0 {
			put(ts, "compacted", `{"message":"Another language model started to solve this problem and produced a summary:\nsummary of %d turns","window_number":%d}`, turns, turns/200)
			put(ts, "event_msg", `{"type":"item_completed","item":{"type":"ContextCompaction","id":"cc%d"}}`, turns)
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

// BenchmarkCodexDecode measures decode throughput (MB/s of rollout) over a
// generated 32 MiB rollout, both passes included.
func BenchmarkCodexDecode(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rollout-bench.jsonl")
	genRollout(b, path, benchBytes)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	d := Decoder{Roots: []string{}}
	for b.Loop() {
		n := 0
		if _, err := d.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(history.Event) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// TestDecodeMemoryBounded decodes a generated 200 MB rollout and samples the
// heap while it runs: the decoder keeps only pairing and window metadata, so
// the peak stays under 64 MB.
func TestDecodeMemoryBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout-big.jsonl")
	turns := genRollout(t, path, memTestBytes)
	var events, texts, paired int
	var sum history.Summary
	var err error
	heaptest.Within(t, fmt.Sprintf("decode of a %d MB rollout", memTestBytes>>20), heapLimit, func() {
		sum, err = Decoder{Roots: []string{}}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
			events++
			texts += len(e.Text)
			if e.PairSeq != 0 {
				paired++
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	// 7 addresses per turn (prompt, preamble, 2 calls, 2 outputs, answer)
	// plus one per compaction; every call is answered.
	if want := turns*7 + turns/200; events != want || paired != 4*turns || texts < memTestBytes/4 {
		t.Errorf("decoded %d events (%d paired, %d bytes of text) from %d turns, want %d events", events, paired, texts, turns, want)
	}
	if !sum.HeadKnown || sum.HeadOrdinal != turns/200 {
		t.Errorf("head %s known=%v ordinal %d, want %d", sum.HeadWindow, sum.HeadKnown, sum.HeadOrdinal, turns/200)
	}
}
