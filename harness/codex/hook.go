package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/reset"
)

// Codex's hooks (written into hooks.json by `notesoup install codex`)
// answer the boot block at SessionStart (a new session, a resume, and right
// after each compaction) and the budget warning once per window at
// PostToolUse or UserPromptSubmit, as hookSpecificOutput additionalContext.
// Codex runs the hook command for every event, which is why the light
// build of notesoup (fast to start) serves it too (through
// harness/builtins).

// Codex hook events notesoup answers (codex.md §9). SessionStart fires with
// source "startup" at a new session, "resume" on resume and "compact" right
// after a compaction; PostToolUse after every tool call; UserPromptSubmit
// before a prompt reaches the model.
const (
	SessionStart     = "SessionStart"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
)

// HookEvents are the events the hook answers, in the order install writes
// them.
var HookEvents = []string{SessionStart, PostToolUse, UserPromptSubmit}

// Hook is the Codex hook: what `notesoup hook codex EVENT` runs.
var Hook = &harness.Hook{Events: HookEvents, Run: runHook}

// maxHookInput bounds the hook's stdin: Codex sends one small JSON object
// (a PostToolUse payload carries the tool's input and response, which the
// MCP and shell tools keep far below this).
const maxHookInput = 16 << 20

// codexNoReset is the boot notice Codex sessions get: Codex has no reset
// tool (its MCP server cannot end a turn or start a compaction), so the
// model learns what happens at a compaction instead.
const codexNoReset = "In Codex this boot block comes back right after each compaction, and the compaction keeps only a short summary of the conversation: keep your notes current as you go."

// warnedDir is the directory under the hook state directory holding one
// marker file per window that has had its budget warning.
const warnedDir = "codex-warned"

// isThreadID reports whether id may be a Codex thread id (a UUID): 1 to 64
// ASCII letters, digits and hyphens, which also keeps it safe as a file
// name. Checked by hand: a regexp compiled at package initialisation would
// cost every notesoup start, hook or not.
func isThreadID(id string) bool {
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

// hookInput is the part of Codex's hook payload notesoup reads.
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Model          string `json:"model"`
	Source         string `json:"source"`
}

// hookOutput is the one answer shape Codex 0.171.0 injects for every
// event: hookSpecificOutput.additionalContext becomes a developer message in
// the next model request. Observed: plain stdout is injected for
// SessionStart but ignored for PostToolUse, so notesoup always answers JSON.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// runHook answers one Codex hook. A failure to answer is said on stderr
// (Codex shows it) and exits 0 with no answer, so a hook never stops the
// person's session; a payload that is not Codex's, or a service that
// cannot start, exits 1.
func runHook(ctx context.Context, call harness.HookCall) int {
	codexHome := os.Getenv(envHome)
	in, err := readHookInput(call.Stdin, call.Event, codexHome)
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
	if call.Event == SessionStart {
		startVaultSync() // keep the transcripts before anything deletes them (docs/vault.md)
	}
	h := hook{env: env, codexHome: codexHome}
	text, undo, err := h.answer(ctx, call.Event, in)
	if err != nil {
		fmt.Fprintf(call.Stderr, "%s: %v\n", call.Prog, err)
		return 0
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

// readHookInput decodes and checks the hook payload. codexHome is
// $CODEX_HOME ("" for the default), whose session roots the transcript
// must lie under.
func readHookInput(r io.Reader, event, codexHome string) (hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return in, fmt.Errorf("reading the hook JSON from stdin: %w", err)
	}
	if len(data) > maxHookInput {
		return in, fmt.Errorf("hook JSON on stdin is larger than %d bytes", maxHookInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("stdin is not Codex's hook JSON (%v); this command is meant to be run by Codex from hooks.json", err)
	}
	if in.HookEventName != "" && in.HookEventName != event {
		return in, fmt.Errorf("hook_event_name %q does not match the event argument %q; fix the command in hooks.json", in.HookEventName, event)
	}
	if !isThreadID(in.SessionID) {
		return in, fmt.Errorf("session_id %q is not a Codex thread id", in.SessionID)
	}
	if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
		return in, fmt.Errorf("cwd %q is not an absolute directory", in.Cwd)
	}
	if in.TranscriptPath != "" {
		if err := checkTranscriptPath(in.TranscriptPath, codexHome); err != nil {
			return in, err
		}
	}
	return in, nil
}

// checkTranscriptPath keeps the hook's reads inside Codex's session roots:
// the payload names the file, so it is checked like any other input.
func checkTranscriptPath(path, codexHome string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("transcript_path %q is not absolute", path)
	}
	h, err := home(func(string) string { return codexHome }, os.UserHomeDir)
	if err != nil {
		return fmt.Errorf("transcript_path: %w", err)
	}
	if roots := rootsUnder(h); !underAny(path, roots) {
		return fmt.Errorf("transcript_path %q is not under Codex's session roots %v", path, roots)
	}
	return nil
}

