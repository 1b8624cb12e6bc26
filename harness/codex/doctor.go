package codex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/notesoup/notesoup/harness"
)

// Codex's rows of `notesoup doctor`: its version, whether config.toml has
// notesoup's MCP server (and its command exists), and whether each of
// notesoup's hooks in hooks.json is trusted. Codex runs a hook only once
// its trust is recorded in config.toml as
// [hooks.state."<hooks.json path>:<event>:<group>:<handler>"] with a
// trusted_hash equal to the hash of the hook as it is now (install_trust.go):
// a hook without one, or changed since, never runs, so no boot block
// arrives.

// TestedVersion is the Codex version notesoup's tests run (the pin in
// e2e/package.json).
const TestedVersion = "0.171.0"

// cliName is Codex's command.
const cliName = "codex"

// doctorConfig is the part of config.toml doctor reads.
type doctorConfig struct {
	MCPServers map[string]struct {
		Command string `toml:"command"`
	} `toml:"mcp_servers"`
	Hooks struct {
		State map[string]struct {
			TrustedHash string `toml:"trusted_hash"`
			Enabled     *bool  `toml:"enabled"`
		} `toml:"state"`
	} `toml:"hooks"`
}

// Doctor reports Codex's rows.
func Doctor(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	home, err := Home()
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckWarn, Detail: err.Error()}}
	}
	ver, onPath := harness.VersionCheck(ctx, env, Name, cliName, TestedVersion, "@openai/codex")
	if !onPath && !harness.Exists(home) {
		return []harness.Check{{Subject: Name, Item: "found", Status: harness.CheckSkip, Detail: "codex is not on PATH and " + home + " does not exist"}}
	}
	var out []harness.Check
	if onPath {
		out = append(out, ver)
	} else {
		out = append(out, harness.Check{Subject: Name, Item: "version", Status: harness.CheckWarn, Detail: "codex is not on PATH (" + home + " exists)"})
	}
	return append(out, DoctorChecks(home)...)
}

// DoctorChecks are the rows read from the Codex home: the MCP server and
// the hooks' trust.
func DoctorChecks(home string) []harness.Check {
	cfgPath := filepath.Join(home, configFile)
	raw, err := readOptional(cfgPath)
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckProblem, Detail: err.Error(), Fix: "fix or remove " + cfgPath}}
	}
	var cfg doctorConfig
	if _, err := toml.Decode(string(raw), &cfg); err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckProblem, Detail: fmt.Sprintf("%s: %v", cfgPath, err), Fix: "fix the TOML in " + cfgPath}}
	}
	srv := harness.Check{Subject: Name, Item: "mcp server"}
	s, ok := cfg.MCPServers[serverName]
	switch {
	case !ok:
		srv.Status, srv.Detail, srv.Fix = harness.CheckWarn, "config.toml has no [mcp_servers."+serverName+"]: notesoup is not installed in Codex", "notesoup install codex"
		return []harness.Check{srv}
	case !runnable(s.Command):
		srv.Status, srv.Detail, srv.Fix = harness.CheckProblem, fmt.Sprintf("[mcp_servers.%s] runs %q, which is not an executable file", serverName, s.Command), "notesoup install codex"
	default:
		srv.Status, srv.Detail = harness.CheckOK, fmt.Sprintf("[mcp_servers.%s] runs %s", serverName, s.Command)
	}
	return append([]harness.Check{srv}, trustChecks(home, cfg)...)
}

// runnable reports whether cmd names an executable: a path, or a name
// on PATH.
func runnable(cmd string) bool {
	if !strings.ContainsRune(cmd, os.PathSeparator) {
		return cmd != ""
	}
	fi, err := os.Stat(cmd)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// trustChecks reports notesoup's hooks in hooks.json and whether Codex
// recorded trust in each.
func trustChecks(home string, cfg doctorConfig) []harness.Check {
	path := filepath.Join(home, hooksFile)
	c := harness.Check{Subject: Name, Item: "hooks trusted"}
	raw, err := readOptional(path)
	if err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, err.Error(), "fix or remove "+path
		return []harness.Check{c}
	}
	trust, err := hooksTrust(home, raw)
	if err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, fmt.Sprintf("%s: %v", path, err), "fix the JSON in "+path
		return []harness.Check{c}
	}
	// Codex may key the file by the home as given or as resolved
	// (hooksTrust gives both): a hook is trusted when either is.
	type hookState struct{ trusted, changed, disabled bool }
	hooks := map[string]*hookState{}
	var names []string
	for _, t := range trust {
		name := t.Key[strings.LastIndex(t.Key, hooksFile+":")+len(hooksFile)+1:]
		hs := hooks[name]
		if hs == nil {
			hs = &hookState{}
			hooks[name] = hs
			names = append(names, name)
		}
		st, ok := cfg.Hooks.State[t.Key]
		switch {
		case !ok:
		case st.Enabled != nil && !*st.Enabled:
			hs.disabled = true
		case st.TrustedHash == t.Hash:
			hs.trusted = true
		case st.TrustedHash != "":
			hs.changed = true
		}
	}
	if len(names) == 0 {
		c.Item = "hooks"
		c.Status, c.Detail, c.Fix = harness.CheckProblem, path+" has no notesoup hooks: no boot block after a compaction", "notesoup install codex"
		return []harness.Check{c}
	}
	sort.Strings(names)
	var untrusted, changed, disabled []string
	for _, n := range names {
		switch hs := hooks[n]; {
		case hs.disabled:
			disabled = append(disabled, n)
		case hs.trusted:
		case hs.changed:
			changed = append(changed, n)
		default:
			untrusted = append(untrusted, n)
		}
	}
	switch {
	case len(untrusted)+len(changed) > 0:
		c.Status = harness.CheckProblem
		c.Detail = fmt.Sprintf("Codex will not run notesoup's hooks %s: no trust recorded for them in %s",
			strings.Join(append(untrusted, changed...), ", "), filepath.Join(home, configFile))
		if len(changed) > 0 {
			c.Detail += fmt.Sprintf(" (%s changed since trusted)", strings.Join(changed, ", "))
		}
		c.Detail += "; no notes boot block, budget warning or boot after a compaction reaches the model"
		c.Fix = "notesoup install codex  (records the trust), or start codex and choose \"Trust all and continue\""
	case len(disabled) > 0:
		c.Status = harness.CheckProblem
		c.Detail = fmt.Sprintf("notesoup's hooks %s are disabled in Codex", strings.Join(disabled, ", "))
		c.Fix = "codex, then /hooks, and enable them"
	default:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("%d notesoup hooks trusted", len(names))
	}
	return []harness.Check{c}
}

// snake turns a hook event name (SessionStart) into the form Codex keys
// trust by (session_start).
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// HooksBoot reports whether notesoup's hooks run in the Codex home (Home):
// installed, enabled and trusted as they are now, so the SessionStart hook
// brings each window its boot block. why says what is missing when they do
// not. The MCP server asks, to put a boot block in its instructions only
// when no hook brings one (one boot per window). A codex run with
// --dangerously-bypass-hook-trust runs untrusted hooks, which this cannot
// see: such a run gets both boots.
func HooksBoot() (ok bool, why string) {
	home, err := Home()
	if err != nil {
		return false, err.Error()
	}
	rows := DoctorChecks(home)
	for _, r := range rows {
		if r.Item == "hooks trusted" && r.Status == harness.CheckOK {
			return true, ""
		}
	}
	last := rows[len(rows)-1]
	return false, last.Detail
}
