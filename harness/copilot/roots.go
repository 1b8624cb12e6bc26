package copilot

import (
	"fmt"
	"os"
	"path/filepath"
)

// envHome replaces the directory the Copilot CLI keeps its configuration
// and state in (default ~/.copilot), as `copilot help environment` says.
const envHome = "COPILOT_HOME"

// Home returns the Copilot CLI's state directory: $COPILOT_HOME, else
// ~/.copilot.
func Home() (string, error) {
	return home(os.Getenv, os.UserHomeDir)
}

// DefaultRoots returns the folder of the session folders,
// <home>/session-state: each holds events.jsonl and workspace.yaml.
func DefaultRoots() ([]string, error) {
	h, err := Home()
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(h, "session-state")}, nil
}

func home(getenv func(string) string, userHome func() (string, error)) (string, error) {
	if h := getenv(envHome); h != "" {
		return filepath.Clean(h), nil
	}
	u, err := userHome()
	if err != nil {
		return "", fmt.Errorf("copilot sessions: no home directory to find ~/.copilot (%v); set %s", err, envHome)
	}
	return filepath.Join(u, ".copilot"), nil
}
