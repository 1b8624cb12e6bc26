package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/notesoup/notesoup/shared/notes"
)

// config.toml: install adds two blocks of text and uninstall takes exactly
// those out again, so a person's own lines keep every byte (comments,
// order, formatting). Each edit is checked by parsing the result: it must
// hold the person's settings unchanged plus (or minus) notesoup's.

// serverName is the [mcp_servers.<name>] key; Codex shows the tools in the
// namespace mcp__notesoup.
const serverName = "notesoup"

// writeTools are the notes tools that change notes. Codex runs MCP tools
// without a read-only hint only after approval, and `codex exec` never
// asks (approval policy never), so install approves these three
// explicitly: the notes are the model's own memory and writing them is the
// point. Read-only tools carry readOnlyHint and need nothing.
var writeTools = []string{notes.ToolWrite, notes.ToolEdit, notes.ToolDelete}

// passEnv are the environment variables Codex passes to the MCP server
// (env_vars): where the notes live, logging, the off switch, and CODEX_HOME
// so the server finds the sessions Codex writes.
var passEnv = []string{"NOTESOUP_HOME", "NOTESOUP_LOG", "NOTESOUP_DISABLED", envHome}

// CompactPrompt replaces Codex's compaction prompt (config key
// compact_prompt). Codex offers no way to answer its compaction with the
// notes, so the summary it writes is steered to point at them instead; the
// notes themselves come back through the SessionStart "compact" hook.
const CompactPrompt = "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another language model that will resume the task. " +
	"This project uses notesoup: the next window starts with a notesoup boot block that lists the notes (notes_list, notes_read), so do not copy what the notes already hold. Include: " +
	"(1) the goal and the current progress, naming the notes that hold the details (for example \"details in notes plan.md\"); " +
	"(2) decisions and constraints that are not in any note yet — and say that the next window should write them to notes first; " +
	"(3) notes that are now out of date; " +
	"(4) the exact next step, with file paths. Be concise."

// compactKeys are the config keys that set Codex's compaction prompt; a
// person's own setting is left alone.
var compactKeys = []string{"compact_prompt", "experimental_compact_prompt_file"}

// The comment lines that open notesoup's two blocks; uninstall recognises
// the blocks by them.
const (
	serverComment  = "# notesoup: notes and history tools (written by notesoup install codex)\n"
	compactComment = "# notesoup: compaction summaries point at the notes (notesoup install codex)\n"
)

// serverTable is the TOML notesoup adds for its MCP server running bin.
func serverTable(bin string) string {
	var b strings.Builder
	b.WriteString(serverComment)
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", serverName)
	fmt.Fprintf(&b, "command = %s\n", tomlString(bin))
	fmt.Fprintf(&b, "args = %s\n", tomlStrings([]string{"mcp", "--harness", Name}))
	fmt.Fprintf(&b, "env_vars = %s\n", tomlStrings(passEnv))
	for _, t := range writeTools {
		fmt.Fprintf(&b, "\n[mcp_servers.%s.tools.%s]\napproval_mode = \"approve\"\n", serverName, t)
	}
	return b.String()
}

// compactLine is the compact_prompt setting install writes; compactBlock
// is it with its comment.
func compactLine() string  { return "compact_prompt = " + tomlString(CompactPrompt) + "\n" }
func compactBlock() string { return compactComment + compactLine() }

