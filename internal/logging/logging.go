// Package logging builds notesoup's process loggers: hclog to stderr only,
// because stdout belongs to the protocols (go-plugin's handshake, MCP, the
// helper's JSON answer).
package logging

import (
	"os"

	"github.com/hashicorp/go-hclog"
)

// LevelEnv names the variable that sets the log level
// (trace|debug|info|warn|error); the default is warn.
const LevelEnv = "NOTESOUP_LOG"

// New returns a logger named name that writes to stderr at the level
// LevelEnv sets.
func New(name string) hclog.Logger {
	level := hclog.LevelFromString(os.Getenv(LevelEnv))
	if level == hclog.NoLevel {
		level = hclog.Warn
	}
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: level, Output: os.Stderr})
}
