package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/notesoup/notesoup/plugins/codex/hook"
	"github.com/notesoup/notesoup/shared/atomicfile"

	"github.com/BurntSushi/toml"

	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/shared/notes"
)

func init() {
	register("install", "wire notesoup into a harness: install codex [--codex-home DIR] [--dry-run] [--json]", runInstall)
}

// codexServerName is the [mcp_servers.<name>] key; Codex shows the tools
// in the namespace mcp__notesoup.
const codexServerName = "notesoup"

// codexHookTimeoutSec bounds one hook run. A hook starts notesoup and its
// Codex plugin and reads the rollout: well under a second here; the slack
// covers a cold disk cache.
const codexHookTimeoutSec = 30

// codexWriteTools are the notes tools that change notes. Codex runs MCP
// tools without a read-only hint only after approval, and `codex exec`
// never asks (approval policy never), so install approves these three
// explicitly: the notes are the model's own memory and writing them is the
// point. Read-only tools carry readOnlyHint and need nothing.
var codexWriteTools = []string{notes.ToolWrite, notes.ToolEdit, notes.ToolDelete}

// codexHookEvents are the hook events notesoup answers.
var codexHookEvents = []string{hook.SessionStart, hook.PostToolUse, hook.UserPromptSubmit}

// codexPassEnv are the environment variables Codex passes to the MCP
// server (env_vars): where the notes live, logging, the off switch, and
// CODEX_HOME so the server finds the sessions Codex writes.
var codexPassEnv = []string{"NOTESOUP_HOME", "NOTESOUP_LOG", "NOTESOUP_DISABLED", "CODEX_HOME"}

// CodexCompactPrompt replaces Codex's compaction prompt (config key
// compact_prompt). Codex offers no way to answer its compaction with the
// notes, so the summary it writes is steered to point at them instead; the
// notes themselves come back through the SessionStart "compact" hook.
const CodexCompactPrompt = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another language model that will resume the task. " +
	"This project uses notesoup: the next window starts with a notesoup boot block that lists the notes (notes_list, notes_read), so do not copy what the notes already hold. Include: " +
	"(1) the goal and the current progress, naming the notes that hold the details (for example \"details in notes plan.md\"); " +
	"(2) decisions and constraints that are not in any note yet — and say that the next window should write them to notes first; " +
	"(3) notes that are now out of date; " +
	"(4) the exact next step, with file paths. Be concise."

// codexCompactKeys are the config keys that set Codex's compaction prompt;
// a person's own setting is left alone.
var codexCompactKeys = []string{"compact_prompt", "experimental_compact_prompt_file"}

// installReport is what install did (or would do), for --json.
type installReport struct {
	CodexHome string   `json:"codex_home"`
	DryRun    bool     `json:"dry_run"`
	Changed   []string `json:"changed"` // files written (or to be written)
	Messages  []string `json:"messages"`
	Config    string   `json:"config_toml,omitempty"` // the new config.toml with --dry-run
	Hooks     string   `json:"hooks_json,omitempty"`  // the new hooks.json with --dry-run
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "codex" {
		fmt.Fprintln(stderr, "Usage: notesoup install codex [--codex-home DIR] [--dry-run] [--json]  (codex is the only harness installed this way; Claude Code and Pi load their plugins from plugins/)")
		return 2
	}
	fs := flag.NewFlagSet("install codex", flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String("codex-home", "", "Codex's home (default $CODEX_HOME, else ~/.codex)")
	dry := fs.Bool("dry-run", false, "print what would be written, write nothing")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bin := fs.String("binary", "", "the notesoup binary Codex should run (default: this executable)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "notesoup install codex: unexpected arguments %v\n", fs.Args())
		return 2
	}
	if *home == "" {
		h, err := codex.Home()
		if err != nil {
			fmt.Fprintln(stderr, "notesoup install codex:", err, "(pass --codex-home)")
			return 1
		}
		*home = h
	}
	if *bin == "" {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(stderr, "notesoup install codex: finding this executable:", err, "(pass --binary)")
			return 1
		}
		*bin = exe
	}
	absBin, err := filepath.Abs(*bin)
	if err != nil {
		fmt.Fprintln(stderr, "notesoup install codex: --binary:", err)
		return 1
	}
	rep, err := installCodex(*home, absBin, *dry)
	if err != nil {
		fmt.Fprintln(stderr, "notesoup install codex:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(stderr, "notesoup install codex:", err)
			return 1
		}
		return 0
	}
	for _, m := range rep.Messages {
		fmt.Fprintln(stdout, m)
	}
	if *dry {
		if rep.Config != "" {
			fmt.Fprintf(stdout, "\n--- %s (would be)\n%s", filepath.Join(rep.CodexHome, "config.toml"), rep.Config)
		}
		if rep.Hooks != "" {
			fmt.Fprintf(stdout, "\n--- %s (would be)\n%s", filepath.Join(rep.CodexHome, "hooks.json"), rep.Hooks)
		}
	}
	return 0
}

