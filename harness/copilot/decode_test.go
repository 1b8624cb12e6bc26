package copilot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// ev writes one event line the way the CLI writes it.
func ev(id, typ, data string) string {
	return fmt.Sprintf(`{"type":%q,"data":%s,"id":%q,"timestamp":"2026-12-03T10:00:00.000Z","parentId":null}`, typ, data, id)
}

const start = `{"type":"session.start","data":{"sessionId":"s1","version":1,"producer":"copilot-agent","startTime":"2026-12-03T10:00:00.000Z","context":{"cwd":"/w"}},"id":"e0","timestamp":"2026-12-03T10:00:00.000Z","parentId":null}`

func user(id, text string) string { return ev(id, "user.message", fmt.Sprintf(`{"content":%q}`, text)) }

func said(id, text string, calls ...string) string {
	return ev(id, "assistant.message", fmt.Sprintf(`{"messageId":"m","content":%q,"toolRequests":[%s],"reasoningText":"secret plan"}`, text, strings.Join(calls, ",")))
}

func req(callID, name string) string {
	return fmt.Sprintf(`{"toolCallId":%q,"name":%q,"arguments":{"path":"a.txt"},"type":"function"}`, callID, name)
}

func done(id, callID, out string) string {
	return ev(id, "tool.execution_complete", fmt.Sprintf(`{"toolCallId":%q,"success":true,"result":{"content":%q,"detailedContent":"diff"}}`, callID, out))
}

