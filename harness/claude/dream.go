package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/dream/headless"
)

// PluginDirEnv names a folder holding the notesoup mod (a checkout's
// plugins/claude after make plugin-claude, or an unpacked package) that
// `notesoup dream` loads with --plugin-dir.
const PluginDirEnv = "NOTESOUP_CLAUDE_PLUGIN_DIR"

// Headless runs Claude Code without a person for `notesoup dream`:
// claude -p with the notes and history tools allowed and nothing that
// edits files or runs commands. The tools come from the mod Claude Code
// loads itself (installed from the marketplace) or, with PluginDirEnv set,
// from that folder (--plugin-dir); the MCP route (claude mcp add notesoup)
// names them the same way and works too. Adding notesoup's MCP server here
// as well would offer a person who has the mod installed every tool twice.
var Headless = headless.Harness{
	Name:     Name,
	Binary:   "claude",
	BinEnv:   "NOTESOUP_CLAUDE_BIN",
	Tools:    "mcp__notesoup__notes_list",
	Command:  headlessCommand,
	Report:   headlessReport,
	Progress: headlessProgress,
}

// headlessTools are the tools a dream pass may use without asking: the
// notes and history tools, and Claude Code's read-only file tools for
// checking facts against the code. In -p mode every other tool that needs
// permission (Bash, Edit, Write) is refused, so a pass cannot change the
// repository.
var headlessTools = []string{
	"mcp__notesoup__notes_list", "mcp__notesoup__notes_read", "mcp__notesoup__notes_write",
	"mcp__notesoup__notes_edit", "mcp__notesoup__notes_delete",
	"mcp__notesoup__history_list", "mcp__notesoup__history_read",
	"Read", "Grep", "Glob",
}

func headlessCommand(ctx context.Context, r headless.Request) (*exec.Cmd, error) {
	args := []string{"-p", r.Prompt, "--output-format", "stream-json", "--verbose",
		"--allowedTools", strings.Join(headlessTools, ",")}
	if dir, ok := headless.Lookup(r.Env, PluginDirEnv); ok && dir != "" {
		fi, err := os.Stat(filepath.Join(dir, ".claude-plugin", "plugin.json"))
		if err != nil || !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s=%s holds no Claude Code plugin (.claude-plugin/plugin.json); point it at the notesoup mod (plugins/claude after make plugin-claude) or unset it to use the installed mod", PluginDirEnv, dir)
		}
		args = append(args, "--plugin-dir", dir)
	}
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	return cmd, nil
}

// streamLine is the part of a stream-json line the report and the
// progress lines need.
type streamLine struct {
	Type    string `json:"type"`
	Result  string `json:"result"`
	IsError bool   `json:"is_error"`
	Message struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	} `json:"message"`
}

// headlessReport is the text of the run's last result line.
func headlessReport(stdout []byte) string {
	report := ""
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		var l streamLine
		if json.Unmarshal(line, &l) == nil && l.Type == "result" {
			report = l.Result
		}
	}
	return report
}

// progressClip bounds a progress line's text and tool input.
const progressClip = 200

// headlessProgress renders the model's text and tool calls, one line
// each; the rest of the stream (system lines, tool results) is left out.
func headlessProgress(line []byte) string {
	var l streamLine
	if err := json.Unmarshal(line, &l); err != nil {
		return ""
	}
	if l.Type != "assistant" {
		return ""
	}
	var parts []string
	for _, c := range l.Message.Content {
		switch c.Type {
		case "text":
			if t := strings.TrimSpace(c.Text); t != "" {
				parts = append(parts, clip(t))
			}
		case "tool_use":
			parts = append(parts, "tool "+c.Name+" "+clip(string(c.Input)))
		}
	}
	return strings.Join(parts, "\n")
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > progressClip {
		return string(r[:progressClip]) + "…"
	}
	return s
}
