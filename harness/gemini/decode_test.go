package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
)

const meta = `{"sessionId":"s-1","projectHash":"h","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}`

// chat joins lines into a chat file's bytes, each line terminated.
func chat(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// decodeString writes content as a chat file and decodes it, returning the
// rendered events (seq kind/role text tool pair) and the summary.
func decodeString(t *testing.T, name, content string) ([]string, history.Summary, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	var last int64
	sum, err := Decoder{}.Decode(history.Session{Harness: Name, Path: path}, history.DecodeOptions{}, func(e history.Event) error {
		if e.Seq <= last {
			t.Errorf("seq %d after %d", e.Seq, last)
		}
		last = e.Seq
		got = append(got, short(e))
		return nil
	})
	return got, sum, err
}

// short renders an event for the table tests: seq, window ordinal, kind,
// role, text, and for tool traffic the call id and its pair.
func short(e history.Event) string {
	s := e.Window[strings.LastIndexByte(e.Window, ':')+1:] + " " + string(e.Kind) + "/" + string(e.Role) + " " + e.Text
	if e.ToolID != "" {
		s += " #" + e.ToolID + "=" + itoa(e.PairSeq)
	}
	if e.IsError {
		s += " error"
	}
	return itoa(e.Seq) + " " + s
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}

func user(id, text string) string {
	return `{"id":"` + id + `","timestamp":"2026-12-01T10:00:01.000Z","type":"user","content":[{"text":"` + text + `"}]}`
}

func gem(id, text string, calls ...string) string {
	tc := ""
	if len(calls) > 0 {
		tc = `,"toolCalls":[` + strings.Join(calls, ",") + `]`
	}
	return `{"id":"` + id + `","timestamp":"2026-12-01T10:00:02.000Z","type":"gemini","content":"` + text + `","thoughts":[{"subject":"Secret plan","description":"private reasoning here"}]` + tc + `}`
}

func call(id, result, status string) string {
	r := ""
	if result != "" {
		r = `,"result":[{"functionResponse":{"id":"` + id + `","name":"read_file","response":{"output":"` + result + `"}}}]`
	}
	return `{"id":"` + id + `","name":"read_file","args":{"file_path":"a.txt"}` + r + `,"status":"` + status + `"}`
}

func TestDecode(t *testing.T) {
	sessionContext := `{"$set":{"messages":[{"id":"ctx","timestamp":"2026-12-01T10:00:00.000Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}],"lastUpdated":"2026-12-01T10:00:00.000Z"}}`
	tests := []struct {
		name    string
		content string
		want    []string
		windows int
	}{
		{"turn with a tool call; thoughts and session context hidden; a message rewritten as it grows keeps its address",
			chat(meta, sessionContext, user("u1", "read a.txt"), `{"$set":{"lastUpdated":"2026-12-01T10:00:01.000Z"}}`,
				gem("g1", "Reading."), gem("g1", "Reading.", call("c1", "hello", "success")),
				`{"id":"r1","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"hello"}}}]}`,
				gem("g2", "It says hello.")),
			[]string{"1 0 message/user read a.txt", "2 0 message/assistant Reading.", "3 0 tool_use/tool  #c1=4", "4 0 tool_result/tool hello #c1=3", "5 0 message/assistant It says hello."}, 1},
		{"rewind: the messages cut are not shown, later ones take new addresses",
			chat(meta, user("u1", "first"), gem("g1", "one", call("c1", "x", "success")), user("u2", "second"), gem("g2", "two"),
				`{"$rewindTo":"u2"}`, user("u3", "third"), gem("g3", "three")),
			[]string{"1 0 message/user first", "2 0 message/assistant one", "3 0 tool_use/tool  #c1=4", "4 0 tool_result/tool x #c1=3", "7 0 message/user third", "8 0 message/assistant three"}, 1},
		{"rewind to an id the history does not hold abandons all of it",
			chat(meta, user("u1", "first"), gem("g1", "one"), `{"$rewindTo":"nope"}`, user("u2", "again")),
			[]string{"3 0 message/user again"}, 1},
		{"a message recorded again after a rewind is shown again at its address",
			chat(meta, user("u1", "first"), gem("g1", "one"), `{"$rewindTo":"g1"}`, gem("g1", "one, again")),
			[]string{"1 0 message/user first", "2 0 message/assistant one, again"}, 1},
		{"a compression opens the next window with its snapshot; the kept history under new ids is not shown twice",
			chat(meta, sessionContext, user("u1", "remember milk"), gem("g1", "Noted."),
				`{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>x</session_context>"}]},{"id":"snap","type":"user","content":[{"text":"<state_snapshot>milk</state_snapshot>"}]},{"id":"ok","type":"gemini","content":[{"text":"Got it. Thanks for the additional context!"}]},{"id":"u1copy","type":"user","content":[{"text":"remember milk"}]}]}}`,
				user("u2", "what?"), gem("g2", "milk")),
			[]string{"1 0 message/user remember milk", "2 0 message/assistant Noted.", "3 1 notice/system <state_snapshot>milk</state_snapshot>", "4 1 message/user what?", "5 1 message/assistant milk"}, 2},
		{"a resume replaces the history with what it holds: nothing is hidden, no window opens",
			chat(meta, sessionContext, user("u1", "hi"), gem("g1", "hello"), meta, sessionContext,
				`{"$set":{"messages":[{"id":"ctx","type":"user","content":[{"text":"<session_context>x</session_context>"}]},{"id":"u1","type":"user","content":[{"text":"hi"}]},{"id":"g1","type":"gemini","content":[{"text":"**Plan** secret","thought":true},{"text":"hello"}]},{"id":"g1_response","type":"user","content":[{"functionResponse":{"id":"zz","name":"x","response":{}}}]}]}}`,
				user("u2", "more")),
			[]string{"1 0 message/user hi", "2 0 message/assistant hello", "3 0 message/user more"}, 1},
		{"a pending call has no pair; an error result is marked; the result may come from the function response alone",
			chat(meta, gem("g1", "", call("c1", "", "executing")), gem("g2", "", `{"id":"c2","name":"read_file","args":{},"result":[{"functionResponse":{"id":"c2","name":"read_file","response":{"error":"no such file"}}}],"status":"error"}`),
				gem("g3", "", call("c3", "", "success")), `{"id":"r3","type":"user","content":[{"functionResponse":{"id":"c3","name":"read_file","response":{"output":"late"}}}]}`),
			[]string{"1 0 tool_use/tool  #c1=0", "2 0 tool_use/tool  #c2=3", "3 0 tool_result/tool no such file #c2=2 error", "4 0 tool_use/tool  #c3=5", "5 0 tool_result/tool late #c3=4"}, 1},
		{"info, warning and error messages are notices; unknown records and message types are ignored",
			chat(meta, `{"$future":{"x":1}}`, `{"id":"m1","type":"mystery","content":"?"}`, `{"id":"i1","type":"info","content":"Request cancelled."}`,
				`{"id":"e1","type":"error","content":"quota exceeded"}`, `{"unknown":true}`),
			[]string{"1 0 notice/system Request cancelled.", "2 0 notice/system quota exceeded"}, 1},
		{"a torn last line is a write in progress",
			chat(meta, user("u1", "hi")) + `{"id":"g1","type":"gem`,
			[]string{"1 0 message/user hi"}, 1},
		{"a last line without its newline that parses is history",
			chat(meta, user("u1", "hi")) + gem("g1", "hello"),
			[]string{"1 0 message/user hi", "2 0 message/assistant hello"}, 1},
		{"a slash command is the user's words",
			chat(meta, user("u1", "/compress")),
			[]string{"1 0 message/user /compress"}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sum, err := decodeString(t, "session-2026-12-01T10-00-s-1.jsonl", tc.content)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, e := range got {
				if strings.Contains(e, "Secret plan") || strings.Contains(e, "private reasoning") || strings.Contains(e, "secret") || strings.Contains(e, "session_context") {
					t.Errorf("shows hidden text: %s", e)
				}
			}
			if len(sum.Windows) != tc.windows || !sum.HeadKnown || sum.HeadOrdinal != tc.windows-1 || sum.HeadWindow != "gemini:s-1:"+itoa(int64(tc.windows-1)) {
				t.Errorf("summary %+v, want %d windows", sum, tc.windows)
			}
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		content string
		line    int
		retry   bool
		reason  string
	}{
		{"empty file", "", 0, true, "empty"},
		{"torn metadata", `{"sessionId":"s-1","projec`, 1, true, "incomplete"},
		{"first record is not metadata", chat(user("u1", "hi")), 1, false, "no sessionId and projectHash"},
		{"damaged line in the middle", chat(meta, user("u1", "hi"), `{"id":"g1","type":`, gem("g2", "x")), 3, false, "not a JSON object"},
		{"a line that is not an object", chat(meta, `[1,2]`, user("u1", "hi")), 2, false, "not a JSON object"},
		{"content of the wrong type", chat(meta, `{"id":"u1","type":"user","content":42}`), 2, false, "neither text nor a list of parts"},
		{"a tool call without an id", chat(meta, `{"id":"g1","type":"gemini","content":"x","toolCalls":[{"name":"read_file"}]}`), 2, false, "no id"},
		{"a session id that cannot name a window", chat(`{"sessionId":"a:b","projectHash":"h"}`), 1, false, "cannot name a window"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, sum, err := decodeString(t, "session-x.jsonl", tc.content)
			var re *history.Refusal
			if !errors.As(err, &re) {
				t.Fatalf("err %v, want a refusal", err)
			}
			if re.Harness != Name || !strings.HasSuffix(re.Path, "session-x.jsonl") || re.Line != tc.line || re.Retry != tc.retry || !strings.Contains(re.Reason, tc.reason) {
				t.Errorf("refusal %+v, want line %d retry %v reason ~%q", re, tc.line, tc.retry, tc.reason)
			}
			if len(sum.Notes) != 1 || sum.Notes[0].Kind != history.NoteRefusal {
				t.Errorf("summary notes %+v, want the refusal", sum.Notes)
			}
		})
	}
}

// TestDecodeStopped: an emit error ends the decode and comes back unchanged.
func TestDecodeStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-s.jsonl")
	if err := os.WriteFile(path, []byte(chat(meta, user("u1", "a"), user("u2", "b"))), 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err := Decoder{}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(history.Event) error {
		n++
		return contract.ErrStopped
	})
	if err != contract.ErrStopped || n != 1 {
		t.Fatalf("err %v after %d events, want ErrStopped after 1", err, n)
	}
}

