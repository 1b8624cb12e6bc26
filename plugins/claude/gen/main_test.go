package main

import (
	"strings"
	"testing"

	"github.com/notesoup/notesoup/mcpserver"
)

// TestRenderHasEveryToolOnce: every MCP tool and empty_brain is defined
// once and registered at tool.run once, by its prefixed name.
func TestRenderHasEveryToolOnce(t *testing.T) {
	f, err := Render()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{ResetToolName}
	for _, tool := range mcpserver.Tools() {
		names = append(names, tool.Name)
	}
	if len(names) != 8 {
		t.Fatalf("%d tools, want the five notes tools, two history tools and empty_brain: %v", len(names), names)
	}
	for _, n := range names {
		if c := strings.Count(string(f.Tools), `"name": "`+n+`"`); c != 1 {
			t.Errorf("tools.gen.ts defines %s %d times, want 1", n, c)
		}
		reg := "on('tool.run', { tool: \"" + toolPrefix + n + "\" }, serveTool)"
		if c := strings.Count(string(f.Hooks), reg); c != 1 {
			t.Errorf("toolhooks.gen.ts registers %s %d times, want 1", n, c)
		}
	}
}

// TestOpFor maps tool names to helper operations and refuses the unknown.
func TestOpFor(t *testing.T) {
	for _, tc := range []struct{ name, op, err string }{
		{"notes_list", "notes.list", ""},
		{"notes_delete", "notes.delete", ""},
		{"history_read", "history.read", ""},
		{ResetToolName, "", ""},
		{"grep", "", "no helper operation"},
		{"files_list", "", "no helper operation"},
	} {
		op, err := opFor(tc.name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("opFor(%q) error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || op != tc.op {
			t.Errorf("opFor(%q) = %q, %v; want %q", tc.name, op, err, tc.op)
		}
	}
}

// TestFixturesRunTheRealFlow: every scenario decodes and its steps come
// from shared/reset (a reset scenario reaches install_boot and a commit).
func TestFixturesRunTheRealFlow(t *testing.T) {
	src, err := RenderFixtures()
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, sc := range scenarios() {
		if !strings.Contains(s, `"`+sc.Name+`": [`) {
			t.Errorf("scenario %s missing from the fixtures", sc.Name)
		}
	}
	for _, want := range []string{`"kind": "install_boot"`, `"kind": "send_continuation"`, `"kind": "end_turn"`, `"kind": "refuse"`, `"handoff_text": "`} {
		if !strings.Contains(s, want) {
			t.Errorf("fixtures never hold %s", want)
		}
	}
}