// hook answers Codex hooks through notesoup's operations.
type hook struct {
	env       harness.HookEnv
	codexHome string
}

// answer returns the text to add to the model's context (empty for none)
// and, for a budget warning, the function that takes back its delivery
// record when the answer could not be written.
func (h hook) answer(ctx context.Context, event string, in hookInput) (string, func(), error) {
	if event == SessionStart {
		ord, err := h.ordinal(ctx, in)
		if err != nil {
			return "", nil, err
		}
		// One boot per window: a resumed thread replays its history, which
		// holds this window's boot already when the hook gave it before.
		if in.Source == "resume" && in.TranscriptPath != "" {
			had, err := rolloutHasBoot(in.TranscriptPath, bootMarker(in.SessionID, ord))
			if err != nil {
				return "", nil, err
			}
			if had {
				return "", nil, nil
			}
		}
		text, err := h.env.Boot(ctx, in.SessionID, in.Cwd, ord, []string{codexNoReset})
		if err != nil {
			return "", nil, err
		}
		return text, nil, nil
	}
	return h.warning(ctx, in)
}

// ordinal is the window ordinal of the thread's head: the history decoder's
// own answer (compactions of this thread and, for a fork, of its parents),
// else the compactions counted in this rollout — but never for a fork,
// whose parents' compactions this file does not show (no guessing). A
// thread Codex has not written yet is in its first window.
func (h hook) ordinal(ctx context.Context, in hookInput) (int, error) {
	ord, err := h.env.WindowOrdinal(ctx, in.SessionID, in.Cwd)
	if err == nil {
		return ord, nil
	}
	if in.TranscriptPath == "" {
		if in.Source == "startup" {
			return 0, nil
		}
		return 0, fmt.Errorf("window ordinal of thread %s: %v (and no transcript_path to count compactions)", in.SessionID, err)
	}
	m, mErr := measureRollout(in.TranscriptPath)
	if mErr != nil {
		if in.Source == "startup" && errors.Is(mErr, os.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("window ordinal of thread %s: %v; counting compactions: %v", in.SessionID, err, mErr)
	}
	if m.Forked {
		return 0, fmt.Errorf("window ordinal of forked thread %s: %v", in.SessionID, err)
	}
	return m.Compactions, nil
}

// warning returns the budget warning when the measured context has crossed
// the Codex warning point and this window has had none yet.
func (h hook) warning(ctx context.Context, in hookInput) (string, func(), error) {
	if in.TranscriptPath == "" {
		return "", nil, nil // nothing to measure
	}
	tokens, err := contextTokens(in.TranscriptPath)
	if err != nil {
		return "", nil, err
	}
	if tokens <= 0 {
		return "", nil, nil
	}
	env := map[string]string{}
	if h.codexHome != "" {
		env[envHome] = h.codexHome
	}
	l, err := h.env.Limits(ctx, reset.ThresholdInput{Model: in.Model, Env: env, Cwd: in.Cwd})
	if err != nil {
		return "", nil, err
	}
	if !reset.WarningDue(l, tokens, false) {
		return "", nil, nil
	}
	ord, err := h.ordinal(ctx, in)
	if err != nil {
		return "", nil, err
	}
	mark := filepath.Join(h.env.StateDir(), warnedDir, fmt.Sprintf("%s.%d", in.SessionID, ord))
	if err := os.MkdirAll(filepath.Dir(mark), 0o700); err != nil {
		return "", nil, fmt.Errorf("budget warning state: %w", err)
	}
	// O_EXCL makes the once-per-window decision atomic across the
	// concurrent hook processes of parallel tool calls.
	f, err := os.OpenFile(mark, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("budget warning state: %w", err)
	}
	f.Close()
	// Until the answer is written the marker is provisional: undo removes
	// it so the next hook warns again.
	undo := func() { os.Remove(mark) }
	return warningText(tokens, l.Native), undo, nil
}

// warningText is the budget warning for Codex: the shared warning's order
// of work, ending with Codex's own compaction instead of a reset tool Codex
// does not have, and counting down to Codex's compaction point.
func warningText(contextTokens, native int64) string {
	left := native - contextTokens
	if left < 0 {
		left = 0
	}
	return "notesoup budget warning: this context window is nearly full. " +
		"When it reaches its limit Codex will compact it automatically, and its short summary keeps little of what is only in this window. " +
		"Act now, before starting anything new: " +
		"(1) finish or safely park the step you are on; " +
		"(2) write down in your notes (" + notes.ToolWrite + ", " + notes.ToolEdit + ") what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; " +
		"(3) then carry on: the next window starts from your notes, which notesoup shows again right after the compaction. " +
		"About " + reset.GroupDigits(left) + " tokens left before Codex compacts."
}
