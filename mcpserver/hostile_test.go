package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/notes"
)

// processWait bounds one `notesoup mcp` run; it only turns a hang into a
// failure, so it is generous.
const processWait = 90 * time.Second

// rpcLine is one line the server wrote, decoded loosely.
type rpcLine struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// pipeThrough starts `notesoup mcp`, writes input to its stdin, closes
// stdin, and returns every line it wrote and its exit error.
func pipeThrough(t *testing.T, home, cwd string, input []byte) ([]rpcLine, error) {
	t.Helper()
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--cwd", cwd, "--harness", "claude", "--session", "s1")
	cmd.Env = testbin.SampleEnv(home)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(processWait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("notesoup mcp did not exit within %v after stdin closed; stderr: %s", processWait, stderr.String())
	}
	var lines []rpcLine
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l rpcLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("server wrote a line that is not JSON: %q", sc.Text())
		}
		lines = append(lines, l)
	}
	if err != nil {
		t.Logf("stderr: %s", stderr.String())
	}
	return lines, err
}

func request(id any, method string, params any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b) + "\n"
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

func initialize() string {
	return request(0, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "pipe", "version": "1"}})
}

func call(id int, tool string, args map[string]any) string {
	return request(id, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// TestEveryRequestAnsweredAtEOF: a client pipes requests and closes stdin
// at once; every request read before the end is answered, 40 runs in a
// row. The SDK's own stdio transport answered none, some or all of them
// (0 of 40 runs answered all; a notes_write landed in 1 of 40).
func TestEveryRequestAnsweredAtEOF(t *testing.T) {
	const runs, calls = 40, 6
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := notes.Open(filepath.Join(home, ".notesoup")).Space(cwd)
	if err != nil {
		t.Fatal(err)
	}
	for run := range runs {
		var in strings.Builder
		in.WriteString(initialize())
		in.WriteString(initialized)
		note := fmt.Sprintf("run%02d.md", run)
		in.WriteString(call(1, "notes_write", map[string]any{"name": note, "content": fmt.Sprintf("# run %d\n", run)}))
		in.WriteString(call(2, "notes_read", map[string]any{"name": note}))
		in.WriteString(call(3, "notes_list", map[string]any{}))
		in.WriteString(call(4, "history_list", map[string]any{"session": "claude:latest", "limit": 2}))
		in.WriteString(call(5, "history_read", map[string]any{"session": "claude:latest", "seq": 1}))
		in.WriteString(call(6, "notes_edit", map[string]any{"name": note, "old_text": "# run", "new_text": "# Run"}))
		lines, err := pipeThrough(t, home, cwd, []byte(in.String()))
		if err != nil {
			t.Fatalf("run %d: notesoup mcp exited with %v", run, err)
		}
		got := map[string]rpcLine{}
		for _, l := range lines {
			got[string(l.ID)] = l
		}
		for id := 0; id <= calls; id++ {
			l, ok := got[fmt.Sprint(id)]
			if !ok {
				t.Fatalf("run %d: request %d unanswered (%d answers)", run, id, len(lines))
			}
			if l.Error != nil {
				t.Fatalf("run %d: request %d: JSON-RPC error %d %s", run, id, l.Error.Code, l.Error.Message)
			}
		}
		// The calls run concurrently, so notes_read may precede the write;
		// the write itself must have landed before the server exited.
		r, err := sp.Read(notes.ReadRequest{Name: note})
		if err != nil || !strings.Contains(r.Content, fmt.Sprintf("un %d\n", run)) {
			t.Fatalf("run %d: the note written before EOF: %v %q", run, err, r.Content)
		}
	}
}

// TestMalformedLinesAnswered: each malformed line gets a JSON-RPC error
// with id null and the server goes on to answer the valid request after it
// (it used to exit 1 on the first and leave the rest unanswered).
func TestMalformedLinesAnswered(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		line string
		code int
	}{
		{"not JSON", "this is not json\n", -32700},
		{"cut JSON", `{"jsonrpc":"2.0","id":7,"method":` + "\n", -32700},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n", -32700},
		{"object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n", -32600},
		{"array as id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n", -32600},
		{"wrong version tag", `{"jsonrpc":"1.0","id":9,"method":"ping"}` + "\n", -32600},
		{"batch", `[{"jsonrpc":"2.0","id":10,"method":"ping"}]` + "\n", -32600},
		{"a bare number", "42\n", -32600},
		{"very deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", -32700},
		{"line over 16 MiB", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"` + strings.Repeat("a", 16<<20) + `"}}` + "\n", -32700},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			input := initialize() + initialized + tc.line + call(1, "notes_write", map[string]any{"name": "after.md", "content": "# after\n"}) + call(2, "notes_read", map[string]any{"name": "after.md"})
			lines, err := pipeThrough(t, home, cwd, []byte(input))
			if err != nil {
				t.Fatalf("notesoup mcp exited with %v; a malformed line must not end it", err)
			}
			var refusals []rpcLine
			answered := map[string]bool{}
			for _, l := range lines {
				if string(l.ID) == "null" {
					refusals = append(refusals, l)
					continue
				}
				answered[string(l.ID)] = l.Error == nil
			}
			if len(refusals) != 1 || refusals[0].Error == nil || refusals[0].Error.Code != tc.code {
				t.Fatalf("want one error %d with id null, got %+v", tc.code, refusals)
			}
			if refusals[0].Error.Message == "" {
				t.Fatalf("error without a message")
			}
			for _, id := range []string{"0", "1", "2"} {
				if !answered[id] {
					t.Fatalf("request %s after the malformed line was not answered: %d lines", id, len(lines))
				}
			}
		})
	}
}
