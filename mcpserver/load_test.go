package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/notes"
)

// Load: loadSessions `notesoup mcp` processes over one notes home, each
// driven by the SDK client over its stdio pipe with loadPerSession
// concurrent callers, up to loadCalls calls in all. No new call starts once
// loadBudget is spent (a loaded machine does fewer) but at least
// minCalls must complete.
const (
	loadSessions   = 4
	loadPerSession = 16
	loadCalls      = 400
	loadBudget     = 20 * time.Second
	minCalls       = loadSessions * loadPerSession * 2
)

func TestMCPUnderLoad(t *testing.T) {
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sessions := make([]*mcp.ClientSession, loadSessions)
	for i := range sessions {
		cmd := exec.Command(bin, "mcp", "--cwd", cwd, "--harness", "claude", "--session", fmt.Sprintf("load-%d", i))
		cmd.Env = testbin.SampleEnv(home)
		client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil)
		s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[i] = s
	}
	fixed := "# fixed\nwritten before the load\nline three\n"
	if res, err := sessions[0].CallTool(ctx, &mcp.CallToolParams{Name: "notes_write", Arguments: map[string]any{"name": "fixed.md", "content": fixed}}); err != nil || res.IsError {
		t.Fatalf("seed write: %v %s", err, text(res))
	}
	content := func(i int) string { return fmt.Sprintf("# note %d\nwritten under load by call %d\n", i, i) }
	const claudeTools = "claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001"

	var next, done atomic.Int64
	var mu sync.Mutex
	var wrote []int
	deadline := time.Now().Add(loadBudget)
	var wg sync.WaitGroup
	start := time.Now()
	for si, s := range sessions {
		for range loadPerSession {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					i := int(next.Add(1)) - 1
					if i >= loadCalls {
						return
					}
					var p *mcp.CallToolParams
					var want string
					switch {
					case i%4 == 0:
						p, want = &mcp.CallToolParams{Name: "notes_read", Arguments: map[string]any{"name": "fixed.md"}}, "line three"
					case i%4 == 1:
						p, want = &mcp.CallToolParams{Name: "history_list", Arguments: map[string]any{"session": claudeTools, "query": "greeting"}}, "greeting"
					case i%20 == 2:
						p, want = &mcp.CallToolParams{Name: "history_read", Arguments: map[string]any{"session": claudeTools, "seq": 1}}, "#1"
					default:
						p, want = &mcp.CallToolParams{Name: "notes_write", Arguments: map[string]any{"name": fmt.Sprintf("load/s%d-n%03d.md", si, i), "content": content(i)}}, fmt.Sprintf("n%03d.md", i)
					}
					res, err := s.CallTool(ctx, p)
					if err != nil {
						t.Errorf("call %d (%s): protocol error %v", i, p.Name, err)
						continue
					}
					if res.IsError || !strings.Contains(text(res), want) {
						t.Errorf("call %d (%s): %s; want it to contain %q", i, p.Name, text(res), want)
						continue
					}
					if p.Name == "notes_write" {
						mu.Lock()
						wrote = append(wrote, si<<16|i)
						mu.Unlock()
					}
					done.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	if done.Load() < minCalls {
		t.Errorf("only %d calls answered in %v; want at least %d", done.Load(), loadBudget, minCalls)
	}
	sp, err := notes.Open(filepath.Join(home, ".notesoup")).Space(cwd)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range wrote {
		si, i := k>>16, k&0xffff
		r, err := sp.Read(notes.ReadRequest{Name: fmt.Sprintf("load/s%d-n%03d.md", si, i)})
		if err != nil || r.Content != content(i) {
			t.Errorf("note s%d-n%03d after the load: %q, %v", si, i, r.Content, err)
		}
	}
	if r, err := sp.Read(notes.ReadRequest{Name: "fixed.md"}); err != nil || r.Content != fixed {
		t.Errorf("fixed.md after the load: %q, %v", r.Content, err)
	}
	list, err := sp.List(notes.ListRequest{Prefix: "load/"})
	if err != nil || len(list.Notes) != len(wrote) {
		t.Errorf("list after the load: %d notes, %v; want %d", len(list.Notes), err, len(wrote))
	}
	t.Logf("%d MCP calls over %d sessions (%d concurrent callers) in %v (%.0f calls/s), %d notes written", done.Load(), loadSessions,
		loadSessions*loadPerSession, elapsed.Round(time.Millisecond), float64(done.Load())/elapsed.Seconds(), len(wrote))
}
