package claude

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/heaptest"
	"github.com/notesoup/notesoup/shared/history"
)

// genTranscript writes a synthetic but realistically shaped Claude Code
// transcript of at least size bytes: turns of a prompt, a thinking row, a
// text row, a tool_use row, its result (a few KB of output), metadata
// records, and a compact boundary with a preserved segment every 200 turns.
// It returns the file's path, its session id and its exact size.
func genTranscript(tb testing.TB, dir string, size int64) (string, string, int64) {
	tb.Helper()
	sid := "33333333-3333-4333-8333-333333333333"
	path := filepath.Join(dir, sid+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	n := 0
	uuid := func() string {
		n++
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n)
	}
	ts := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	emit := func(v map[string]any) {
		ts = ts.Add(time.Second)
		if _, ok := v["uuid"]; ok {
			v["timestamp"] = ts.Format(time.RFC3339Nano)
			v["sessionId"] = sid
			v["isSidechain"] = false
			v["cwd"] = "/home/user/project"
			v["version"] = "2.1.332"
			v["gitBranch"] = "main"
			v["userType"] = "external"
		}
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
		written += int64(len(b) + 1)
	}
	usage := map[string]any{"input_tokens": 1450, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 120000, "output_tokens": 25,
		"service_tier": "standard", "cache_creation": map[string]any{"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}}
	asst := func(parent, msgID string, block map[string]any) string {
		u := uuid()
		emit(map[string]any{"type": "assistant", "uuid": u, "parentUuid": parent, "requestId": "req_" + msgID,
			"message": map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
				"content": []any{block}, "stop_reason": "tool_use", "usage": usage}})
		return u
	}
	output := strings.Repeat("drwxr-xr-x  2 user user 4096 Mar  1 10:00 some-directory-name\n", 40)
	var parent any = nil
	last := ""
	for turn := 0; written < size; turn++ {
		if turn > 0 && turn%200 == 0 {
			b := uuid()
			emit(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": b, "parentUuid": nil, "logicalParentUuid": last,
				"content": "Conversation compacted", "level": "info",
				"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000,
					"preservedSegment": map[string]any{"headUuid": last, "anchorUuid": "x", "tailUuid": last}}})
			s := uuid()
			emit(map[string]any{"type": "user", "uuid": s, "parentUuid": b, "isCompactSummary": true,
				"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation. Summary: work so far."}})
			parent = s
		}
		u := uuid()
		emit(map[string]any{"type": "user", "uuid": u, "parentUuid": parent, "promptId": "p",
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("turn %d: please look at the directory listing and fix the failing test in pkg/thing", turn)}})
		msg := fmt.Sprintf("msg_%d", turn)
		a1 := asst(u, msg, map[string]any{"type": "thinking", "thinking": "Let me think about which file to open first.", "signature": strings.Repeat("s", 200)})
		a2 := asst(a1, msg, map[string]any{"type": "text", "text": fmt.Sprintf("Listing the directory for turn %d.", turn)})
		tid := fmt.Sprintf("toolu_%08d", turn)
		a3 := asst(a2, msg, map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": "ls -la", "description": "List"}})
		r := uuid()
		emit(map[string]any{"type": "user", "uuid": r, "parentUuid": a3, "sourceToolAssistantUUID": a3,
			"message":       map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tid, "content": output, "is_error": false}}},
			"toolUseResult": map[string]any{"stdout": output, "stderr": "", "interrupted": false}})
		emit(map[string]any{"type": "last-prompt", "lastPrompt": "please look", "leafUuid": r, "sessionId": sid})
		last = r
		parent = r
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path, sid, written
}

// TestDecode200MBUnder64MBHeap generates a 200 MB transcript and checks the
// decode (both passes, every event emitted) and a history_list over it stay
// under 64 MB of heap.
func TestDecode200MBUnder64MBHeap(t *testing.T) {
	path, sid, size := genTranscript(t, t.TempDir(), 200<<20)
	sess := history.Session{Harness: Name, ID: sid, Path: path}
	var events int
	var sum history.Summary
	var err error
	const bound = 64 << 20
	heaptest.Within(t, fmt.Sprintf("decode of %d MB", size>>20), bound, func() {
		sum, err = Decoder{}.Decode(sess, history.DecodeOptions{}, func(history.Event) error { events++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.HeadKnown || events == 0 {
		t.Fatalf("decode: %d events, summary %+v", events, sum)
	}
	proj := history.Project(Decoder{}, sess, history.DecodeOptions{})
	var page history.Page
	heaptest.Within(t, "history_list over it", bound, func() {
		page, err = history.List(proj.Events, history.ListQuery{Query: "TURN 1234:", Limit: 50}, history.RenderOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entries) != 1 {
		t.Errorf("query found %d entries, want 1: %s", len(page.Entries), page.Text)
	}
}

// BenchmarkDecode measures decode throughput (MB/s) over a 64 MB
// transcript, every event emitted.
func BenchmarkDecode(b *testing.B) {
	path, sid, size := genTranscript(b, b.TempDir(), 64<<20)
	sess := history.Session{Harness: Name, ID: sid, Path: path}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Decoder{}).Decode(sess, history.DecodeOptions{}, func(history.Event) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList measures a literal query over a corpus of generated
// sessions (decode + search + render), in MB/s of transcript.
func BenchmarkList(b *testing.B) {
	dir := b.TempDir()
	var sessions []history.Session
	var total int64
	for i := 0; i < 16; i++ {
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		path, sid, size := genTranscript(b, sub, 4<<20)
		sessions = append(sessions, history.Session{Harness: Name, ID: sid, Path: path})
		total += size
	}
	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range sessions {
			p := history.Project(Decoder{}, s, history.DecodeOptions{})
			if _, err := history.List(p.Events, history.ListQuery{Query: "FAILING TEST IN PKG/THING"}, history.RenderOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
