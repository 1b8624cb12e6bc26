package gemini

import (
	"fmt"
	"slices"
	"strings"
)

// What `notesoup install gemini` puts into settings.json, and how
// uninstall finds it again: the MCP server mcpServers.notesoup and one
// notesoup hook group per event under hooks.<event>.

// serverName is notesoup's key under mcpServers; the CLI names its tools
// mcp_notesoup_<tool> in hook matchers.
const serverName = "notesoup"

// hookTimeoutMs bounds one hook run (Gemini's unit is milliseconds, its
// default 60 s). The hook starts notesoup and reads the chat: well under a
// second here; the slack covers a cold disk cache.
const hookTimeoutMs = 30_000

// mcpServer is the mcpServers.notesoup entry, in the order it is written.
// Trust lets Gemini run notesoup's tools without asking each time: in
// headless runs (-p) without it the CLI leaves tools that need approval
// out of the request altogether. notesoup's tools touch only the notes
// under notesoup's home and read transcripts.
type mcpServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Trust   bool     `json:"trust"`
}

func wantServer(bin string) mcpServer {
	return mcpServer{Command: bin, Args: []string{"mcp", "--harness", Name}, Trust: true}
}

// isOurServer reports whether an mcpServers.notesoup entry is one install
// wrote (with any binary): it runs "mcp --harness gemini".
func isOurServer(s mcpServer) bool {
	return slices.Equal(s.Args, wantServer("").Args)
}

// hookGroup is one matcher group of hooks.<event>.
type hookGroup struct {
	Matcher string       `json:"matcher,omitempty"`
	Hooks   []hookConfig `json:"hooks"`
}

// hookConfig is one hook command.
type hookConfig struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

func wantGroup(bin, event string) hookGroup {
	return hookGroup{Hooks: []hookConfig{{Name: serverName, Type: "command", Command: hookCommand(bin, event), Timeout: hookTimeoutMs}}}
}

// hookCommand is the shell command Gemini runs for event.
func hookCommand(bin, event string) string { return shellQuote(bin) + " " + hookArgs(event) }

// hookArgs follows the binary in notesoup's hook command; it is how
// uninstall and a later install recognise notesoup's hooks, whatever
// binary they run.
func hookArgs(event string) string { return "hook " + Name + " " + event }

// ourGroup reports whether a matcher group holds notesoup's hook for event
// and nothing else, and returns its command.
func ourGroup(g hookGroup, event string) (string, bool) {
	if len(g.Hooks) != 1 || !strings.HasSuffix(g.Hooks[0].Command, " "+hookArgs(event)) {
		return "", false
	}
	return g.Hooks[0].Command, true
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

// emptyFile is what install starts a settings file from when there is
// none, and what, left over after uninstall, means the file held nothing
// but notesoup's (it is then removed).
const emptyFile = "{\n}\n"

// mergeSettings adds notesoup's MCP server and hooks to a settings.json
// (old nil: none yet), keeping everything else byte for byte. A different
// mcpServers.notesoup of a person's own is refused, not replaced; one
// install wrote for another binary is updated and reported.
func mergeSettings(old []byte, bin string) ([]byte, []string, error) {
	text := old
	if old == nil || strings.TrimSpace(string(old)) == "" {
		text = []byte(emptyFile)
	}
	var msgs []string
	text, msg, err := mergeServer(text, bin)
	if err != nil {
		return nil, nil, err
	}
	msgs = append(msgs, msg...)
	for _, ev := range HookEvents {
		text, msg, err = mergeHook(text, bin, ev)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, msg...)
	}
	return text, msgs, nil
}

func mergeServer(text []byte, bin string) ([]byte, []string, error) {
	d, err := parseDoc(text)
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
		return nil, nil, fmt.Errorf(`mcpServers.notesoup is not one notesoup install wrote (it does not run "mcp --harness gemini"); rename or remove it, then install again`)
	}
	if have.Command == want.Command {
		// Up to date; a trust the person changed is theirs to keep.
		return text, nil, nil
	}
	return d.Replace(cur.Value, want), []string{fmt.Sprintf("mcpServers.notesoup ran %s; it now runs %s", have.Command, bin)}, nil
}