// mergeConfig adds notesoup's server table and compaction prompt to a
// config.toml, keeping every byte of the person's own text. The server
// table goes at the end, after one newline (a blank line when the file
// ended with one); the prompt goes, with a blank line after it, above the
// first table and the comments directly over it, since a top-level key
// after a table header would belong to that table.
func mergeConfig(old []byte, bin string) ([]byte, []string, error) {
	cur, err := decodeTOML(old)
	if err != nil {
		return nil, nil, fmt.Errorf("is not valid TOML (%v); fix it first, notesoup will not rewrite a file it cannot read", err)
	}
	want := serverTable(bin)
	wantMap, err := decodeTOML([]byte(want))
	if err != nil {
		return nil, nil, fmt.Errorf("internal: notesoup's own table does not parse: %v", err)
	}
	wantSrv := ourServer(wantMap)
	var msgs []string
	out := string(old)
	if have := ourServer(cur); have != nil {
		switch why := foreignServer(have, bin); {
		case sameJSON(have, wantSrv):
			msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: already installed", serverName))
		case why == "":
			// notesoup's own entry, written by `codex mcp add notesoup --
			// notesoup mcp ...` (the README's tools-only route) or by an
			// install that ran another binary: replaced whole by the one
			// install writes, so the hooks and the approvals come with it.
			h, _ := json.Marshal(have)
			out = cutTables(out, "mcp_servers."+serverName)
			out = strings.TrimRight(out, "\n")
			if out != "" {
				out += "\n\n"
			}
			out += want
			msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: upgraded notesoup's own entry %s to install's (command %s; %s approved)",
				serverName, h, bin, strings.Join(writeTools, ", ")))
		default:
			h, _ := json.Marshal(have)
			w, _ := json.Marshal(wantSrv)
			return nil, nil, fmt.Errorf("already has [mcp_servers.%s] with other settings (%s; notesoup would write %s), and it is not notesoup's own entry: %s; "+
				"refusing to overwrite it: rename or remove that table and its [mcp_servers.%s.tools.*] tables, then install again",
				serverName, h, w, why, serverName)
		}
	} else {
		if out != "" {
			out += "\n"
		}
		out += want
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: added (command %s; %s approved; read-only tools carry readOnlyHint)",
			serverName, bin, strings.Join(writeTools, ", ")))
	}

	own := ""
	for _, k := range compactKeys {
		if _, ok := cur[k]; ok {
			own = k
		}
	}
	setPrompt := false
	switch {
	case own == "compact_prompt" && cur["compact_prompt"] == CompactPrompt:
		msgs = append(msgs, "compact_prompt: already notesoup's")
	case own != "":
		msgs = append(msgs, fmt.Sprintf("%s: kept your own setting; Codex's compaction summaries will not point at the notes (delete it and rerun to use notesoup's prompt)", own))
	default:
		at := topLevelEnd(out)
		out = out[:at] + compactBlock() + "\n" + out[at:]
		setPrompt = true
		msgs = append(msgs, "compact_prompt: set, so Codex's compaction summary points at the notes")
	}

	// The result must hold the person's settings unchanged, notesoup's
	// server table and, if set, notesoup's prompt.
	check, err := decodeTOML([]byte(out))
	if err != nil {
		return nil, nil, fmt.Errorf("internal: merged config does not parse (%v); nothing written", err)
	}
	if !sameJSON(ourServer(check), wantSrv) || setPrompt && check["compact_prompt"] != CompactPrompt ||
		!sameJSON(without(check, true, setPrompt), without(cur, true, setPrompt)) {
		return nil, nil, fmt.Errorf("the merged config would not hold exactly your settings plus notesoup's (is there a multi-line string with a line that starts with \"[\"?); nothing written: add the server table and compact_prompt by hand (notesoup install codex --dry-run shows them)")
	}
	return []byte(out), msgs, nil
}

