package codex

import (
	"context"
	"encoding/json"
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
// notesoup's hooks in hooks.json is trusted. Codex runs a hook only once a
// person trusted it, and records that in config.toml as
// [hooks.state."<hooks.json path>:<event>:<group>:<handler>"] with a
// trusted_hash (event in snake case, group and handler counted from 0): a
// hook without one never runs, so no boot block arrives. The hash itself
// is Codex's own; doctor checks that trust was recorded, and Codex asks
// again when a hook changed since.

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
	keys, err := notesoupHookKeys(raw, path)
	if err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, fmt.Sprintf("%s: %v", path, err), "fix the JSON in "+path
		return []harness.Check{c}
	}
	if len(keys) == 0 {
		c.Item = "hooks"
		c.Status, c.Detail, c.Fix = harness.CheckProblem, path+" has no notesoup hooks: no boot block after a compaction", "notesoup install codex"
		return []harness.Check{c}
	}
	// Codex may key the file by the path as given or as resolved.
	alt := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		alt = r
	}
	var untrusted, disabled []string
	for _, k := range keys {
		st, ok := cfg.Hooks.State[k]
		if !ok {
			st, ok = cfg.Hooks.State[alt+strings.TrimPrefix(k, path)]
		}
		switch {
		case !ok || st.TrustedHash == "":
			untrusted = append(untrusted, k[len(path)+1:])
		case st.Enabled != nil && !*st.Enabled:
			disabled = append(disabled, k[len(path)+1:])
		}
	}
	switch {
	case len(untrusted) > 0:
		c.Status = harness.CheckProblem
		c.Detail = fmt.Sprintf("Codex has no trust recorded for notesoup's hooks %s in %s: it will not run them", strings.Join(untrusted, ", "), filepath.Join(home, configFile))
		c.Fix = "codex  (start it once and choose \"Trust all and continue\" when it lists the new hooks; automation passes --dangerously-bypass-hook-trust)"
	case len(disabled) > 0:
		c.Status = harness.CheckProblem
		c.Detail = fmt.Sprintf("notesoup's hooks %s are disabled in Codex", strings.Join(disabled, ", "))
		c.Fix = "codex, then /hooks, and enable them"
	default:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("%d notesoup hooks trusted", len(keys))
	}
	return []harness.Check{c}
}

// notesoupHookKeys returns the trust keys of notesoup's hooks in a
// hooks.json: "<path>:<event in snake case>:<group>:<handler>".
func notesoupHookKeys(raw []byte, path string) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	var keys []string
	for ev, groups := range doc.Hooks {
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				if isNotesoupHook(h.Command, ev) {
					keys = append(keys, fmt.Sprintf("%s:%s:%d:%d", path, snake(ev), gi, hi))
				}
			}
		}
	}
	sort.Strings(keys)
	return keys, nil
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