// installCodex merges the notesoup MCP server, the compaction prompt and
// the hooks into codexHome's config.toml and hooks.json. It never replaces
// a person's own settings: a different [mcp_servers.notesoup] is refused,
// a person's compaction prompt is kept (and reported), other hooks are
// kept beside notesoup's.
func installCodex(codexHome, bin string, dry bool) (installReport, error) {
	rep := installReport{CodexHome: codexHome, DryRun: dry, Changed: []string{}}
	cfgPath := filepath.Join(codexHome, "config.toml")
	hooksPath := filepath.Join(codexHome, "hooks.json")

	oldCfg, err := readOptional(cfgPath)
	if err != nil {
		return rep, err
	}
	newCfg, msgs, err := mergeCodexConfig(oldCfg, bin)
	if err != nil {
		return rep, fmt.Errorf("%s: %w", cfgPath, err)
	}
	rep.Messages = append(rep.Messages, msgs...)

	oldHooks, err := readOptional(hooksPath)
	if err != nil {
		return rep, err
	}
	newHooks, msgs, err := mergeCodexHooks(oldHooks, hookBinary(bin))
	if err != nil {
		return rep, fmt.Errorf("%s: %w", hooksPath, err)
	}
	rep.Messages = append(rep.Messages, msgs...)

	verb := "wrote"
	if dry {
		verb = "would write"
	}
	for _, f := range []struct {
		path     string
		old, new []byte
		show     *string
	}{{cfgPath, oldCfg, newCfg, &rep.Config}, {hooksPath, oldHooks, newHooks, &rep.Hooks}} {
		if bytes.Equal(f.old, f.new) {
			rep.Messages = append(rep.Messages, f.path+": already up to date")
			continue
		}
		rep.Changed = append(rep.Changed, f.path)
		if dry {
			*f.show = string(f.new)
			rep.Messages = append(rep.Messages, verb+" "+f.path)
			continue
		}
		if err := replaceIfUnchanged(f.path, f.old, f.new); err != nil {
			return rep, err
		}
		rep.Messages = append(rep.Messages, verb+" "+f.path)
	}
	if !dry && len(rep.Changed) > 0 {
		rep.Messages = append(rep.Messages, "Codex runs hooks only once trusted: start codex once and accept them, or pass --dangerously-bypass-hook-trust in automation.")
	}
	return rep, nil
}

// readOptional reads a file that may not exist yet (nil, no error).
func readOptional(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// codexServerTable is the TOML notesoup adds for its MCP server.
func codexServerTable(bin string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# notesoup: notes and history tools (written by notesoup install codex)\n")
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", codexServerName)
	fmt.Fprintf(&b, "command = %s\n", tomlString(bin))
	fmt.Fprintf(&b, "args = [\"mcp\", \"--harness\", \"codex\"]\n")
	fmt.Fprintf(&b, "env_vars = %s\n", tomlStrings(codexPassEnv))
	for _, t := range codexWriteTools {
		fmt.Fprintf(&b, "\n[mcp_servers.%s.tools.%s]\napproval_mode = \"approve\"\n", codexServerName, t)
	}
	return b.String()
}

// tableHeader matches a TOML table or array-of-tables header line;
// compiled on first use, since only `notesoup install` needs it and every
// notesoup process would pay for compiling it at start.
var tableHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) })

// mergeCodexConfig adds notesoup's server table and compaction prompt to a
// config.toml, keeping every byte of the person's own text.
func mergeCodexConfig(old []byte, bin string) ([]byte, []string, error) {
	var cur map[string]any
	if _, err := toml.Decode(string(old), &cur); err != nil {
		return nil, nil, fmt.Errorf("is not valid TOML (%v); fix it first, notesoup will not rewrite a file it cannot read", err)
	}
	want := codexServerTable(bin)
	var wantMap map[string]any
	if _, err := toml.Decode(want, &wantMap); err != nil {
		return nil, nil, fmt.Errorf("internal: notesoup's own table does not parse: %v", err)
	}
	var msgs []string
	out := string(old)
	servers, _ := cur["mcp_servers"].(map[string]any)
	if have, ok := servers[codexServerName]; ok {
		wantSrv := wantMap["mcp_servers"].(map[string]any)[codexServerName]
		if !sameJSON(have, wantSrv) {
			h, _ := json.Marshal(have)
			w, _ := json.Marshal(wantSrv)
			return nil, nil, fmt.Errorf("already has [mcp_servers.%s] with other settings (%s; notesoup would write %s); "+
				"refusing to overwrite it: remove that table (and its [mcp_servers.%s.tools.*] tables) and run notesoup install codex again",
				codexServerName, h, w, codexServerName)
		}
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: already installed", codexServerName))
	} else {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		out += want
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: added (command %s; %s approved; read-only tools carry readOnlyHint)",
			codexServerName, bin, strings.Join(codexWriteTools, ", ")))
	}

	own := ""
	for _, k := range codexCompactKeys {
		if _, ok := cur[k]; ok {
			own = k
		}
	}
	switch {
	case own == "compact_prompt" && cur["compact_prompt"] == CodexCompactPrompt:
		msgs = append(msgs, "compact_prompt: already notesoup's")
	case own != "":
		msgs = append(msgs, fmt.Sprintf("%s: kept your own setting; Codex's compaction summaries will not point at the notes (delete it and rerun to use notesoup's prompt)", own))
	default:
		// Top-level keys must precede the first table header, or TOML
		// would file them under that table.
		line := "# notesoup: compaction summaries point at the notes (notesoup install codex)\ncompact_prompt = " + tomlString(CodexCompactPrompt) + "\n"
		if loc := tableHeader().FindStringIndex(out); loc != nil {
			out = out[:loc[0]] + line + "\n" + out[loc[0]:]
		} else {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			out = line + out
		}
		msgs = append(msgs, "compact_prompt: set, so Codex's compaction summary points at the notes")
	}

	// The result must parse and hold exactly what notesoup meant to add.
	var check map[string]any
	if _, err := toml.Decode(out, &check); err != nil {
		return nil, nil, fmt.Errorf("internal: merged config does not parse (%v); nothing written", err)
	}
	srv, _ := check["mcp_servers"].(map[string]any)
	if !sameJSON(srv[codexServerName], wantMap["mcp_servers"].(map[string]any)[codexServerName]) {
		return nil, nil, fmt.Errorf("internal: merged config does not hold notesoup's server table; nothing written")
	}
	return []byte(out), msgs, nil
}

