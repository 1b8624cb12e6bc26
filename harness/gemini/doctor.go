package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/installfile"
	"github.com/notesoup/notesoup/shared/jsonedit"
)

// The Gemini CLI's rows of `notesoup doctor`: its version, whether
// settings.json has notesoup's MCP server (not excluded by mcp.allowed or
// mcp.excluded, its command runnable) and notesoup's hooks (hooks enabled,
// notesoup's not in hooksConfig.disabled; without SessionStart no boot
// block arrives), and whether the CLI will delete chats
// (general.sessionRetention, on with maxAge "30d" unless set in 0.61.0:
// its settings schema's defaults), which history search would lose.

// TestedVersion is the Gemini CLI version notesoup's tests run (the pin in
// e2e/package.json).
const TestedVersion = "0.61.0"

// cliName is the Gemini CLI's command; npmPackage its npm package.
const (
	cliName    = "gemini"
	npmPackage = "@google/gemini-cli"
)

// doctorSettings is the part of settings.json doctor reads.
type doctorSettings struct {
	MCPServers map[string]mcpServer `json:"mcpServers"`
	MCP        struct {
		Allowed  []string `json:"allowed"`
		Excluded []string `json:"excluded"`
	} `json:"mcp"`
	HooksConfig struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	} `json:"hooksConfig"`
	Hooks map[string][]hookGroup `json:"hooks"`
}

// Doctor reports the Gemini CLI's rows.
func Doctor(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	dir, err := Home()
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckWarn, Detail: err.Error()}}
	}
	ver, onPath := harness.VersionCheck(ctx, env, Name, cliName, TestedVersion, npmPackage)
	if !onPath && !harness.Exists(dir) {
		return []harness.Check{{Subject: Name, Item: "found", Status: harness.CheckSkip, Detail: "gemini is not on PATH and " + dir + " does not exist"}}
	}
	var out []harness.Check
	if onPath {
		out = append(out, ver)
	} else {
		out = append(out, harness.Check{Subject: Name, Item: "version", Status: harness.CheckWarn, Detail: "gemini is not on PATH (" + dir + " exists)"})
	}
	return append(out, doctorChecks(ctx, dir)...)
}

// doctorChecks are the rows read from the .gemini folder dir (Home: the
// retention row reads the same settings through Retention): the MCP
// server, the hooks and the chat retention.
func doctorChecks(ctx context.Context, dir string) []harness.Check {
	path := filepath.Join(dir, settingsFile)
	s, err := readDoctorSettings(path)
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "settings", Status: harness.CheckProblem, Detail: err.Error(), Fix: "fix the JSON in " + path}}
	}
	out := []harness.Check{serverCheck(s, path)}
	if out[0].Status == harness.CheckWarn && len(s.MCPServers) == 0 && !anyHook(s) {
		// Not installed at all: one row says so; the hooks' would repeat it.
		return append(out, retentionCheck(ctx, dir, path))
	}
	out = append(out, hookChecks(s, path)...)
	return append(out, retentionCheck(ctx, dir, path))
}

