package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// envHome relocates Codex's home (default ~/.codex), which holds sessions/
// and archived_sessions/ (codex.md §2).
const envHome = "CODEX_HOME"

// Home returns $CODEX_HOME, else ~/.codex.
func Home() (string, error) {
	return home(os.Getenv, os.UserHomeDir)
}

// DefaultRoots returns $CODEX_HOME/sessions (date directories) and
// $CODEX_HOME/archived_sessions (flat, where `codex archive` moves files).
func DefaultRoots() ([]string, error) {
	h, err := Home()
	if err != nil {
		return nil, err
	}
	return rootsUnder(h), nil
}

func rootsUnder(h string) []string {
	return []string{filepath.Join(h, "sessions"), filepath.Join(h, "archived_sessions")}
}

func home(getenv func(string) string, userHome func() (string, error)) (string, error) {
	if h := getenv(envHome); h != "" {
		return filepath.Clean(h), nil
	}
	u, err := userHome()
	if err != nil {
		return "", fmt.Errorf("codex sessions: no home directory to find ~/.codex (%v); set %s", err, envHome)
	}
	return filepath.Join(u, ".codex"), nil
}

// errNotFound says a thread's rollout is under none of the roots.
var errNotFound = errors.New("rollout not found")

// rolloutSuffixLen is "-<36-char uuid>.jsonl": the thread id is the last 36
// characters of the file name (codex.md §2).
const rolloutSuffixLen = 1 + 36 + len(".jsonl")

// findRollout finds the rollout file of a thread under roots by its file
// name, rollout-<local time>-<thread id>.jsonl, through the one walker
// every listing and search uses (package walk): only regular files inside
// the roots are candidates, no link below a root is followed.
func findRollout(roots []string, threadID string) (string, error) {
	if threadID == "" || strings.ContainsAny(threadID, `/\`) {
		return "", errNotFound
	}
	want := "-" + threadID + ".jsonl"
	for _, root := range roots {
		// One root at a time: the first root holding the thread wins, and
		// an unreadable root does not hide the others.
		found, err := SessionFiles([]string{root}, threadID)
		for _, s := range found {
			if strings.HasSuffix(s.Path, want) {
				return s.Path, nil
			}
		}
		if err != nil {
			return "", err
		}
	}
	return "", errNotFound
}

// findRolloutNear looks in dir first (forks made the same day share their
// parent's date directory) when dir lies under one of the roots, then in all
// roots, so a fork's parent is never looked for outside the roots.
func findRolloutNear(dir string, roots []string, threadID string) (string, error) {
	if underAny(dir, roots) {
		if p, err := findRollout([]string{dir}, threadID); err == nil {
			return p, nil
		}
	}
	return findRollout(roots, threadID)
}

// underAny reports whether dir is one of the roots or inside one.
func underAny(dir string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(filepath.Clean(r), filepath.Clean(dir))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
