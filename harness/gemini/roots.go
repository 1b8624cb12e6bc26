package gemini

import (
	"fmt"
	"os"
	"path/filepath"
)

// envHome replaces the home directory the Gemini CLI keeps .gemini/ in
// (its homedir(): GEMINI_CLI_HOME, else the user's home).
const envHome = "GEMINI_CLI_HOME"

// Home returns the Gemini CLI's .gemini directory: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func Home() (string, error) {
	return home(os.Getenv, os.UserHomeDir)
}

// DefaultRoots returns the folder of the per-project folders, .gemini/tmp:
// each holds chats/ and .project_root.
func DefaultRoots() ([]string, error) {
	h, err := Home()
	if err != nil {
		return nil, err
	}
	return []string{filepath.Join(h, "tmp")}, nil
}

func home(getenv func(string) string, userHome func() (string, error)) (string, error) {
	if h := getenv(envHome); h != "" {
		return filepath.Join(filepath.Clean(h), ".gemini"), nil
	}
	u, err := userHome()
	if err != nil {
		return "", fmt.Errorf("gemini sessions: no home directory to find ~/.gemini (%v); set %s", err, envHome)
	}
	return filepath.Join(u, ".gemini"), nil
}