// unmergeConfig takes out of a config.toml what mergeConfig added: the
// server table (only while it runs `notesoup mcp`) and notesoup's
// compaction prompt, with the comment and the blank line install wrote
// with each. A table a person edited since is still removed whole, but the
// lines around it are theirs and stay.
func unmergeConfig(old []byte) ([]byte, []string, error) {
	cur, err := decodeTOML(old)
	if err != nil {
		return nil, nil, fmt.Errorf("is not valid TOML (%v); fix it first, notesoup will not rewrite a file it cannot read", err)
	}
	var msgs []string
	out := string(old)

	// The prompt first: an install before the prompt went above the
	// comments over the first table put it between the server table's
	// comment and its header.
	dropPrompt := false
	switch p, ok := cur["compact_prompt"]; {
	case !ok:
	case p != CompactPrompt:
		msgs = append(msgs, "compact_prompt: your own, kept")
	default:
		var found bool
		for _, block := range []string{compactBlock() + "\n", compactBlock(), compactLine()} {
			if out, found = cutOnce(out, block); found {
				break
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("holds notesoup's compact_prompt written in another form than install writes; remove it by hand, nothing written")
		}
		dropPrompt = true
		msgs = append(msgs, "compact_prompt: removed notesoup's")
	}

	dropServer := false
	switch srv := ourServer(cur); {
	case srv == nil:
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: not installed", serverName))
	case !runsNotesoupMCP(srv):
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: kept, it does not run notesoup mcp", serverName))
	default:
		cmd, _ := srv["command"].(string)
		if i := strings.Index(out, serverTable(cmd)); i >= 0 {
			// Exactly what install wrote, with the newline it put before.
			from := i
			if i > 0 && out[i-1] == '\n' {
				from = i - 1
			}
			out = out[:from] + out[i+len(serverTable(cmd)):]
		} else {
			out = cutTables(out, "mcp_servers."+serverName)
		}
		dropServer = true
		msgs = append(msgs, fmt.Sprintf("[mcp_servers.%s]: removed", serverName))
	}
	// notesoup's comments left over a setting a person made their own
	// would no longer be true.
	for _, c := range []string{compactComment, serverComment} {
		var cut bool
		if out, cut = cutLine(out, c); cut {
			msgs = append(msgs, "removed notesoup's comment "+strings.TrimSpace(c))
		}
	}
	if !dropPrompt && !dropServer && out == string(old) {
		return old, msgs, nil
	}

	check, err := decodeTOML([]byte(out))
	if err == nil && (!sameJSON(without(check, false, false), without(cur, dropServer, dropPrompt)) || dropServer && ourServer(check) != nil) {
		err = fmt.Errorf("the result would not hold exactly your own settings")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot take notesoup's settings out by editing lines (%v): they are written in a form install does not write (an inline table, dotted keys); remove [mcp_servers.%s] and notesoup's compact_prompt by hand, nothing written", err, serverName)
	}
	return []byte(out), msgs, nil
}

// topLevelEnd is where a top-level key may go in a TOML text: at the start
// of the run of comment lines directly over the first table header (they
// describe that table), else at the end of the text.
func topLevelEnd(text string) int {
	lines := splitLines(text)
	at := 0
	for i, l := range lines {
		if isHeader(l) {
			j := i
			for j > 0 && isComment(lines[j-1]) {
				j--
			}
			for _, l := range lines[:j] {
				at += len(l)
			}
			return at
		}
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		// Appending after an unterminated last line would join the two;
		// the start of the file is as much top level and leaves it whole.
		return 0
	}
	return len(text)
}

// cutTables removes every table named name or under it (name.*), header
// line through its last key: comment and blank lines at a section's end
// belong to what follows. notesoup's own comment right over the table goes
// with it.
func cutTables(text, name string) string {
	lines := splitLines(text)
	drop := make([]bool, len(lines))
	for i := 0; i < len(lines); i++ {
		h, ok := headerName(lines[i])
		if !ok || h != name && !strings.HasPrefix(h, name+".") {
			continue
		}
		end := i + 1
		for end < len(lines) && !isHeader(lines[end]) {
			end++
		}
		last := end
		for last > i+1 && (isComment(lines[last-1]) || strings.TrimSpace(lines[last-1]) == "") {
			last--
		}
		for k := i; k < last; k++ {
			drop[k] = true
		}
		if i > 0 && lines[i-1] == serverComment {
			drop[i-1] = true
		}
		i = end - 1
	}
	var b strings.Builder
	for i, l := range lines {
		if !drop[i] {
			b.WriteString(l)
		}
	}
	return b.String()
}

// splitLines splits text after each newline, keeping them.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// isHeader reports whether a line is a table or array-of-tables header.
func isHeader(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), "[")
}

// isComment reports whether a line holds only a comment.
func isComment(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, " \t"), "#")
}

// headerName is a table header's dotted name with the spaces around its
// parts removed; ok is false for any other line. Quoted parts are left
// quoted, so they match nothing notesoup wrote, and the parse check after
// the edit catches a table left behind.
func headerName(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return "", false
	}
	s = strings.TrimSpace(strings.Trim(s, "[]"))
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return strings.Join(parts, "."), true
}

// cutLine removes every whole line of text equal to line (which ends in a
// newline).
func cutLine(text, line string) (string, bool) {
	cut := false
	for i := 0; i+len(line) <= len(text); {
		j := strings.Index(text[i:], line)
		if j < 0 {
			break
		}
		at := i + j
		if at == 0 || text[at-1] == '\n' {
			text = text[:at] + text[at+len(line):]
			cut = true
			i = at
			continue
		}
		i = at + 1
	}
	return text, cut
}