// TestDecodeOpensRegularFilesOnly: a link or a folder is refused at the
// open, not followed.
func TestDecodeOpensRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.jsonl")
	if err := os.WriteFile(real, []byte(chat(meta, user("u1", "a"))), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "session-link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, p := range []string{link, dir} {
		if _, err := (Decoder{}).Decode(history.Session{Path: p}, history.DecodeOptions{}, func(history.Event) error { return nil }); err == nil {
			t.Errorf("%s decoded; want it refused", p)
		}
	}
}

// TestDecodeLegacyJSON: a whole-file session-*.json of older versions.
func TestDecodeLegacyJSON(t *testing.T) {
	content := "{\n  \"sessionId\": \"old-1\",\n  \"projectHash\": \"h\",\n  \"startTime\": \"2025-06-01T10:00:00.000Z\",\n  \"messages\": [\n" +
		"    {\"id\": \"u1\", \"timestamp\": \"2025-06-01T10:00:01.000Z\", \"type\": \"user\", \"content\": \"hello old\"},\n" +
		"    {\"id\": \"g1\", \"timestamp\": \"2025-06-01T10:00:02.000Z\", \"type\": \"gemini\", \"content\": \"hi\", \"toolCalls\": [{\"id\": \"c1\", \"name\": \"ls\", \"args\": {}, \"result\": \"a.txt\", \"status\": \"success\"}]}\n  ]\n}\n"
	path := filepath.Join(t.TempDir(), "session-2025-06-01T10-00-old-1.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	var lines []int
	sum, err := Decoder{}.Decode(history.Session{Path: path}, history.DecodeOptions{}, func(e history.Event) error {
		got = append(got, short(e))
		lines = append(lines, e.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 0 message/user hello old", "2 0 message/assistant hi", "3 0 tool_use/tool  #c1=4", "4 0 tool_result/tool a.txt #c1=3"}
	if strings.Join(got, "|") != strings.Join(want, "|") || lines[0] != 6 || lines[1] != 7 || sum.HeadWindow != "gemini:old-1:0" {
		t.Fatalf("events %q lines %v summary %+v", got, lines, sum)
	}
}
