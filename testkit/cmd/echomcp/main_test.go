package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEcho connects a real MCP client over in-memory transports and calls
// the tool, with and without structured output.
func TestEcho(t *testing.T) {
	tests := []struct {
		structured     bool
		wantStructured string
	}{
		{false, ""},
		{true, `{"echoed":"PING ME"}`},
	}
	for _, tc := range tests {
		ctx := context.Background()
		logPath := filepath.Join(t.TempDir(), "calls.jsonl")
		st, ct := mcp.NewInMemoryTransports()
		ss, err := newServer(tc.structured, logPath).Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().Instructions; got != instructions {
			t.Fatalf("instructions %q", got)
		}
		tools, err := cs.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" || tools.Tools[0].Annotations == nil || !tools.Tools[0].Annotations.ReadOnlyHint {
			t.Fatalf("tools/list: %v %+v", err, tools)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping me"}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ECHO: PING ME" {
			t.Fatalf("call: %v %+v", err, res)
		}
		got := ""
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			got = string(b)
		}
		if got != tc.wantStructured {
			t.Fatalf("structured=%v: structuredContent %s, want %q", tc.structured, got, tc.wantStructured)
		}
		raw, err := os.ReadFile(logPath)
		if err != nil || strings.Count(string(raw), "\n") != 1 || !strings.Contains(string(raw), `"text":"ping me"`) {
			t.Fatalf("call log %q (%v)", raw, err)
		}
		cs.Close()
		ss.Wait()
	}
}
