package pi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Environment variables and files pi reads to place its sessions (pi.md §2).
const (
	envAgentDir   = "PI_CODING_AGENT_DIR"         // relocates the whole agent dir
	envSessionDir = "PI_CODING_AGENT_SESSION_DIR" // flat session dir override
	settingsFile  = "settings.json"               // in the agent dir; key "sessionDir"
)

// AgentDir returns pi's agent directory: $PI_CODING_AGENT_DIR, else
// ~/.pi/agent.
func AgentDir() (string, error) {
	return agentDir(os.Getenv, os.UserHomeDir)
}

// DefaultRoots returns the directories pi writes sessions to, in the order
// pi prefers them: $PI_CODING_AGENT_SESSION_DIR, the agent settings'
// "sessionDir", then <agentDir>/sessions (kept even with an override, since
// sessions written before the override still live there). A --session-dir
// given on pi's command line is not visible here; pass it as a root.
func DefaultRoots() ([]string, error) {
	return defaultRoots(os.Getenv, os.UserHomeDir)
}

func agentDir(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv(envAgentDir); d != "" {
		return expandHome(d, home)
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("pi sessions: no home directory to find ~/.pi/agent (%v); set %s", err, envAgentDir)
	}
	return filepath.Join(h, ".pi", "agent"), nil
}

func defaultRoots(getenv func(string) string, home func() (string, error)) ([]string, error) {
	dir, err := agentDir(getenv, home)
	if err != nil {
		return nil, err
	}
	var roots []string
	if d := getenv(envSessionDir); d != "" {
		if d, err = expandHome(d, home); err != nil {
			return nil, err
		}
		roots = append(roots, d)
	}
	if d, err := settingsSessionDir(dir, home); err != nil {
		return nil, err
	} else if d != "" {
		roots = append(roots, d)
	}
	roots = append(roots, filepath.Join(dir, "sessions"))
	return dedupe(roots), nil
}

// settingsSessionDir reads "sessionDir" from <agentDir>/settings.json. A
// missing file or key is no override; an unreadable or invalid file is an
// error, since silently ignoring it could hide every session. A relative
// value is taken relative to the agent dir.
func settingsSessionDir(agentDir string, home func() (string, error)) (string, error) {
	path := filepath.Join(agentDir, settingsFile)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("pi sessions: read %s: %w", path, err)
	}
	var s struct {
		SessionDir *string `json:"sessionDir"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return "", fmt.Errorf("pi sessions: %s is not valid JSON (%v); fix it or pass the session roots explicitly", path, err)
	}
	if s.SessionDir == nil || *s.SessionDir == "" {
		return "", nil
	}
	d, err := expandHome(*s.SessionDir, home)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(agentDir, d)
	}
	return d, nil
}

// expandHome replaces a leading "~/" with the home directory.
func expandHome(p string, home func() (string, error)) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return filepath.Clean(p), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("pi sessions: cannot expand %q without a home directory: %v", p, err)
	}
	return filepath.Join(h, strings.TrimPrefix(p, "~")), nil
}

func dedupe(paths []string) []string {
	seen := map[string]bool{}
	out := paths[:0]
	for _, p := range paths {
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
