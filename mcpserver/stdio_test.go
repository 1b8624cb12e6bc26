package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/mcpserver"
)

// connect starts `notesoup mcp` as a real process and connects the SDK's
// client to it over its stdin/stdout.
func connect(t *testing.T, args ...string) (*mcp.ClientSession, string) {
	t.Helper()
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"mcp", "--cwd", cwd}, args...)...)
	cmd.Env = testbin.SampleEnv(home)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess, cwd
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestToolsListMatchesDefinitions(t *testing.T) {
	sess, _ := connect(t, "--harness", "claude", "--session", "s1")
	res, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := mcpserver.Tools()
	if len(res.Tools) != len(want) {
		t.Fatalf("server lists %d tools, definitions have %d", len(res.Tools), len(want))
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	for _, w := range want {
		got, ok := byName[w.Name]
		if !ok {
			t.Errorf("tool %s not listed", w.Name)
			continue
		}
		if got.Description != w.Description {
			t.Errorf("%s: description differs from its definition", w.Name)
		}
		if got.Annotations == nil || got.Annotations.ReadOnlyHint != w.ReadOnly ||
			got.Annotations.DestructiveHint == nil || *got.Annotations.DestructiveHint != w.Destructive {
			t.Errorf("%s: annotations %+v, want readOnly=%v destructive=%v", w.Name, got.Annotations, w.ReadOnly, w.Destructive)
		}
	}
	init := sess.InitializeResult()
	if !strings.Contains(init.Instructions, `window="claude:s1:0"`) || !strings.Contains(init.Instructions, "mcp__notesoup__notes_write") {
		t.Errorf("instructions lack the boot block: %q", init.Instructions)
	}
	// The server serves no reset tool: its boot must not send the model to one.
	if strings.Contains(init.Instructions, "empty_brain") {
		t.Errorf("instructions name empty_brain, which this server does not serve: %q", init.Instructions)
	}
}

func TestToolCalls(t *testing.T) {
	sess, _ := connect(t, "--harness", "codex")
	claudeTools := "claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001"
	tests := []struct {
		tool     string
		args     map[string]any
		meta     mcp.Meta
		wantErr  bool
		contains string
	}{
		{tool: "notes_write", args: map[string]any{"name": "plan.md", "content": "# Plan\nship it\n"}, contains: "plan.md"},
		{tool: "notes_read", args: map[string]any{"name": "plan.md"}, contains: "ship it"},
		{tool: "notes_list", args: map[string]any{}, contains: "plan.md"},
		{tool: "notes_edit", args: map[string]any{"name": "plan.md", "old_text": "ship it", "new_text": "ship it today"}, contains: "plan.md"},
		{tool: "notes_edit", args: map[string]any{"name": "plan.md", "old_text": "absent", "new_text": "x"}, wantErr: true, contains: "occurs 0 times"},
		{tool: "notes_read", args: map[string]any{"name": "/etc/passwd"}, wantErr: true, contains: "name"},
		{tool: "notes_read", args: map[string]any{"name": "plan.md", "bogus": true}, wantErr: true, contains: "bogus"},
		{tool: "notes_delete", args: map[string]any{"name": "plan.md"}, contains: "plan.md"},
		{tool: "history_list", args: map[string]any{"session": claudeTools, "query": "greeting"}, contains: "greeting"},
		{tool: "history_list", args: map[string]any{"session": "../../etc"}, wantErr: true, contains: "path"},
		{tool: "history_list", args: map[string]any{}, wantErr: true, contains: "no current session"},
		// Codex binds the current thread through the call's _meta.threadId.
		{tool: "history_list", args: map[string]any{"query": "oat milk"}, meta: mcp.Meta{"threadId": "01a236a9-0434-7ac0-a8e9-12093dfbf4fa"}, contains: "oat milk"},
		{tool: "history_read", args: map[string]any{"session": claudeTools, "seq": 1}, contains: "#1"},
		// after 0 is the first page, not the newest; before 0 names no page.
		{tool: "history_list", args: map[string]any{"session": claudeTools, "after": 0, "limit": 1}, contains: "#1 "},
		{tool: "history_list", args: map[string]any{"session": claudeTools, "before": 0}, wantErr: true, contains: "before=0"},
		{tool: "history_read", args: map[string]any{"session": claudeTools}, wantErr: true, contains: "seq"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			p := &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args}
			if tc.meta != nil {
				p.Meta = tc.meta
			}
			res, err := sess.CallTool(context.Background(), p)
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.wantErr, text(res))
			}
			if !strings.Contains(text(res), tc.contains) {
				t.Fatalf("result lacks %q: %s", tc.contains, text(res))
			}
		})
	}
}
