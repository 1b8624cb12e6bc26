package copilot

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/installfile"
	"github.com/notesoup/notesoup/shared/jsonedit"
)

// What `notesoup install copilot` writes into the Copilot CLI's home
// (~/.copilot, or $COPILOT_HOME), and what `notesoup uninstall copilot`
// takes out again:
//
//   - mcp-config.json: mcpServers.notesoup, a local (stdio) server running
//     `notesoup mcp --harness copilot` with all its tools, the file
//     `copilot mcp add` writes;
//   - settings.json: hooks.sessionStart, one command hook running
//     `notesoup hook copilot sessionStart` (hook.go), which answers the
//     boot block as additionalContext.
//
// Both files are edited as text (shared/jsonedit): comments, key order
// and layout stay, and uninstall after install gives back the same bytes;
// a file that held nothing but notesoup's is removed.

// Installer is the Copilot CLI installer: what `notesoup install copilot`
// and `notesoup uninstall copilot` run. Its directory flag names the
// .copilot folder itself (what COPILOT_HOME names).
var Installer = &harness.Installer{HomeFlag: "copilot-home", Home: Home, Install: Install, Uninstall: Uninstall}

const (
	// mcpConfigFile holds the user's MCP servers.
	mcpConfigFile = "mcp-config.json"
	// settingsFile holds the user's settings, hooks among them; the CLI
	// reads user settings only from here (1.0.102).
	settingsFile = "settings.json"
	// serverName is notesoup's key under mcpServers; the CLI names its
	// tools notesoup-<tool>.
	serverName = "notesoup"
	// hookTimeoutSec bounds one hook run (the CLI's unit is seconds). The
	// hook starts notesoup and reads the session: well under a second; the
	// slack covers a cold disk cache.
	hookTimeoutSec = 30
	// emptyFile is what install starts a file from when there is none,
	// and what, left over after uninstall, means the file held nothing
	// but notesoup's (it is then removed).
	emptyFile = "{\n}\n"
)

// installNote is said after an install that changed something.
const installNote = "The Copilot CLI reads mcp-config.json and settings.json at start: restart running copilot sessions. The sessionStart hook gives each new or resumed session the boot block; notesoup's tools are named notesoup-<tool>."

// mcpServer is the mcpServers.notesoup entry, in the order it is written.
// Tools ["*"] offers every notesoup tool; they touch only the notes under
// notesoup's home and read transcripts.
type mcpServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Tools   []string `json:"tools"`
}

func wantServer(bin string) mcpServer {
	return mcpServer{Type: "local", Command: bin, Args: []string{"mcp", "--harness", Name}, Tools: []string{"*"}}
}

// isOurServer reports whether an mcpServers.notesoup entry is one install
// wrote (with any binary): it runs "mcp --harness copilot".
func isOurServer(s mcpServer) bool { return slices.Equal(s.Args, wantServer("").Args) }

// hookConfig is one command hook of hooks.<event>, as the CLI's hook files
// (.github/hooks/*.json) and settings.json spell it.
type hookConfig struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	TimeoutSec int    `json:"timeoutSec,omitempty"`
}

func wantHook(bin, event string) hookConfig {
	return hookConfig{Type: "command", Bash: shellQuote(bin) + " " + hookArgs(event), TimeoutSec: hookTimeoutSec}
}

// hookArgs follows the binary in notesoup's hook command; it is how
// uninstall and a later install recognise notesoup's hook, whatever binary
// it runs.
func hookArgs(event string) string { return "hook " + Name + " " + event }