// readDoctorSettings reads settings.json (JSON with comments, bounded, a
// regular file only); a missing file is empty settings.
func readDoctorSettings(path string) (doctorSettings, error) {
	var s doctorSettings
	raw, err := installfile.ReadOptional(path)
	if err != nil || len(raw) == 0 {
		return s, err
	}
	plain := jsonedit.BlankComments(raw)
	if err := jsonedit.CheckJSON(plain); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	if err := json.Unmarshal(plain, &s); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// serverCheck says whether mcpServers.notesoup is install's, runs an
// executable, and is not left out by mcp.allowed or mcp.excluded.
func serverCheck(s doctorSettings, path string) harness.Check {
	c := harness.Check{Subject: Name, Item: "mcp server"}
	srv, ok := s.MCPServers[serverName]
	switch {
	case !ok:
		c.Status, c.Detail, c.Fix = harness.CheckWarn, path+" has no mcpServers."+serverName+": notesoup is not installed in the Gemini CLI", "notesoup install gemini"
	case !isOurServer(srv):
		c.Status, c.Detail = harness.CheckWarn, fmt.Sprintf("mcpServers.%s runs %q %q, not notesoup's MCP server for gemini (mcp --harness gemini)", serverName, srv.Command, srv.Args)
		c.Fix = "rename or remove mcpServers." + serverName + " in " + path + ", then notesoup install gemini"
	case !runnable(srv.Command):
		c.Status, c.Detail, c.Fix = harness.CheckProblem, fmt.Sprintf("mcpServers.%s runs %q, which is not an executable file", serverName, srv.Command), "notesoup install gemini"
	case slices.Contains(s.MCP.Excluded, serverName):
		c.Status, c.Detail = harness.CheckProblem, "mcp.excluded lists "+serverName+": the Gemini CLI does not start notesoup's tools"
		c.Fix = "take " + serverName + " out of mcp.excluded in " + path
	case len(s.MCP.Allowed) > 0 && !slices.Contains(s.MCP.Allowed, serverName):
		c.Status, c.Detail = harness.CheckProblem, "mcp.allowed does not list "+serverName+": the Gemini CLI does not start notesoup's tools"
		c.Fix = "add " + serverName + " to mcp.allowed in " + path
	default:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("mcpServers.%s runs %s", serverName, srv.Command)
	}
	return c
}

// anyHook reports whether settings.json holds any of notesoup's hooks.
func anyHook(s doctorSettings) bool {
	for _, ev := range HookEvents {
		if _, ok := findHook(s, ev); ok {
			return true
		}
	}
	return false
}

// findHook returns notesoup's hook command for event, if settings.json has it.
func findHook(s doctorSettings, event string) (string, bool) {
	for _, g := range s.Hooks[event] {
		if cmd, ok := ourGroup(g, event); ok {
			return cmd, true
		}
	}
	return "", false
}

// hookChecks says whether the Gemini CLI runs notesoup's hooks: the hooks
// system on, each of HookEvents present and not disabled by name.
// SessionStart missing is a problem (no boot block); the others carry the
// budget warning.
func hookChecks(s doctorSettings, path string) []harness.Check {
	c := harness.Check{Subject: Name, Item: "hooks"}
	if s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled {
		c.Status, c.Detail = harness.CheckProblem, "hooksConfig.enabled is false: the Gemini CLI runs no hooks, so no boot block and no budget warning"
		c.Fix = "set hooksConfig.enabled to true in " + path + " (or remove it)"
		return []harness.Check{c}
	}
	if slices.Contains(s.HooksConfig.Disabled, serverName) {
		c.Status, c.Detail = harness.CheckProblem, "hooksConfig.disabled lists "+serverName+": the Gemini CLI skips notesoup's hooks"
		c.Fix = "take " + serverName + " out of hooksConfig.disabled in " + path
		return []harness.Check{c}
	}
	var missing, notRunnable []string
	for _, ev := range HookEvents {
		cmd, ok := findHook(s, ev)
		switch {
		case !ok:
			missing = append(missing, ev)
		case !runnable(hookBinary(cmd)):
			notRunnable = append(notRunnable, ev)
		}
	}
	switch {
	case slices.Contains(missing, SessionStart):
		c.Status, c.Detail = harness.CheckProblem, path+" has no notesoup hook for "+SessionStart+": sessions start without the boot block"
		c.Fix = "notesoup install gemini"
	case len(notRunnable) > 0:
		c.Status, c.Detail = harness.CheckProblem, "notesoup's hooks for "+strings.Join(notRunnable, ", ")+" run a binary that is not an executable file"
		c.Fix = "notesoup install gemini"
	case len(missing) > 0:
		c.Status, c.Detail = harness.CheckWarn, path+" has no notesoup hook for "+strings.Join(missing, ", ")+": no budget warning"
		c.Fix = "notesoup install gemini"
	default:
		c.Status, c.Detail = harness.CheckOK, "notesoup's hooks for "+strings.Join(HookEvents, ", ")
	}
	return []harness.Check{c}
}

// retentionCheck reports whether the Gemini CLI will delete chats
// (Retention, retention.go).
func retentionCheck(ctx context.Context, dir, path string) harness.Check {
	c := harness.Check{Subject: Name, Item: "transcript retention"}
	r := Retention(ctx, []string{filepath.Join(dir, "tmp")})
	note := ""
	if r.Note != "" {
		note = " (" + r.Note + ")"
	}
	if !r.Deletes {
		c.Status, c.Detail = harness.CheckOK, r.Setting+": chats are kept"+note
		return c
	}
	c.Status = harness.CheckProblem
	c.Detail = r.Setting + ": the Gemini CLI deletes older chats at startup, and history search loses them" + note
	if harness.Exists(path) {
		c.Fix = `set "general": {"sessionRetention": {"enabled": false}} in ` + path
	} else {
		c.Fix = fmt.Sprintf(`printf '{"general": {"sessionRetention": {"enabled": false}}}\n' > %s`, path)
	}
	return c
}

// hookBinary is the binary of a hook command install wrote: the command
// before " hook gemini <event>", unquoted.
func hookBinary(cmd string) string {
	bin, _, _ := strings.Cut(cmd, " hook "+Name+" ")
	if len(bin) >= 2 && bin[0] == '\'' && bin[len(bin)-1] == '\'' {
		bin = strings.ReplaceAll(bin[1:len(bin)-1], `'\''`, "'")
	}
	return bin
}

// runnable reports whether cmd names an executable: a path to an
// executable regular file, or a bare name (found on PATH when run).
func runnable(cmd string) bool {
	if !strings.ContainsRune(cmd, os.PathSeparator) {
		return cmd != ""
	}
	fi, err := os.Stat(cmd)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