func session(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// project decodes data and renders its events (seq window kind/role text
// tool pair), one a line, then the head.
func project(t *testing.T, data string) (string, error) {
	t.Helper()
	var b strings.Builder
	sum, err := decode(bytes.NewReader([]byte(data)), int64(len(data)), "/r/s1/events.jsonl", func(e history.Event) error {
		fmt.Fprintf(&b, "%d %s %s/%s %q", e.Seq, strings.TrimPrefix(e.Window, "copilot:"), e.Kind, e.Role, e.Text)
		if e.ToolID != "" {
			fmt.Fprintf(&b, " %s#%s pair=%d", e.ToolName, e.ToolID, e.PairSeq)
		}
		if e.ToolInput != "" {
			b.WriteString(" in=" + e.ToolInput)
		}
		if e.IsError {
			b.WriteString(" error")
		}
		fmt.Fprintf(&b, " @%d\n", e.Line)
		return nil
	})
	if err == nil {
		fmt.Fprintf(&b, "head=%s windows=%d", strings.TrimPrefix(sum.HeadWindow, "copilot:"), len(sum.Windows))
	}
	return b.String(), err
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"a call and its result", session(start, user("u1", "read a.txt"), said("a1", "Reading.", req("c1", "view")),
			ev("t1", "tool.execution_start", `{"toolCallId":"c1","toolName":"view","arguments":{"path":"a.txt"}}`), done("t2", "c1", "hello")),
			`1 s1:0 message/user "read a.txt" @2
2 s1:0 message/assistant "Reading." @3
3 s1:0 tool_use/tool "" view#c1 pair=4 in={"path":"a.txt"} @3
4 s1:0 tool_result/tool "hello" view#c1 pair=3 @5
head=s1:0 windows=1`},
		{"a failed call shows its error", session(start, said("a1", "", req("c1", "view")),
			ev("t2", "tool.execution_complete", `{"toolCallId":"c1","success":false,"error":{"message":"Path does not exist","code":"failure"}}`)),
			`1 s1:0 tool_use/tool "" view#c1 pair=2 in={"path":"a.txt"} @2
2 s1:0 tool_result/tool "Path does not exist" view#c1 pair=1 error @3
head=s1:0 windows=1`},
		{"a pending call has no pair", session(start, said("a1", "Working.", req("c1", "bash"))),
			`1 s1:0 message/assistant "Working." @2
2 s1:0 tool_use/tool "" bash#c1 pair=0 in={"path":"a.txt"} @2
head=s1:0 windows=1`},
		{"a call only started (user-requested) gets its address at the start", session(start,
			ev("t1", "tool.execution_start", `{"toolCallId":"c9","toolName":"bash","arguments":{"command":"ls"}}`), done("t2", "c9", "a.txt")),
			`1 s1:0 tool_use/tool "" bash#c9 pair=2 in={"command":"ls"} @2
2 s1:0 tool_result/tool "a.txt" bash#c9 pair=1 @3
head=s1:0 windows=1`},
		{"a reused call id is a new call", session(start, said("a1", "", req("c1", "view")), done("t1", "c1", "one"),
			said("a2", "", req("c1", "view")), done("t2", "c1", "two")),
			`1 s1:0 tool_use/tool "" view#c1 pair=2 in={"path":"a.txt"} @2
2 s1:0 tool_result/tool "one" view#c1 pair=1 @3
3 s1:0 tool_use/tool "" view#c1 pair=4 in={"path":"a.txt"} @4
4 s1:0 tool_result/tool "two" view#c1 pair=3 @5
head=s1:0 windows=1`},
		{"a compaction opens a window with its summary", session(start, user("u1", "hi"),
			ev("k0", "session.compaction_start", `{"trigger":"manual"}`),
			ev("k1", "session.compaction_complete", `{"success":true,"summaryContent":"<overview>hi</overview>","trigger":"manual"}`),
			user("u2", "again")),
			`1 s1:0 message/user "hi" @2
2 s1:1 notice/system "<overview>hi</overview>" @4
3 s1:1 message/user "again" @5
head=s1:1 windows=2`},
		{"a failed compaction changes nothing", session(start, user("u1", "hi"),
			ev("k1", "session.compaction_complete", `{"success":false,"error":"Compaction Cancelled","summaryContent":"half"}`), user("u2", "again")),
			`1 s1:0 message/user "hi" @2
2 s1:0 message/user "again" @4
head=s1:0 windows=1`},
		{"a cleared context opens a window", session(start, user("u1", "hi"), ev("x", "session.context_cleared", `{"messagesCleared":2}`), user("u2", "fresh")),
			`1 s1:0 message/user "hi" @2
2 s1:1 message/user "fresh" @4
head=s1:1 windows=2`},
		{"a rewind without eventIds withdraws its event and every later one", session(start, user("u1", "keep"), user("u2", "drop"),
			said("a2", "dropped too", req("c1", "view")), done("t1", "c1", "x"),
			ev("r", "session.snapshot_rewind", `{"upToEventId":"u2","eventsRemoved":4}`), user("u3", "after")),
			`1 s1:0 message/user "keep" @2
6 s1:0 message/user "after" @7
head=s1:0 windows=1`},
		{"a rewind with eventIds withdraws those only", session(start, user("u1", "drop"), ev("bg", "session.error", `{"message":"kept"}`), said("a1", "drop too"),
			ev("r", "session.snapshot_rewind", `{"upToEventId":"u1","eventsRemoved":2,"eventIds":["u1","a1"]}`)),
			`2 s1:0 notice/system "kept" @3
head=s1:0 windows=1`},
		{"reasoning, system prompt, sub-agents and unknown types are not shown", session(start,
			ev("sys", "system.message", `{"role":"system","content":"You are the GitHub Copilot CLI"}`),
			ev("r1", "assistant.reasoning", `{"reasoningId":"x","content":"thinking hard"}`),
			`{"type":"assistant.message","data":{"content":"sub says","toolRequests":[]},"id":"s2","timestamp":"2026-12-03T10:00:00.000Z","agentId":"agent-1"}`,
			ev("s3", "assistant.message", `{"content":"old sub","parentToolCallId":"task1"}`),
			ev("z", "session.brand_new_thing", `{"anything":[1,2,{"deep":true}]}`),
			ev("w", "session.warning", `{"message":"quota low"}`),
			said("a1", "visible")),
			`1 s1:0 notice/system "quota low" @7
2 s1:0 message/assistant "visible" @8
head=s1:0 windows=1`},
		{"a torn last line is a write in progress", session(start, user("u1", "hi")) + `{"type":"user.message","data":{"content":"ha`,
			`1 s1:0 message/user "hi" @2
head=s1:0 windows=1`},
		{"no session.start: the folder names the windows", session(user("u1", "hi")),
			`1 s1:0 message/user "hi" @1
head=s1:0 windows=1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := project(t, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if strings.Contains(got, "secret plan") || strings.Contains(got, "thinking hard") {
				t.Errorf("reasoning shown:\n%s", got)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name, data string
		line       int
		retry      bool
		reason     string
	}{
		{"a damaged line in the middle", session(start, `{"type":"user.message","data":{"content":"a"`, user("u2", "b")), 2, false, "not a JSON event"},
		{"a line without a type", session(start, `{"data":{}}`), 2, false, "no type"},
		{"a type that is not a string", session(start, `{"type":7,"data":{}}`), 2, false, "not a JSON event"},
		{"a known event with data of the wrong shape", session(start, ev("u1", "user.message", `{"content":["a"]}`)), 2, false, "user.message event u1: data"},
		{"tool requests of the wrong shape", session(start, ev("a1", "assistant.message", `{"content":"x","toolRequests":{"a":1}}`)), 2, false, "assistant.message event a1"},
		{"an empty file", "", 0, true, "no complete event yet"},
		{"only a torn line", `{"type":"session.st`, 0, true, "no complete event yet"},
		{"a session id that cannot name a window", session(strings.Replace(start, `"s1"`, `"a:b"`, 1)), 0, false, "cannot name a window"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := project(t, tc.data)
			var re *history.Refusal
			if !errors.As(err, &re) {
				t.Fatalf("err %v, want a refusal", err)
			}
			if re.Line != tc.line || re.Retry != tc.retry || !strings.Contains(re.Reason, tc.reason) || re.Harness != Name || re.Path != "/r/s1/events.jsonl" {
				t.Errorf("refusal %+v, want line %d retry %v reason containing %q", re, tc.line, tc.retry, tc.reason)
			}
		})
	}
}

// TestDecodeOpensOnlyRegularFiles: a link in place of events.jsonl is
// refused, not followed.
func TestDecodeOpensOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, []byte(session(start, user("u1", "hi"))), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "s1", eventsFile)
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	_, err := Decoder{}.Decode(history.Session{Path: link}, history.DecodeOptions{}, func(history.Event) error { return nil })
	if err == nil {
		t.Fatal("decoded through a symbolic link")
	}
}

// TestDecodeStops: an emit error ends the decode and comes back unchanged.
func TestDecodeStops(t *testing.T) {
	data := session(start, user("u1", "a"), user("u2", "b"))
	n := 0
	_, err := decode(bytes.NewReader([]byte(data)), int64(len(data)), "/r/s1/events.jsonl", func(history.Event) error {
		n++
		return history.ErrStopped
	})
	if !errors.Is(err, history.ErrStopped) || n != 1 {
		t.Fatalf("err %v after %d events, want ErrStopped after 1", err, n)
	}
}
