package modelserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	name string
	data string
}

// parseSSE parses a text/event-stream body strictly: every event is
// "event: NAME\n"? "data: …\n" then a blank line; anything else fails the
// test, so malformed framing cannot slip through.
func parseSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	var haveData bool
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if !haveData {
				t.Fatalf("SSE: blank line without a data line before it")
			}
			out = append(out, cur)
			cur, haveData = sseEvent{}, false
		case strings.HasPrefix(line, "event: "):
			if haveData || cur.name != "" {
				t.Fatalf("SSE: event line %q in the middle of an event", line)
			}
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if haveData {
				t.Fatalf("SSE: second data line %q in one event", line)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
			haveData = true
		default:
			t.Fatalf("SSE: unexpected line %q", line)
		}
	}
	if haveData || cur.name != "" {
		t.Fatalf("SSE: stream ends inside an event (no trailing blank line)")
	}
	return out
}

// post sends body as JSON to url and returns status, content type and body.
func post(t *testing.T, url string, body any, header map[string]string) (int, string, []byte) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// start runs a server for one test.
func start(t *testing.T, s *Script, logPath string) *Server {
	t.Helper()
	srv, err := Start(Config{Script: s, LogPath: logPath})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func obj(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("event data is not a JSON object: %v: %s", err, data)
	}
	return m
}

// num reads a JSON number at path (a.b.c) from m.
func num(t *testing.T, m map[string]any, path string) int {
	t.Helper()
	v := dig(t, m, path)
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%s = %#v, want a number", path, v)
	}
	return int(f)
}

func str(t *testing.T, m map[string]any, path string) string {
	t.Helper()
	v := dig(t, m, path)
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s = %#v, want a string", path, v)
	}
	return s
}

func dig(t *testing.T, m map[string]any, path string) any {
	t.Helper()
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: %q is not inside an object", path, k)
		}
		cur, ok = mm[k]
		if !ok {
			t.Fatalf("%s: key %q missing", path, k)
		}
	}
	return cur
}

// call is a reassembled tool call, protocol-neutral.
type call struct {
	ID, Name, Namespace, Input string
}

// got is a reassembled reply, protocol-neutral, compared against the
// scripted Reply.
type got struct {
	Thinking, Text string
	Calls          []call
	Stop           string
	InputTokens    int
	OutputTokens   int
}

// want builds the expected reassembly of r (inputs compacted as the server
// sends them).
func want(t *testing.T, r Reply) (string, string, []call) {
	t.Helper()
	var calls []call
	for _, tc := range r.ToolCalls {
		in := "{}"
		if len(tc.Input) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, tc.Input); err != nil {
				t.Fatal(err)
			}
			in = buf.String()
		}
		calls = append(calls, call{Name: tc.Name, Namespace: tc.Namespace, Input: in})
	}
	return r.Thinking, r.Text, calls
}
