package host

import (
	"errors"
	"fmt"
)

// PluginError is a failure of one harness plugin. It always names the plugin
// and where it came from, so a person can tell which of several harnesses
// failed and what to do about it.
type PluginError struct {
	Name   string // harness name, e.g. "pi"
	Source string // "built-in" or the executable's path
	Op     string // what the host was doing: "start", "describe", "decode", ...
	Err    error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("harness plugin %q (%s): %s: %v", e.Name, e.Source, e.Op, e.Err)
}

// Unwrap returns the underlying error.
func (e *PluginError) Unwrap() error { return e.Err }

// ErrUnknownHarness is returned for a harness name no plugin provides.
var ErrUnknownHarness = errors.New("no such harness plugin")