// cutOnce removes the first occurrence of part from text.
func cutOnce(text, part string) (string, bool) {
	i := strings.Index(text, part)
	if i < 0 {
		return text, false
	}
	return text[:i] + text[i+len(part):], true
}

// decodeTOML parses a config.toml into its generic form.
func decodeTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.Decode(string(data), &m)
	return m, err
}

// ourServer returns the [mcp_servers.notesoup] table, nil when absent.
func ourServer(cfg map[string]any) map[string]any {
	servers, _ := cfg["mcp_servers"].(map[string]any)
	srv, _ := servers[serverName].(map[string]any)
	return srv
}

// ownServerKeys are the keys of a server table that notesoup's own entry
// may hold: what install writes, and what `codex mcp add` writes.
var ownServerKeys = map[string]bool{"command": true, "args": true, "env_vars": true, "tools": true}

// foreignServer says why a [mcp_servers.notesoup] table is not notesoup's
// own entry ("" when it is): its command must be a notesoup binary (bin,
// or a file named notesoup or notesoup-host), its args `mcp` with at most
// --harness NAME, and it must set nothing install would drop (a person's
// env, a timeout, a tool's other settings).
func foreignServer(srv map[string]any, bin string) string {
	cmd, _ := srv["command"].(string)
	base := strings.TrimSuffix(filepath.Base(cmd), ".exe")
	if cmd == "" || cmd != bin && base != "notesoup" && base != "notesoup-host" {
		return fmt.Sprintf("its command %q is not a notesoup binary", cmd)
	}
	raw, _ := srv["args"].([]any)
	args := make([]string, 0, len(raw))
	for _, a := range raw {
		s, ok := a.(string)
		if !ok {
			return "its args are not all strings"
		}
		args = append(args, s)
	}
	if len(args) == 0 || args[0] != "mcp" {
		return fmt.Sprintf("its args %q do not run notesoup mcp", args)
	}
	for rest := args[1:]; len(rest) > 0; {
		switch {
		case strings.HasPrefix(rest[0], "--harness="):
			rest = rest[1:]
		case rest[0] == "--harness" && len(rest) > 1:
			rest = rest[2:]
		default:
			return fmt.Sprintf("its args %q pass %q, which install would drop", args, rest[0])
		}
	}
	var extra []string
	for k := range srv {
		if !ownServerKeys[k] {
			extra = append(extra, k)
		}
	}
	tools, _ := srv["tools"].(map[string]any)
	if _, ok := srv["tools"]; ok && tools == nil {
		extra = append(extra, "tools")
	}
	for name, v := range tools {
		tm, _ := v.(map[string]any)
		for k := range tm {
			if k != "approval_mode" {
				extra = append(extra, "tools."+name+"."+k)
			}
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Sprintf("it sets %s, which install would drop", strings.Join(extra, ", "))
	}
	return ""
}

// runsNotesoupMCP reports whether a server table runs notesoup's MCP
// server (`<notesoup> mcp ...`), as install and `codex mcp add notesoup --
// notesoup mcp` write it.
func runsNotesoupMCP(srv map[string]any) bool {
	args, _ := srv["args"].([]any)
	return len(args) > 0 && args[0] == "mcp"
}

// without returns cfg without notesoup's server (when server is set) and
// without compact_prompt (when prompt is set); an mcp_servers left empty is
// dropped, since TOML cannot tell it from an absent one once its only table
// is gone.
func without(cfg map[string]any, server, prompt bool) map[string]any {
	out := make(map[string]any, len(cfg))
	for k, v := range cfg {
		out[k] = v
	}
	if prompt {
		delete(out, "compact_prompt")
	}
	if servers, ok := out["mcp_servers"].(map[string]any); ok && server {
		rest := make(map[string]any, len(servers))
		for k, v := range servers {
			if k != serverName {
				rest[k] = v
			}
		}
		out["mcp_servers"] = rest
	}
	if servers, ok := out["mcp_servers"].(map[string]any); ok && len(servers) == 0 {
		delete(out, "mcp_servers")
	}
	return out
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlStrings is a TOML array of basic strings.
func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// sameJSON compares two decoded values by their JSON form.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