// hookBinary is what Codex's hooks run: notesoup-helper when it sits beside
// bin (the same answers from a build that starts several times faster, and
// Codex runs a hook for every tool call), else bin itself.
func hookBinary(bin string) string {
	fast := filepath.Join(filepath.Dir(bin), "notesoup-helper")
	if fi, err := os.Stat(fast); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return fast
	}
	return bin
}

// codexHookCommand is the hooks.json command for one event.
func codexHookCommand(bin, event string) string {
	return shellQuote(bin) + " hook codex " + event
}

// isNotesoupHook reports whether a hooks.json command is notesoup's.
func isNotesoupHook(cmd, event string) bool {
	return strings.HasSuffix(cmd, " hook codex "+event)
}

// mergeCodexHooks adds notesoup's hook to each event of a hooks.json,
// keeping every other hook; a notesoup hook with another binary path is
// updated and reported.
func mergeCodexHooks(old []byte, bin string) ([]byte, []string, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(old)) > 0 {
		if err := json.Unmarshal(old, &doc); err != nil {
			return nil, nil, fmt.Errorf("is not valid JSON (%v); fix it first, notesoup will not rewrite a file it cannot read", err)
		}
	}
	hooks := map[string]any{}
	if h, ok := doc["hooks"]; ok {
		m, ok := h.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf(`"hooks" is not an object; fix it first`)
		}
		hooks = m
	}
	var msgs []string
	for _, ev := range codexHookEvents {
		want := codexHookCommand(bin, ev)
		var groups []any
		if g, ok := hooks[ev]; ok {
			gs, ok := g.([]any)
			if !ok {
				return nil, nil, fmt.Errorf(`"hooks.%s" is not an array; fix it first`, ev)
			}
			groups = gs
		}
		found := false
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				if !isNotesoupHook(cmd, ev) {
					continue
				}
				found = true
				if cmd != want {
					msgs = append(msgs, fmt.Sprintf("hooks.json %s: updated notesoup's hook from %q to %q", ev, cmd, want))
					hm["command"] = want
				}
			}
		}
		if found {
			continue
		}
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": want, "timeout": codexHookTimeoutSec}}}
		if ev == hook.PostToolUse {
			entry["matcher"] = "" // every tool: the budget is measured after each
		}
		hooks[ev] = append(groups, entry)
		msgs = append(msgs, fmt.Sprintf("hooks.json %s: added notesoup's hook", ev))
	}
	doc["hooks"] = hooks
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, nil, err
	}
	if len(msgs) == 0 {
		return old, nil, nil // unchanged: keep the person's formatting
	}
	return buf.Bytes(), msgs, nil
}

// replaceIfUnchanged writes data to path atomically (temp file, fsync,
// rename), keeping the file's mode, unless the file changed since it was
// read as old — then someone else (Codex itself, `codex mcp add`) wrote it,
// and the merge would lose their change.
func replaceIfUnchanged(path string, old, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	mode := os.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	err := atomicfile.Write(path, data, atomicfile.Options{
		TempPrefix: "." + filepath.Base(path) + ".notesoup-",
		Perm:       mode,
		BeforeRename: func() error {
			now, err := readOptional(path)
			if err != nil {
				return err
			}
			if !bytes.Equal(now, old) {
				return fmt.Errorf("%s changed while notesoup was merging into it; nothing written, run notesoup install codex again", path)
			}
			return nil
		},
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// shellQuote quotes a path for the hooks.json command line (Codex runs it
// through a shell).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sameJSON compares two decoded values by their JSON form.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
