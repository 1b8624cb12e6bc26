package copilot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
)

// The Copilot CLI's hooks (settings.json "hooks", written by `notesoup
// install copilot`) answer the boot block at sessionStart as
// additionalContext. Copilot 1.0.102 runs a command hook with the event's
// JSON on stdin ({"sessionId", "timestamp", "cwd", "source":
// "new"|"startup"|"resume", "initialPrompt"}), and puts the context it
// answers into the conversation as a user message before the first
// prompt. Its preCompact hook has no answer the CLI reads, so no boot
// follows a compaction.

// SessionStart is the Copilot hook event notesoup answers.
const SessionStart = "sessionStart"

// HookEvents are the events the hook answers, in the order install writes
// them.
var HookEvents = []string{SessionStart}

// Hook is the Copilot CLI hook: what `notesoup hook copilot EVENT` runs.
var Hook = &harness.Hook{Events: HookEvents, Run: runHook}

// maxHookInput bounds the hook's stdin: a sessionStart payload is a few
// hundred bytes plus the initial prompt.
const maxHookInput = 4 << 20

// copilotNotice is the boot notice Copilot sessions get: no reset tool,
// and what Copilot's own compaction does.
const copilotNotice = "In the GitHub Copilot CLI this boot block comes when a session starts or resumes. When the context fills, Copilot compacts the older conversation into its own summary in the background, and no boot block follows: keep your notes current as you go."

// hookInput is the part of Copilot's hook payload notesoup reads.
type hookInput struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Source    string `json:"source"`
}

// hookOutput is the answer Copilot adds to the conversation.
type hookOutput struct {
	AdditionalContext string `json:"additionalContext"`
}

// runHook answers one Copilot hook. A failure to build the boot is said on
// stderr and exits 1; the session goes on without the boot.
func runHook(ctx context.Context, call harness.HookCall) int {
	in, err := readHookInput(call.Stdin)
	if err != nil {
		fmt.Fprintf(call.Stderr, "%s: %v\n", call.Prog, err)
		return 1
	}
	env, closeFn, err := call.Open()
	if err != nil {
		fmt.Fprintf(call.Stderr, "%s: %v\n", call.Prog, err)
		return 1
	}
	defer closeFn()
	ord, err := env.WindowOrdinal(ctx, in.SessionID, in.Cwd)
	if err != nil {
		// A new session has no events.jsonl worth reading yet: its first
		// window. A resumed one must be found.
		if in.Source == "resume" {
			fmt.Fprintf(call.Stderr, "%s: window ordinal of session %s: %v\n", call.Prog, in.SessionID, err)
			return 1
		}
		ord = 0
	}
	text, err := env.Boot(ctx, in.SessionID, in.Cwd, ord, []string{copilotNotice})
	if err != nil {
		fmt.Fprintf(call.Stderr, "%s: %v\n", call.Prog, err)
		return 1
	}
	if err := json.NewEncoder(call.Stdout).Encode(hookOutput{AdditionalContext: text}); err != nil {
		fmt.Fprintf(call.Stderr, "%s: writing the answer: %v\n", call.Prog, err)
		return 1
	}
	return 0
}

// readHookInput decodes and checks the hook payload.
func readHookInput(r io.Reader) (hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook JSON from stdin: %w", err)
	}
	if len(data) > maxHookInput {
		return in, fmt.Errorf("hook JSON on stdin is larger than %d bytes", maxHookInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("stdin is not the Copilot CLI's hook JSON (%v); this command is meant to be run by Copilot from settings.json", err)
	}
	if !isSessionID(in.SessionID) {
		return in, fmt.Errorf("sessionId %q is not a Copilot session id", in.SessionID)
	}
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return in, fmt.Errorf("cwd %q is not an absolute directory", in.Cwd)
	}
	return in, nil
}

// isSessionID reports whether id may be a Copilot session id (a UUID): 1
// to 64 ASCII letters, digits and hyphens, which also keeps it safe in a
// selector and a path.
func isSessionID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}
