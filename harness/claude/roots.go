package claude

import (
	"fmt"
	"os"
	"path/filepath"
)

// ConfigDirEnv overrides Claude Code's config directory (~/.claude); Claude
// Code then writes transcripts under $CLAUDE_CONFIG_DIR/projects.
const ConfigDirEnv = "CLAUDE_CONFIG_DIR"

// DefaultRoot is where Claude Code writes transcripts on this machine:
// $CLAUDE_CONFIG_DIR/projects when set, else ~/.claude/projects.
func DefaultRoot() (string, error) {
	return rootFrom(os.Getenv, os.UserHomeDir)
}

func rootFrom(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv(ConfigDirEnv); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("%s=%q: %w", ConfigDirEnv, d, err)
		}
		return filepath.Join(abs, "projects"), nil
	}
	h, err := home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home directory for ~/.claude/projects (set HOME or %s): %w", ConfigDirEnv, err)
	}
	return filepath.Join(h, ".claude", "projects"), nil
}
