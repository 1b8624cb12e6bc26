// Package headless is the contract between `notesoup dream` and the harness
// packages: each harness that can run a prompt without a person
// (harness/<name>/dream.go) describes here how its own CLI is started, and
// harness/builtins finds it by name. It holds types only, so a harness
// package can implement it without importing the dream engine.
package headless

import (
	"context"
	"os/exec"
)

// Request is one headless run: the prompt to run in a project's folder.
type Request struct {
	// Bin is the harness CLI to run, already resolved to a path.
	Bin string
	// Dir is the project's folder; the CLI runs there, so its tools read
	// the code the notes describe and the notes resolve to this project.
	Dir string
	// Prompt is the whole prompt: the playbook and the report it asks for.
	Prompt string
	// Self is the running notesoup executable, for a harness that starts
	// notesoup's MCP server itself (Codex) or has no mod loaded.
	Self string
	// Env holds NAME=value pairs the harness reads for its own settings
	// (a plugin folder, an extension path), as os.Environ gives them; the
	// caller passes the process's environment, tests their own.
	Env []string
}

// Harness is how one harness runs a prompt headless.
type Harness struct {
	// Name is the harness's name (claude, pi, codex).
	Name string
	// Binary is the CLI's executable name, looked up on PATH.
	Binary string
	// BinEnv names the variable that points at another CLI binary
	// (NOTESOUP_CLAUDE_BIN, ...); it wins over PATH.
	BinEnv string
	// Tools says how the notes tools are named in this harness, for the
	// prompt (e.g. "mcp__notesoup__notes_list").
	Tools string
	// Command returns the harness's command for r, not started: its Dir
	// and arguments set, its Stdout and Stderr left to the caller. ctx
	// bounds the run (exec.CommandContext).
	Command func(ctx context.Context, r Request) (*exec.Cmd, error)
	// Report extracts the pass's final report from everything the CLI
	// wrote to stdout; nil means stdout is the report.
	Report func(stdout []byte) string
	// Progress renders one line of the CLI's stdout for the person
	// watching stderr while the pass runs ("" drops it); nil shows each
	// line as it is.
	Progress func(line []byte) string
}

// Lookup returns the value of name in env (NAME=value pairs), the last
// one winning as in a process environment, and whether it is set.
func Lookup(env []string, name string) (string, bool) {
	val, ok := "", false
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			val, ok = kv[len(name)+1:], true
		}
	}
	return val, ok
}
