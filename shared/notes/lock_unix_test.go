//go:build unix

package notes

import (
	"bufio"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStalledLockHolderNamed: a live process that holds the scope lock and
// never lets go makes every write path (write, edit, delete, as the MCP
// server and the helper call them through Call) give up after the bounded
// wait with an error naming the holder's pid, instead of hanging. Before
// the fix the error could not say who held the lock.
func TestStalledLockHolderNamed(t *testing.T) {
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = 200 * time.Millisecond
	sp := newSpace(t)
	mustWrite(t, sp, "a.md", "before\n")
	home := sp.store.Home()
	cmd := helperCmd(t, "holdlock", home, sp.Root())
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "locked\n" {
		t.Fatalf("holder said %q", line)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	for _, tc := range []struct{ tool, args string }{
		{ToolWrite, `{"name":"a.md","content":"after\n"}`},
		{ToolEdit, `{"name":"a.md","old_text":"before","new_text":"after"}`},
		{ToolDelete, `{"name":"a.md"}`},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := sp.Call(tc.tool, json.RawMessage(tc.args))
			done <- err
		}()
		select {
		case err := <-done:
			wantCode(t, err, CodeIO, "the project notes are locked by pid "+pid)
			if !strings.Contains(err.Error(), "stop it, then try again") {
				t.Errorf("%s: error %q does not say what to do", tc.tool, err)
			}
		case <-time.After(time.Minute): // a hang, not a speed target
			t.Fatalf("%s still waiting a minute after a %v lock wait", tc.tool, lockWait)
		}
	}
	if got := string(mustFile(t, sp, "a.md")); got != "before\n" {
		t.Errorf("a.md = %q while the lock was held", got)
	}
	// Reads take no lock: they answer while the holder is stuck.
	if r, err := sp.Read(ReadRequest{Name: "a.md"}); err != nil || r.Content != "before\n" {
		t.Errorf("read under a held lock = %+v, %v", r, err)
	}
}
