package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
)

// The Gemini CLI's hooks (settings.json "hooks", written by `notesoup
// install gemini`) answer the boot block at SessionStart and the budget
// warning, once per window, at AfterTool and BeforeAgent (budget.go), each
// as hookSpecificOutput.additionalContext. Gemini 0.61.0 fires
// SessionStart at startup, on resume and after /clear; it puts the context
// before the user's prompt in a headless run (-p) and as the first turn of
// history in an interactive one. AfterTool's context is appended to the
// tool's result the model reads next; BeforeAgent's to the user's prompt.
// No Gemini hook can add context at a compression: PreCompress only
// observes (its output is ignored, and it fires before every turn's
// compression check, not only when a compression happens).

// Gemini hook events notesoup answers: SessionStart (the boot), AfterTool
// (after every tool call) and BeforeAgent (before a prompt reaches the
// model) for the budget warning.
const (
	SessionStart = "SessionStart"
	AfterTool    = "AfterTool"
	BeforeAgent  = "BeforeAgent"
)

// HookEvents are the events the hook answers, in the order install writes
// them.
var HookEvents = []string{SessionStart, AfterTool, BeforeAgent}

// Hook is the Gemini CLI hook: what `notesoup hook gemini EVENT` runs.
var Hook = &harness.Hook{Events: HookEvents, Run: runHook}

// maxHookInput bounds the hook's stdin: an AfterTool payload carries the
// tool's input and response, which Gemini's own tools keep far below this.
const maxHookInput = 16 << 20

// geminiNotice is the boot notice Gemini sessions get: no reset tool, and
// what Gemini's own compression does.
const geminiNotice = "In the Gemini CLI this boot block comes at session start, on resume and after /clear. When the context passes Gemini's compression point, Gemini replaces the older conversation with its own summary: keep your notes current as you go."

// hookInput is the part of Gemini's hook payload notesoup reads. The
// boot's window ordinal comes from the history of the session id, found
// under Gemini's own roots; transcript_path (the chat file) is read for
// the budget warning's token count.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
}

// hookOutput is the answer Gemini adds to the model's context.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// isSessionID reports whether id may be a Gemini session id (a UUID): 1
// to 64 ASCII letters, digits and hyphens, which also keeps it safe in a
// selector.
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

// runHook answers one Gemini hook. Gemini treats exit 0 with JSON on
// stdout as the answer (exit 0 with nothing on stdout as no answer) and any
// other code but 2 as a warning it shows, so a failure is said on stderr
// and exits 1 (never 2, which would block the tool or the prompt); the
// session goes on without the boot or the warning.
func runHook(ctx context.Context, call harness.HookCall) int {
	in, err := readHookInput(call.Stdin, call.Event)
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
	var text string
	var undo func()
	if call.Event == SessionStart {
		text, err = boot(ctx, env, in)
	} else {
		text, undo, err = warning(ctx, env, os.Getenv, in)
	}
	if err != nil {
		fmt.Fprintf(call.Stderr, "%s: %v\n", call.Prog, err)
		return 1
	}
	if text == "" {
		return 0
	}
	var out hookOutput
	out.HookSpecificOutput.HookEventName = call.Event
	out.HookSpecificOutput.AdditionalContext = text
	if err := json.NewEncoder(call.Stdout).Encode(out); err != nil {
		if undo != nil {
			undo()
		}
		fmt.Fprintf(call.Stderr, "%s: writing the answer: %v\n", call.Prog, err)
		return 1
	}
	return 0
}

// boot is the SessionStart answer: the boot block of the session's window.
func boot(ctx context.Context, env harness.HookEnv, in hookInput) (string, error) {
	ord, err := env.WindowOrdinal(ctx, in.SessionID, in.Cwd)
	if err != nil {
		// A session Gemini has not written yet (startup, after /clear) is
		// in its first window; a resumed one must be found.
		if in.Source == "resume" {
			return "", fmt.Errorf("window ordinal of session %s: %v", in.SessionID, err)
		}
		ord = 0
	}
	return env.Boot(ctx, in.SessionID, in.Cwd, ord, []string{geminiNotice})
}

// readHookInput decodes and checks the hook payload.
func readHookInput(r io.Reader, event string) (hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook JSON from stdin: %w", err)
	}
	if len(data) > maxHookInput {
		return in, fmt.Errorf("hook JSON on stdin is larger than %d bytes", maxHookInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("stdin is not the Gemini CLI's hook JSON (%v); this command is meant to be run by Gemini from settings.json", err)
	}
	if in.HookEventName != event {
		return in, fmt.Errorf("hook_event_name %q does not match the event argument %q; fix the command in settings.json", in.HookEventName, event)
	}
	if !isSessionID(in.SessionID) {
		return in, fmt.Errorf("session_id %q is not a Gemini session id", in.SessionID)
	}
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return in, fmt.Errorf("cwd %q is not an absolute directory", in.Cwd)
	}
	return in, nil
}