// isOurHook reports whether h is notesoup's hook for event.
func isOurHook(h hookConfig, event string) bool {
	return h.Type == "command" && strings.HasSuffix(h.Bash, " "+hookArgs(event))
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Install merges notesoup's MCP server into req.Home's mcp-config.json and
// its sessionStart hook into settings.json, both running req.Binary. It
// never replaces a person's own mcpServers.notesoup, and keeps every other
// server, hook and setting. Nothing is written unless both files can be.
func Install(req harness.InstallRequest) (harness.InstallReport, error) {
	return run(req, func(b []byte) ([]byte, []string, error) { return mergeServer(b, req.Binary) },
		func(b []byte) ([]byte, []string, error) { return mergeHooks(b, req.Binary) }, installNote)
}

// Uninstall removes what Install wrote from both files, keeping
// everything of the person's own; a file that held nothing else is
// removed. It never touches the notes.
func Uninstall(req harness.InstallRequest) (harness.InstallReport, error) {
	rep, err := run(req, unmergeServer, unmergeHooks, "")
	if err == nil {
		rep.Messages = append(rep.Messages, "The notes are kept.")
	}
	return rep, err
}

// run plans both files first, so a broken one stops the command before
// anything is written, then applies them.
func run(req harness.InstallRequest, server, hooks func([]byte) ([]byte, []string, error), note string) (harness.InstallReport, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	var changes []installfile.Change
	for _, f := range []struct {
		name string
		edit func([]byte) ([]byte, []string, error)
	}{{mcpConfigFile, server}, {settingsFile, hooks}} {
		c, msgs, err := installfile.Plan(filepath.Join(req.Home, f.name), f.edit)
		rep.Messages = append(rep.Messages, msgs...)
		if err != nil {
			return rep, err
		}
		if c.Old != nil && c.New == nil {
			c.Remove = true
			if c.Target != c.Path {
				// Keep a person's dotfiles link: empty its file instead.
				c.Remove, c.New = false, []byte(emptyFile)
				rep.Messages = append(rep.Messages, c.Path+" is a symbolic link: its file is emptied, not removed, and the link kept")
			}
		}
		changes = append(changes, c)
	}
	for _, c := range changes {
		if err := installfile.Apply(&rep, c); err != nil {
			return rep, err
		}
	}
	if note != "" && !req.DryRun && len(rep.Changed) > 0 {
		rep.Messages = append(rep.Messages, note)
	}
	return rep, nil
}

// startText is the text install edits: the file, or an empty object for a
// file that is missing or blank.
func startText(old []byte) []byte {
	if old == nil || strings.TrimSpace(string(old)) == "" {
		return []byte(emptyFile)
	}
	return old
}

// mergeServer adds mcpServers.notesoup to an mcp-config.json. A different
// entry of a person's own is refused, not replaced; one install wrote for
// another binary is updated and reported.
func mergeServer(old []byte, bin string) ([]byte, []string, error) {
	text := startText(old)
	d, err := jsonedit.Parse(text)
	if err != nil {
		return nil, nil, err
	}
	want := wantServer(bin)
	servers, ok := d.Root.Get("mcpServers")
	if !ok {
		return d.AddMember(d.Root, d.Root.Start, "mcpServers", map[string]mcpServer{serverName: want}), nil, nil
	}
	if servers.Value.Kind != '{' {
		return nil, nil, fmt.Errorf(`"mcpServers" is not an object; fix it first`)
	}
	cur, ok := servers.Value.Get(serverName)
	if !ok {
		return d.AddMember(servers.Value, servers.KeyStart, serverName, want), nil, nil
	}
	var have mcpServer
	if err := d.Decode(cur.Value, &have); err != nil || !isOurServer(have) {
		return nil, nil, fmt.Errorf(`mcpServers.notesoup is not one notesoup install wrote (it does not run "mcp --harness copilot"); rename or remove it, then install again`)
	}
	if have.Command == want.Command {
		return text, nil, nil // up to date; a tools list the person narrowed stays theirs
	}
	return d.Replace(cur.Value, want), []string{fmt.Sprintf("mcpServers.notesoup ran %s; it now runs %s", have.Command, bin)}, nil
}

// unmergeServer takes mcpServers.notesoup out again, and mcpServers when
// install created it; nil means nothing else was left (remove the file).
func unmergeServer(old []byte) ([]byte, []string, error) {
	if old == nil || strings.TrimSpace(string(old)) == "" {
		return old, nil, nil
	}
	d, err := jsonedit.Parse(old)
	if err != nil {
		return nil, nil, err
	}
	text, msgs := old, []string(nil)
	if servers, ok := d.Root.Get("mcpServers"); ok && servers.Value.Kind == '{' {
		if i := servers.Value.Index(serverName); i >= 0 {
			var have mcpServer
			if d.Decode(servers.Value.Members[i].Value, &have) != nil || !isOurServer(have) {
				msgs = append(msgs, `mcpServers.notesoup is kept: install did not write it (it does not run "mcp --harness copilot")`)
			} else if text, err = jsonedit.DropIfEmpty(d.RemoveMember(servers.Value, i), "mcpServers"); err != nil {
				return nil, nil, err
			}
		}
	}
	if string(text) == emptyFile {
		return nil, msgs, nil
	}
	return text, msgs, nil
}

// mergeHooks adds notesoup's hook to hooks.<event> of a settings.json for
// each of HookEvents; one install wrote for another binary is updated.
func mergeHooks(old []byte, bin string) ([]byte, []string, error) {
	text := startText(old)
	var msgs []string
	for _, event := range HookEvents {
		d, err := jsonedit.Parse(text)
		if err != nil {
			return nil, nil, err
		}
		want := wantHook(bin, event)
		hooks, ok := d.Root.Get("hooks")
		if !ok {
			text = d.AddMember(d.Root, d.Root.Start, "hooks", map[string][]hookConfig{event: {want}})
			continue
		}
		if hooks.Value.Kind != '{' {
			return nil, nil, fmt.Errorf(`"hooks" is not an object; fix it first`)
		}
		list, ok := hooks.Value.Get(event)
		if !ok {
			text = d.AddMember(hooks.Value, hooks.KeyStart, event, []hookConfig{want})
			continue
		}
		if list.Value.Kind != '[' {
			return nil, nil, fmt.Errorf(`"hooks.%s" is not an array; fix it first`, event)
		}
		i := ourHook(d, list.Value, event)
		if i < 0 {
			text = d.AddElem(list.Value, list.KeyStart, want)
			continue
		}
		var have hookConfig
		_ = d.Decode(list.Value.Elems[i], &have)
		if have.Bash != want.Bash {
			text = d.Replace(list.Value.Elems[i], want)
			msgs = append(msgs, fmt.Sprintf("hooks.%s: notesoup's hook ran %q; it now runs %q", event, have.Bash, want.Bash))
		}
	}
	return text, msgs, nil
}

// ourHook is the index of notesoup's hook in the array hooks.<event>, or -1.
func ourHook(d *jsonedit.Doc, list jsonedit.Node, event string) int {
	for i, e := range list.Elems {
		var h hookConfig
		if e.Kind == '{' && d.Decode(e, &h) == nil && isOurHook(h, event) {
			return i
		}
	}
	return -1
}

// unmergeHooks takes notesoup's hooks out of a settings.json, and each
// container install created; nil means nothing else was left.
func unmergeHooks(old []byte) ([]byte, []string, error) {
	if old == nil || strings.TrimSpace(string(old)) == "" {
		return old, nil, nil
	}
	text := old
	for _, event := range HookEvents {
		d, err := jsonedit.Parse(text)
		if err != nil {
			return nil, nil, err
		}
		hooks, ok := d.Root.Get("hooks")
		if !ok || hooks.Value.Kind != '{' {
			break
		}
		list, ok := hooks.Value.Get(event)
		if !ok || list.Value.Kind != '[' {
			continue
		}
		i := ourHook(d, list.Value, event)
		if i < 0 {
			continue
		}
		text = d.RemoveElem(list.Value, i)
		if d, err = jsonedit.Parse(text); err != nil {
			return nil, nil, err
		}
		hooks, _ = d.Root.Get("hooks")
		list, _ = hooks.Value.Get(event)
		if len(list.Value.Elems) == 0 && d.EmptyAsCreated(list.Value, list.KeyStart) {
			text = d.RemoveMember(hooks.Value, hooks.Value.Index(event))
			if text, err = jsonedit.DropIfEmpty(text, "hooks"); err != nil {
				return nil, nil, err
			}
		}
	}
	if string(text) == emptyFile {
		return nil, nil, nil
	}
	return text, nil, nil
}