func mergeHook(text []byte, bin, event string) ([]byte, []string, error) {
	d, err := parseDoc(text)
	if err != nil {
		return nil, nil, err
	}
	group := wantGroup(bin, event)
	hooks, ok := d.Root.Get("hooks")
	if !ok {
		return d.AddMember(d.Root, d.Root.Start, "hooks", map[string][]hookGroup{event: {group}}), nil, nil
	}
	if hooks.Value.Kind != '{' {
		return nil, nil, fmt.Errorf(`"hooks" is not an object; fix it first`)
	}
	groups, ok := hooks.Value.Get(event)
	if !ok {
		return d.AddMember(hooks.Value, hooks.KeyStart, event, []hookGroup{group}), nil, nil
	}
	if groups.Value.Kind != '[' {
		return nil, nil, fmt.Errorf(`"hooks.%s" is not an array; fix it first`, event)
	}
	for _, e := range groups.Value.Elems {
		var g hookGroup
		if e.Kind != '{' || d.Decode(e, &g) != nil {
			continue
		}
		cmd, ours := ourGroup(g, event)
		if !ours {
			continue
		}
		if cmd == group.Hooks[0].Command {
			return text, nil, nil
		}
		return d.Replace(e, group), []string{fmt.Sprintf("hooks.%s: notesoup's hook ran %q; it now runs %q", event, cmd, group.Hooks[0].Command)}, nil
	}
	return d.AddElem(groups.Value, groups.KeyStart, group), nil, nil
}

// unmergeSettings takes out of a settings.json what mergeSettings put in:
// notesoup's MCP server and hook groups, and each container (mcpServers,
// hooks, hooks.<event>) left as install would have created it. What
// remains is the file as it was before install, byte for byte, when
// nothing else changed. nil means the file held only notesoup's (remove
// it).
func unmergeSettings(old []byte) ([]byte, []string, error) {
	if old == nil {
		return nil, nil, nil
	}
	if strings.TrimSpace(string(old)) == "" {
		return old, nil, nil
	}
	text := old
	var msgs []string
	for _, ev := range HookEvents {
		var err error
		if text, err = unmergeHook(text, ev); err != nil {
			return nil, nil, err
		}
	}
	d, err := parseDoc(text)
	if err != nil {
		return nil, nil, err
	}
	if servers, ok := d.Root.Get("mcpServers"); ok && servers.Value.Kind == '{' {
		for i, m := range servers.Value.Members {
			var have mcpServer
			if m.Key != serverName {
				continue
			}
			if d.Decode(m.Value, &have) != nil || !isOurServer(have) {
				msgs = append(msgs, `mcpServers.notesoup is kept: install did not write it (it does not run "mcp --harness gemini")`)
				break
			}
			text = d.RemoveMember(servers.Value, i)
			text, err = dropIfEmpty(text, "mcpServers")
			if err != nil {
				return nil, nil, err
			}
			break
		}
	}
	if string(text) == emptyFile {
		return nil, msgs, nil
	}
	return text, msgs, nil
}

// unmergeHook removes notesoup's group from hooks.<event>.
func unmergeHook(text []byte, event string) ([]byte, error) {
	d, err := parseDoc(text)
	if err != nil {
		return nil, err
	}
	hooks, ok := d.Root.Get("hooks")
	if !ok || hooks.Value.Kind != '{' {
		return text, nil
	}
	groups, ok := hooks.Value.Get(event)
	if !ok || groups.Value.Kind != '[' {
		return text, nil
	}
	for i, e := range groups.Value.Elems {
		var g hookGroup
		if e.Kind != '{' || d.Decode(e, &g) != nil {
			continue
		}
		if _, ours := ourGroup(g, event); !ours {
			continue
		}
		text = d.RemoveElem(groups.Value, i)
		d, err = parseDoc(text)
		if err != nil {
			return nil, err
		}
		hooks, _ = d.Root.Get("hooks")
		groups, _ = hooks.Value.Get(event)
		if len(groups.Value.Elems) == 0 && d.EmptyAsCreated(groups.Value, groups.KeyStart) {
			text = d.RemoveMember(hooks.Value, hooks.Value.Index(event))
			return dropIfEmpty(text, "hooks")
		}
		return text, nil
	}
	return text, nil
}

// dropIfEmpty removes the top-level member key when its object is empty
// the way install leaves one it created.
func dropIfEmpty(text []byte, key string) ([]byte, error) {
	d, err := parseDoc(text)
	if err != nil {
		return nil, err
	}
	for i, m := range d.Root.Members {
		if m.Key == key && m.Value.Kind == '{' && len(m.Value.Members) == 0 && d.EmptyAsCreated(m.Value, m.KeyStart) {
			return d.RemoveMember(d.Root, i), nil
		}
	}
	return text, nil
}
