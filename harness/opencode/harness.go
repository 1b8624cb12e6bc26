package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/notesoup/notesoup/contract"
)

// Name is the harness's name: in selectors (opencode:<id>), window ids and
// the executable's name (notesoup-harness-opencode).
const Name = "opencode"

// PluginVersion is this plugin's own version, shown by `notesoup plugins`.
const PluginVersion = "0.1.0"

// The environment OpenCode reads to place its data, and what it defaults
// to: its data directory is $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode (on every platform: it uses xdg-basedir), and
// OPENCODE_DB names another database, absolute or relative to the data
// directory.
const (
	dataHomeEnv = "XDG_DATA_HOME"
	dbEnv       = "OPENCODE_DB"
	appDir      = "opencode"
)

// Harness implements contract.Harness for OpenCode. The zero value is
// ready to use and holds no state, so one value serves every call.
type Harness struct{}

var _ contract.Harness = Harness{}

// Describe implements contract.Harness. Capabilities:
//
//   - sessions, decode, boot: ListSessions, Decode and BootBinding answer;
//
//   - forks: every session of a database shares its one file, and its
//     newest rows live in the -wal beside it, so neither the file's bytes
//     nor its size and time say anything about one session. The contract's
//     way to say "this file's own bytes do not hold the session's text" is
//     CapForks: a search then decodes every OpenCode session on every
//     query and never answers one from a cache keyed by the file (which
//     would hand one session's answer to another).
//
//   - thresholds: Thresholds resolves OpenCode's own compaction point from
//     the model's limits in its configuration (thresholds.go).
//
// Not raw_search (text in SQLite pages is split across overflow pages and
// may sit in the -wal, not the file).
func (Harness) Describe(context.Context) (contract.Description, error) {
	roots, err := DefaultRoots()
	if err != nil {
		roots = nil // Describe answers anyway; ListSessions names the error
	}
	return contract.Description{
		Name:             Name,
		PluginVersion:    PluginVersion,
		ContractVersions: []int{contract.Version},
		Capabilities:     []string{contract.CapSessions, contract.CapDecode, contract.CapBoot, contract.CapForks, contract.CapThresholds},
		DefaultRoots:     roots,
	}, nil
}

// DefaultRoots returns OpenCode's data directory on this machine, and the
// directory of $OPENCODE_DB when that names a database elsewhere.
func DefaultRoots() ([]string, error) {
	data, err := dataDir()
	if err != nil {
		return nil, err
	}
	roots := []string{data}
	if db, ok := envDB(data); ok && !slices.Contains(roots, filepath.Dir(db)) {
		roots = append(roots, filepath.Dir(db))
	}
	return roots, nil
}

// dataDir is OpenCode's data directory, absolute.
func dataDir() (string, error) {
	base := os.Getenv(dataHomeEnv)
	if base == "" || !filepath.IsAbs(base) { // xdg-basedir ignores a relative XDG_DATA_HOME, as the spec says
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s: set %s or HOME: %w", Name, dataHomeEnv, err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(filepath.Clean(base), appDir), nil
}

// envDB is the database $OPENCODE_DB names, absolute and clean, as OpenCode
// resolves it (relative to the data directory); false when unset or
// ":memory:".
func envDB(data string) (string, bool) {
	v := os.Getenv(dbEnv)
	if v == "" || v == ":memory:" {
		return "", false
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(data, v)
	}
	return filepath.Clean(v), true
}

// rootsOr returns given when set, else the default roots, each absolute
// and clean, without repeats.
func rootsOr(given []string) ([]string, error) {
	if len(given) == 0 {
		return DefaultRoots()
	}
	out := make([]string, 0, len(given))
	for _, r := range given {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("%s: root %q: %w", Name, r, err)
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

// BootBinding implements contract.Harness: a session's windows are
// opencode:<id>:<ordinal>, one more after each compaction. There is no
// reset tool: OpenCode has no tool that empties its window on request.
func (Harness) BootBinding(_ context.Context, sessionID string, ordinal int) (contract.Binding, error) {
	if !validID(sessionID) {
		return contract.Binding{}, fmt.Errorf("%s: session id %q: %s", Name, sessionID, idRule)
	}
	if ordinal < 0 {
		return contract.Binding{}, fmt.Errorf("%s: window ordinal %d is negative", Name, ordinal)
	}
	return contract.Binding{WindowID: windowID(sessionID, ordinal)}, nil
}

// windowID names a session's window as every history answer shows it.
func windowID(id string, ordinal int) string {
	return fmt.Sprintf("%s:%s:%d", Name, id, ordinal)
}
