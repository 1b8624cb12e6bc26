// Command gen writes the Claude Code mod's tool definitions
// (plugins/claude/hooks/tools.gen.ts and the tool.run registrations in
// toolhooks.gen.ts) from the Go definitions the MCP server
// registers (mcpserver.Tools()), plus the reset tool empty_brain, so the
// wording and schemas are written once. The build runs it; the output is not
// committed.
//
// Usage: go run ./plugins/claude/gen -dir plugins/claude/hooks
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/mcpserver"
)

// ResetToolName is the reset tool's bare name; Claude Code shows it as
// mcp__notesoup__empty_brain because the plugin is named notesoup.
const ResetToolName = "empty_brain"

// toolPrefix is what Claude Code puts before a mod's tool names: mcp__, the
// plugin's name (the MCP server's name, so both serve the same names), __.
const toolPrefix = "mcp__" + mcpserver.ServerName + "__"

// resetTool is empty_brain's definition. It lives here until shared/reset
// owns a Go definition of the tool (the Pi extension needs the same one).
// terminate stays a JSON boolean in the schema; a non-boolean value is still
// refused by shared/reset before anything is recorded.
func resetTool() mcpserver.Tool {
	return mcpserver.Tool{
		Name: ResetToolName,
		Description: "Reset your context window to a clean one. Save what matters in the notes first: " +
			"the new window starts with the notes boot block (your notes index and chosen notes), one handoff " +
			"paragraph and your last_word, and none of this conversation. Every tool call in this response " +
			"still finishes; the window is emptied when this turn ends. Unless terminate is true, work " +
			"continues once in the fresh window.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"last_word": map[string]any{"type": "string",
					"description": "A short note to your next window: what to do first. Shown right after the notes."},
				"terminate": map[string]any{"type": "boolean",
					"description": "true: stop after the reset and wait for the user (default false: continue once in the fresh window)."},
			},
			"additionalProperties": false,
		},
	}
}

// genTool is one tool as the hooks module needs it: Op is the helper
// operation that serves it ("" for the reset tool, which the hooks module
// drives through reset.event).
type genTool struct {
	Name        string         `json:"name"`
	Op          string         `json:"op"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	ReadOnly    bool           `json:"readOnly"`
}

// opFor maps a tool name to its helper operation: notes_list → notes.list,
// history_read → history.read.
func opFor(name string) (string, error) {
	if name == ResetToolName {
		return "", nil
	}
	prefix, rest, ok := strings.Cut(name, "_")
	if !ok || (prefix != "notes" && prefix != "history") {
		return "", fmt.Errorf("tool %q: no helper operation for it; want notes_* or history_*", name)
	}
	return prefix + "." + rest, nil
}

// Render returns the TypeScript sources of the generated modules.
func Render() (Files, error) {
	var tools []genTool
	for _, t := range append(mcpserver.Tools(), resetTool()) {
		op, err := opFor(t.Name)
		if err != nil {
			return Files{}, err
		}
		tools = append(tools, genTool{Name: t.Name, Op: op, Description: t.Description, InputSchema: t.InputSchema, ReadOnly: t.ReadOnly})
	}
	js, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		return Files{}, err
	}
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("import type { MatchedHook } from 'claude-code'\n\n")
	b.WriteString("/** One tool the mod registers: op is the helper operation serving it (\"\" for empty_brain). */\n")
	b.WriteString("export type ToolDef = {\n  readonly name: string\n  readonly op: string\n  readonly description: string\n  readonly inputSchema: Record<string, unknown>\n  readonly readOnly: boolean\n}\n\n")
	b.WriteString("/** The reset tool's bare name. */\nexport const RESET_TOOL = " + quote(ResetToolName) + "\n\n")
	b.WriteString("/** The prefix Claude Code gives the plugin's tools (the plugin is named " + mcpserver.ServerName + "). */\n")
	b.WriteString("export const TOOL_PREFIX = " + quote(toolPrefix) + "\n\n")
	b.WriteString("/** Every tool, in registration order. */\nexport const TOOLS: readonly ToolDef[] = ")
	b.Write(js)
	b.WriteString("\n\n")
	b.WriteString("/** A tool.run hook for any of the plugin's tools. */\n")
	b.WriteString("export type ToolHook = MatchedHook<'tool.run', { tool: `" + toolPrefix + "${string}` }>\n")
	var h bytes.Buffer
	h.WriteString(header)
	h.WriteString("import type { On } from 'claude-code'\nimport { serveTool } from './mod'\n\n")
	// One on() call per tool, each naming the hook itself: the engine hears
	// tool.run only by exact name, refuses one on() site run twice, and
	// validate wants the hook declared at top level or imported.
	h.WriteString("/** Serves every tool at tool.run, one exact-name registration each. */\n")
	h.WriteString("export function onTools(on: On): void {\n")
	for _, t := range tools {
		h.WriteString("  on('tool.run', { tool: " + quote(toolPrefix+t.Name) + " }, serveTool)\n")
	}
	h.WriteString("}\n")
	return Files{Tools: b.Bytes(), Hooks: h.Bytes()}, nil
}

// header opens every generated file.
const header = "// Code generated by plugins/claude/gen from mcpserver.Tools(); DO NOT EDIT.\n\n"

// Files are the generated modules: Tools (hooks/tools.gen.ts, the
// definitions) and Hooks (hooks/toolhooks.gen.ts, the tool.run registrations).
type Files struct{ Tools, Hooks []byte }

func quote(s string) string { q, _ := json.Marshal(s); return string(q) }

func main() {
	dir := flag.String("dir", "", "the hooks folder to write tools.gen.ts and toolhooks.gen.ts into (plugins/claude/hooks)")
	tests := flag.String("tests", "", "also write the reset-flow fixtures of the plugin tests (flow.gen.ts) into this folder (plugins/claude/tests)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "gen: -dir is required: the plugin's hooks folder, e.g. -dir plugins/claude/hooks")
		os.Exit(2)
	}
	f, err := Render()
	if err == nil {
		err = writeAtomic(filepath.Join(*dir, "tools.gen.ts"), f.Tools)
	}
	if err == nil {
		err = writeAtomic(filepath.Join(*dir, "toolhooks.gen.ts"), f.Hooks)
	}
	if err == nil && *tests != "" {
		var fx []byte
		if fx, err = RenderFixtures(); err == nil {
			err = writeAtomic(filepath.Join(*tests, "flow.gen.ts"), fx)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeAtomic writes through a temporary file and a rename, so a build
// interrupted midway never leaves a half-written module for the engine.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tools-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
