package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// driverJS loads the installed plugin with a scripted client and runs its
// tool.execute.after hook once per step, each step with the session's
// messages as OpenCode would return them then; it prints each step's tool
// output.
const driverJS = `
import { pathToFileURL } from "node:url"
import { readFileSync } from "node:fs"
const [plugin, scenario, shape] = process.argv.slice(2)
const steps = JSON.parse(readFileSync(scenario, "utf8"))
let current = []
const client = { session: { messages: async () => ({ data: current }) } }
const mod = await import(pathToFileURL(plugin).href)
const exported = Object.keys(mod)
const hooks = await mod.NotesoupPlugin({ client, directory: "/proj" })
const outs = []
for (const s of steps) {
  current = s
  // OpenCode's own tools answer {output}; MCP tools the MCP result.
  const output = shape === "mcp" ? { content: [{ type: "text", text: "tool result" }] } : { title: "t", output: "tool result", metadata: {} }
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "c" }, output)
  outs.push(shape === "mcp" ? output.content.map((c) => c.text).join("\n\n") : output.output)
}
console.log(JSON.stringify({ exported, outs }))
`

// msg is one message of OpenCode's session.messages answer.
func msg(role string, total int64, parts ...map[string]any) map[string]any {
	info := map[string]any{"role": role, "providerID": "local", "modelID": "m"}
	if total > 0 {
		info["tokens"] = map[string]any{"input": total - 10, "output": 10, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}}
	}
	if parts == nil {
		parts = []map[string]any{}
	}
	return map[string]any{"info": info, "parts": parts}
}

var compaction = map[string]any{"type": "compaction", "auto": true}

func toolPart(out string) map[string]any {
	return map[string]any{"type": "tool", "state": map[string]any{"status": "completed", "output": out}}
}

// TestPluginBudgetWarning runs the plugin's tool hook under node with a
// fake notesoup answering `limits` (warning point 1000): the warning is
// added once per window, past the point only, from the last step of the
// current window, not again when the window already carries it, and again
// after a compaction.
func TestPluginBudgetWarning(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH: the plugin's hook cannot run here")
	}
	warned := toolPart("x\n\nnotesoup budget warning: this context window is nearly full.")
	summary := msg("assistant", 5000)
	summary["info"].(map[string]any)["summary"] = true
	for _, tc := range []struct {
		name   string
		mcp    bool
		limits string
		steps  [][]map[string]any
		want   []bool // warning added at each step
	}{
		{name: "below the point", limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{{msg("user", 0), msg("assistant", 999)}}, want: []bool{false}},
		{name: "once per window", limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{
				{msg("user", 0), msg("assistant", 1000)},
				{msg("user", 0), msg("assistant", 1000), msg("assistant", 1200)},
			}, want: []bool{true, false}},
		{name: "an MCP tool's result", mcp: true, limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{
				{msg("user", 0), msg("assistant", 1000)},
				{msg("user", 0), msg("assistant", 1000), msg("assistant", 1200)},
			}, want: []bool{true, false}},
		{name: "window already warned by another process", limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{{msg("user", 0), msg("assistant", 1500, warned)}}, want: []bool{false}},
		{name: "again after a compaction", limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{
				{msg("user", 0), msg("assistant", 1500, warned), msg("user", 0, compaction), summary, msg("assistant", 1100)},
			}, want: []bool{true}},
		{name: "new window not yet measured", limits: `{"limits":{"resolved":true,"warnings_enabled":true,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{{msg("assistant", 1500), msg("user", 0, compaction), summary}}, want: []bool{false}},
		{name: "unresolved limits", limits: `{"limits":{"resolved":false,"warnings_enabled":true,"warning":0}}`,
			steps: [][]map[string]any{{msg("assistant", 1500)}}, want: []bool{false}},
		{name: "warnings off", limits: `{"limits":{"resolved":true,"warnings_enabled":false,"warning":1000,"native":2000}}`,
			steps: [][]map[string]any{{msg("assistant", 1500)}}, want: []bool{false}},
		{name: "notesoup fails", limits: `not json`,
			steps: [][]map[string]any{{msg("assistant", 1500)}}, want: []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("HOME", dir)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
			bin := filepath.Join(dir, "notesoup")
			lim := filepath.Join(dir, "limits.json")
			args := filepath.Join(dir, "args")
			os.WriteFile(lim, []byte(tc.limits), 0o600)
			os.WriteFile(bin, []byte("#!/bin/sh\necho \"$@\" >> '"+args+"'\n[ \"$1\" = limits ] && cat '"+lim+"'\nexit 0\n"), 0o700)
			var out, errb bytes.Buffer
			if code := runInstaller("install", []string{"--opencode-config", dir, "--binary", bin}, &out, &errb); code != 0 {
				t.Fatalf("install exit %d: %s", code, errb.String())
			}
			scenario := filepath.Join(dir, "steps.json")
			data, _ := json.Marshal(tc.steps)
			os.WriteFile(scenario, data, 0o600)
			driver := filepath.Join(dir, "driver.mjs")
			os.WriteFile(driver, []byte(driverJS), 0o600)
			shape := "own"
			if tc.mcp {
				shape = "mcp"
			}
			cmd := exec.Command(node, driver, filepath.Join(dir, "plugin", "notesoup.js"), scenario, shape)
			cmd.Dir = dir
			res, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, res)
			}
			var got struct {
				Exported []string
				Outs     []string
			}
			lines := strings.Split(strings.TrimSpace(string(res)), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatalf("driver said %s", res)
			}
			// OpenCode calls every export as a plugin: only the plugin is exported.
			if len(got.Exported) != 1 || got.Exported[0] != "NotesoupPlugin" {
				t.Errorf("exports %v, want only NotesoupPlugin", got.Exported)
			}
			for i, o := range got.Outs {
				has := strings.Contains(o, "notesoup budget warning:")
				if has != tc.want[i] {
					t.Errorf("step %d: warning %v, want %v: %q", i, has, tc.want[i], o)
				}
				if has && (!strings.HasPrefix(o, "tool result\n\n") || !strings.Contains(o, "OpenCode will compact") || !strings.Contains(o, "tokens left before OpenCode compacts")) {
					t.Errorf("step %d: warning text %q", i, o)
				}
			}
			if a, _ := os.ReadFile(args); tc.want[0] && !strings.Contains(string(a), "limits --harness opencode --model local/m --cwd /proj --json") {
				t.Errorf("notesoup called with %q", a)
			}
		})
	}
}
