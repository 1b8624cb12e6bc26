package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/installfile"
	"github.com/notesoup/notesoup/shared/jsonedit"
)

// The Copilot CLI's rows of `notesoup doctor`: its version, whether
// mcp-config.json has notesoup's MCP server (install's, its command
// runnable) and settings.json notesoup's sessionStart hook (without it no
// boot block arrives). No retention row: notesoup knows of no setting of
// the Copilot CLI 1.0.102 that deletes sessions.

// TestedVersion is the Copilot CLI version notesoup's tests run (the pin
// in e2e/package.json).
const TestedVersion = "1.0.102"

// cliName is the Copilot CLI's command; npmPackage its npm package.
const (
	cliName    = "copilot"
	npmPackage = "@github/copilot"
)

// Doctor reports the Copilot CLI's rows.
func Doctor(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	home, err := Home()
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckWarn, Detail: err.Error()}}
	}
	ver, onPath := harness.VersionCheck(ctx, env, Name, cliName, TestedVersion, npmPackage)
	if !onPath && !harness.Exists(home) {
		return []harness.Check{{Subject: Name, Item: "found", Status: harness.CheckSkip, Detail: "copilot is not on PATH and " + home + " does not exist"}}
	}
	var out []harness.Check
	if onPath {
		out = append(out, ver)
	} else {
		out = append(out, harness.Check{Subject: Name, Item: "version", Status: harness.CheckWarn, Detail: "copilot is not on PATH (" + home + " exists)"})
	}
	return append(out, doctorChecks(home)...)
}

// doctorChecks are the rows read from the Copilot home: the MCP server and
// the hook.
func doctorChecks(home string) []harness.Check {
	cfgPath := filepath.Join(home, mcpConfigFile)
	var cfg struct {
		MCPServers map[string]mcpServer `json:"mcpServers"`
	}
	if err := readJSONC(cfgPath, &cfg); err != nil {
		return []harness.Check{{Subject: Name, Item: "mcp config", Status: harness.CheckProblem, Detail: err.Error(), Fix: "fix the JSON in " + cfgPath}}
	}
	srv := harness.Check{Subject: Name, Item: "mcp server"}
	s, ok := cfg.MCPServers[serverName]
	switch {
	case !ok:
		srv.Status, srv.Detail, srv.Fix = harness.CheckWarn, cfgPath+" has no mcpServers."+serverName+": notesoup is not installed in the Copilot CLI", "notesoup install copilot"
	case !isOurServer(s):
		srv.Status, srv.Detail = harness.CheckWarn, fmt.Sprintf("mcpServers.%s runs %q %q, not notesoup's MCP server for copilot (mcp --harness copilot)", serverName, s.Command, s.Args)
		srv.Fix = "rename or remove mcpServers." + serverName + " in " + cfgPath + ", then notesoup install copilot"
	case !runnable(s.Command):
		srv.Status, srv.Detail, srv.Fix = harness.CheckProblem, fmt.Sprintf("mcpServers.%s runs %q, which is not an executable file", serverName, s.Command), "notesoup install copilot"
	default:
		srv.Status, srv.Detail = harness.CheckOK, fmt.Sprintf("mcpServers.%s runs %s", serverName, s.Command)
	}
	return []harness.Check{srv, hookCheck(home, ok)}
}

// hookCheck says whether settings.json has notesoup's sessionStart hook,
// running an executable. Missing is a warning when the server is missing
// too (notesoup not installed: the server's row says so), else a problem.
func hookCheck(home string, serverInstalled bool) harness.Check {
	path := filepath.Join(home, settingsFile)
	c := harness.Check{Subject: Name, Item: "hook"}
	var s struct {
		Hooks map[string][]hookConfig `json:"hooks"`
	}
	if err := readJSONC(path, &s); err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, err.Error(), "fix the JSON in "+path
		return c
	}
	cmd := ""
	for _, h := range s.Hooks[SessionStart] {
		if isOurHook(h, SessionStart) {
			cmd = h.Bash
			break
		}
	}
	switch {
	case cmd == "" && !serverInstalled:
		c.Status, c.Detail, c.Fix = harness.CheckWarn, path+" has no notesoup hook for "+SessionStart, "notesoup install copilot"
	case cmd == "":
		c.Status, c.Detail, c.Fix = harness.CheckProblem, path+" has no notesoup hook for "+SessionStart+": sessions start without the boot block", "notesoup install copilot"
	case !runnable(hookBinary(cmd)):
		c.Status, c.Detail, c.Fix = harness.CheckProblem, fmt.Sprintf("notesoup's %s hook runs %q, whose binary is not an executable file", SessionStart, cmd), "notesoup install copilot"
	default:
		c.Status, c.Detail = harness.CheckOK, "notesoup's "+SessionStart+" hook runs "+hookBinary(cmd)
	}
	return c
}

// readJSONC decodes a JSON-with-comments file into v (bounded, a regular
// file only); a missing or empty file leaves v as it is.
func readJSONC(path string, v any) error {
	raw, err := installfile.ReadOptional(path)
	if err != nil || len(raw) == 0 {
		return err
	}
	plain := jsonedit.BlankComments(raw)
	if err := jsonedit.CheckJSON(plain); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// hookBinary is the binary of a hook command install wrote: the command
// before " hook copilot <event>", unquoted.
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
