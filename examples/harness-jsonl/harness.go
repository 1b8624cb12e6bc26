package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/notesoup/notesoup/contract"
)

// Name is the harness's name: in selectors (jsonl:<id>), window ids and the
// executable's name (notesoup-harness-jsonl). The host refuses a plugin
// whose Describe names another harness than its file name does.
const Name = "jsonl"

// PluginVersion is this plugin's own version, shown by `notesoup plugins`.
const PluginVersion = "0.1.0"

// HomeEnv names the directory the harness keeps its sessions under;
// DefaultHome (under the user's home) is used when it is unset.
const (
	HomeEnv     = "JSONL_HARNESS_HOME"
	DefaultHome = ".jsonl-harness"
	// sessionsDir is the directory under the home that holds <id>.jsonl.
	sessionsDir = "sessions"
)

// Harness implements contract.Harness for the jsonl transcript format. The
// zero value is ready to use; it holds no state, so one value serves every
// call the host makes, concurrently.
type Harness struct{}

var _ contract.Harness = Harness{}

// Describe implements contract.Harness. It lists what the plugin can do:
//   - sessions and decode: ListSessions and Decode answer;
//   - raw_search: every letter and digit of the text Decode emits is in the
//     file's bytes (the text field is emitted as written), so a search may
//     rule a file out from its bytes without starting this plugin;
//   - boot: BootBinding names the window (there is no reset tool).
//
// It does not list thresholds: this harness never compacts its context.
func (Harness) Describe(context.Context) (contract.Description, error) {
	roots, err := DefaultRoots()
	if err != nil {
		// Describe must answer anyway: explicit roots still work, and the
		// error surfaces where the default roots are needed (ListSessions).
		roots = nil
	}
	return contract.Description{
		Name:             Name,
		PluginVersion:    PluginVersion,
		ContractVersions: []int{contract.Version},
		Capabilities:     []string{contract.CapSessions, contract.CapDecode, contract.CapRawSearch, contract.CapBoot},
		DefaultRoots:     roots,
	}, nil
}

// DefaultRoots returns the session roots on this machine: the sessions
// directory under $JSONL_HARNESS_HOME, else under ~/.jsonl-harness.
func DefaultRoots() ([]string, error) {
	home := os.Getenv(HomeEnv)
	if home == "" {
		user, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("%s: set %s or HOME: %w", Name, HomeEnv, err)
		}
		home = filepath.Join(user, DefaultHome)
	}
	abs, err := filepath.Abs(filepath.Join(home, sessionsDir))
	if err != nil {
		return nil, err
	}
	return []string{abs}, nil
}

// rootsOr returns given when set, else the default roots, each made
// absolute and clean, so a session's path can be compared with them.
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
		if !slices.Contains(out, abs) { // a root given twice lists its sessions once
			out = append(out, abs)
		}
	}
	return out, nil
}

// noThresholds says why Thresholds resolves no point.
const noThresholds = "the jsonl harness has no automatic compaction, so there is no native compaction point"

// Thresholds implements contract.Harness. The harness never compacts, so
// the point is unresolved and says why; notesoup then neither warns nor
// resets on its behalf (a caller must not guess a point).
func (Harness) Thresholds(context.Context, contract.ThresholdInput) (contract.NativePoint, error) {
	return contract.NativePoint{Resolved: false, Source: Name, Reason: noThresholds}, nil
}

// BootBinding implements contract.Harness: a session's windows are
// jsonl:<id>:<ordinal>. ResetTool is empty: the harness has no tool that
// empties its window, so the boot block offers none.
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
