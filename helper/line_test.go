package helper_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/service"
)

// answerWait bounds how long a test waits for an answer that should come at
// once; it only turns a deadlock into a failure, so it is generous.
const answerWait = 60 * time.Second

// TestHelperAnswersFirstLineWithoutEOF: a client that writes one request
// line and waits for the answer before closing stdin must get it (the
// helper used to read to EOF first, so such a client deadlocked).
func TestHelperAnswersFirstLineWithoutEOF(t *testing.T) {
	eachHelper(t, func(t *testing.T, e env) {
		cmd := exec.Command(e.argv[0], e.argv[1:]...)
		cmd.Env = e.vars
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stdin.Close()
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		if _, err := io.WriteString(stdin, `{"v":1,"op":"version"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		line := make(chan string, 1)
		go func() {
			l, _ := bufio.NewReader(stdout).ReadString('\n')
			line <- l
		}()
		select {
		case l := <-line:
			var r struct {
				OK bool `json:"ok"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK {
				t.Fatalf("answer %q (%v), want ok", l, err)
			}
		case <-time.After(answerWait):
			t.Fatal("no answer while stdin stays open: the helper waits for EOF")
		}
	})
}

// TestHandleReadsOneLine checks, in process, what the request is: the first
// JSON value, ended by its line's newline or by EOF, with nothing else on
// that line; later lines are never read.
func TestHandleReadsOneLine(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.WithBuiltins(), host.WithPluginDirs(t.TempDir()))
	t.Cleanup(h.Close)
	svc, err := service.New(h, service.WithHome(filepath.Join(home, ".notesoup")))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		in       string
		wantOK   bool
		wantMsg  string
		openPipe bool // write in, then keep the pipe open
	}{
		{name: "line, pipe left open", in: `{"v":1,"op":"version"}` + "\n", wantOK: true, openPipe: true},
		{name: "pretty-printed over lines, pipe left open", in: "{\n  \"v\": 1,\n  \"op\": \"version\"\n}\n", wantOK: true, openPipe: true},
		{name: "blank lines first", in: "\n\n" + `{"v":1,"op":"version"}` + "\r\n", wantOK: true, openPipe: true},
		{name: "no newline, EOF ends it", in: `{"v":1,"op":"version"}`, wantOK: true},
		{name: "second line never read", in: `{"v":1,"op":"version"}` + "\n" + `not json at all`, wantOK: true, openPipe: true},
		{name: "trailing data on the line", in: `{"v":1,"op":"version"} {}` + "\n", wantMsg: "trailing data", openPipe: true},
		{name: "malformed line answered at once", in: `{"v":1,]` + "\n", wantMsg: "not valid JSON", openPipe: true},
		{name: "empty input", in: ``, wantMsg: "no request"},
		{name: "too large", in: `{"v":1,"op":"version","caller":{"cwd":"` + strings.Repeat("a", helper.MaxRequestBytes) + `"}}`, wantMsg: "larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				_, _ = io.WriteString(pw, tc.in)
				if !tc.openPipe {
					pw.Close()
				}
			}()
			t.Cleanup(func() { pw.Close() })
			done := make(chan helper.Response, 1)
			go func() { done <- helper.Handle(context.Background(), svc, pr) }()
			select {
			case r := <-done:
				if r.OK != tc.wantOK {
					t.Fatalf("ok = %v, want %v: %+v", r.OK, tc.wantOK, r.Error)
				}
				if tc.wantMsg != "" && !strings.Contains(r.Error.Message, tc.wantMsg) {
					t.Fatalf("message %q lacks %q", r.Error.Message, tc.wantMsg)
				}
			case <-time.After(answerWait):
				t.Fatal("no answer: Handle waits for more input than the request's line")
			}
		})
	}
}
