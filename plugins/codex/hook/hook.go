// Package hook answers Codex's hooks (written into hooks.json by
// `notesoup install codex`): the boot block at SessionStart (a new session,
// a resume, and right after each compaction) and the budget warning once per
// window at PostToolUse or UserPromptSubmit, as hookSpecificOutput
// additionalContext. Codex runs the hook command for every event, so both
// notesoup and the fast-starting notesoup-helper serve it through Main.
package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
)

// Codex hook events notesoup answers (codex.md §9). SessionStart fires with
// source "startup" at a new session, "resume" on resume and "compact" right
// after a compaction; PostToolUse after every tool call; UserPromptSubmit
// before a prompt reaches the model.
const (
	SessionStart     = "SessionStart"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
)

// maxHookInput bounds the hook's stdin: Codex sends one small JSON object
// (a PostToolUse payload carries the tool's input and response, which the
// MCP and shell tools keep far below this).
const maxHookInput = 16 << 20

// codexNoReset is the boot notice Codex sessions get: Codex has no reset
// tool (its MCP server cannot end a turn or start a compaction), so the
// model learns what happens at a compaction instead.
const codexNoReset = "In Codex this boot block comes back right after each compaction, and the compaction keeps only a short summary of the conversation: keep your notes current as you go."

// isThreadID reports whether id may be a Codex thread id (a UUID): 1 to 64
// ASCII letters, digits and hyphens, which also keeps it safe as a file
// name. Checked by hand: a regexp compiled at package initialisation would
// cost every notesoup-helper start, hook or not.
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

// codexHookInput is the part of Codex's hook payload notesoup reads.
type codexHookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Model          string `json:"model"`
	Source         string `json:"source"`
}

// codexHookOutput is the one answer shape Codex 0.171.0 injects for every
// event: hookSpecificOutput.additionalContext becomes a developer message in
// the next model request. Observed: plain stdout is injected for
// SessionStart but ignored for PostToolUse, so notesoup always answers JSON.
type codexHookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Main is a hook process's whole life: args are "codex <event>", the hook
// JSON is on stdin, and the answer (if any) goes to stdout. name is the
// command as written in hooks.json, for the messages; open builds the
// service. A failure to answer is said on stderr and exits 0 with no answer,
// so a hook never stops the person's session; misuse exits 2.
func Main(ctx context.Context, name string, open func() (*service.Service, func(), error), args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 || args[0] != "codex" {
		fmt.Fprintf(stderr, "Usage: %s codex SessionStart|PostToolUse|UserPromptSubmit  (the hook JSON on stdin; written into hooks.json by notesoup install codex)\n", name)
		return 2
	}
	event := args[1]
	switch event {
	case SessionStart, PostToolUse, UserPromptSubmit:
	default:
		fmt.Fprintf(stderr, "%s codex: event %q is not handled; use SessionStart, PostToolUse or UserPromptSubmit\n", name, event)
		return 2
	}
	if _, off := os.LookupEnv("NOTESOUP_DISABLED"); off {
		return 0
	}
	in, err := readCodexHookInput(stdin, event)
	if err != nil {
		fmt.Fprintf(stderr, "%s codex: %v\n", name, err)
		return 1
	}
	s, closeFn, err := open()
	if err != nil {
		fmt.Fprintf(stderr, "%s codex: %v\n", name, err)
		return 1
	}
	defer closeFn()
	h := codexHook{s: s, codexHome: os.Getenv("CODEX_HOME")}
	text, undo, err := h.answer(ctx, event, in)
	if err != nil {
		// A hook failure must not stop the person's session: say why on
		// stderr (Codex shows it) and add nothing to the context.
		fmt.Fprintf(stderr, "%s codex: %v\n", name, err)
		return 0
	}
	if text == "" {
		return 0
	}
	var out codexHookOutput
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	if err := json.NewEncoder(stdout).Encode(out); err != nil {
		if undo != nil {
			undo()
		}
		fmt.Fprintf(stderr, "%s codex: writing the answer: %v\n", name, err)
		return 1
	}
	return 0
}

// readCodexHookInput decodes and checks the hook payload.
func readCodexHookInput(r io.Reader, event string) (codexHookInput, error) {
	var in codexHookInput
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
	return in, nil
}

// codexHook answers Codex hooks through the service.
type codexHook struct {
	s         *service.Service
	codexHome string
}

func (h codexHook) caller(in codexHookInput) service.Caller {
	return service.Caller{Harness: codex.Name, Session: in.SessionID, Cwd: in.Cwd}
}

// answer returns the text to add to the model's context (empty for none)
// and, for a budget warning, the function that takes back its delivery
// record when the answer could not be written.
func (h codexHook) answer(ctx context.Context, event string, in codexHookInput) (string, func(), error) {
	if event == SessionStart {
		ord, err := h.ordinal(ctx, in)
		if err != nil {
			return "", nil, err
		}
		b, err := h.s.Boot(ctx, h.caller(in), service.BootRequest{Ordinal: ord, Notices: []string{codexNoReset}})
		if err != nil {
			return "", nil, err
		}
		return b.Text, nil, nil
	}
	return h.warning(ctx, in)
}

// ordinal is the window ordinal of the thread's head: the history decoder's
// own answer (compactions of this thread and, for a fork, of its parents),
// else the compactions counted in this rollout — but never for a fork,
// whose parents' compactions this file does not show (no guessing). A
// thread Codex has not written yet is in its first window.
func (h codexHook) ordinal(ctx context.Context, in codexHookInput) (int, error) {
	st, err := h.s.HistoryState(ctx, h.caller(in), "")
	if err == nil {
		return st.Ordinal, nil
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
func (h codexHook) warning(ctx context.Context, in codexHookInput) (string, func(), error) {
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
		env["CODEX_HOME"] = h.codexHome
	}
	l, err := h.s.Limits(ctx, codex.Name, service.LimitsRequest{
		ThresholdInput: reset.ThresholdInput{Model: in.Model, Env: env, Cwd: in.Cwd},
	})
	if err != nil {
		return "", nil, err
	}
	if !reset.WarningDue(l.Limits, tokens, false) {
		return "", nil, nil
	}
	ord, err := h.ordinal(ctx, in)
	if err != nil {
		return "", nil, err
	}
	mark := filepath.Join(h.s.Home(), "state", "codex-warned", fmt.Sprintf("%s.%d", in.SessionID, ord))
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
	return codexWarningText(tokens, l.Limits.Native), undo, nil
}

// codexWarningText is the budget warning for Codex: the shared warning's
// order of work, ending with Codex's own compaction instead of a reset tool
// Codex does not have, and counting down to Codex's compaction point.
func codexWarningText(contextTokens, native int64) string {
	left := native - contextTokens
	if left < 0 {
		left = 0
	}
	return "notesoup budget warning: this context window is nearly full. " +
		"When it reaches its limit Codex will compact it automatically, and its short summary keeps little of what is only in this window. " +
		"Act now, before starting anything new: " +
		"(1) finish or safely park the step you are on; " +
		"(2) write down in your notes (notes_write, notes_edit) what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; " +
		"(3) then carry on: the next window starts from your notes, which notesoup shows again right after the compaction. " +
		"About " + reset.GroupDigits(left) + " tokens left before Codex compacts."
}

// rolloutMeasure is what a Codex rollout says about the current window.
type rolloutMeasure struct {
	// ContextTokens is the last model response's total tokens (input plus
	// output) in the current window, the figure Codex compares with its
	// auto-compaction limit; 0 when none was recorded since the last
	// compaction.
	ContextTokens int64
	// Compactions counts compacted records in this file.
	Compactions int
	// Forked is true when the file is a fork (its session_meta names a
	// parent): compactions before the fork point are in other files.
	Forked bool
}

// measureRollout scans a rollout for the latest usage and the compactions.
// Usage comes from token_usage_record (written right after each response,
// before PostToolUse runs — observed) and event_msg token_count (written
// later, and after a compaction with Codex's estimate), whichever is last.
func measureRollout(path string) (rolloutMeasure, error) {
	var m rolloutMeasure
	f, err := openRollout(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		raw, err := r.ReadBytes('\n')
		if len(raw) > 0 && bytes.Contains(raw, []byte(`"session_meta"`)) &&
			(bytes.Contains(raw, []byte(`"forked_from_id"`)) || bytes.Contains(raw, []byte(`"history_base"`))) {
			m.Forked = true
		}
		switch kind, tokens := classify(raw); kind {
		case isCompaction:
			m.Compactions++
			m.ContextTokens = 0
		case isUsage:
			m.ContextTokens = tokens
		}
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return m, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// contextTokens is measureRollout's ContextTokens read from the end of the
// file: the last line that is a compaction or a usage record decides it, so
// it reads back only to that line. PostToolUse runs after every tool call,
// and a long session's rollout is tens of MB; reading it all each time
// would cost a person noticeable time per call.
func contextTokens(path string) (int64, error) {
	f, err := openRollout(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("transcript_path: %w", err)
	}
	end := fi.Size()
	var carry []byte // the start of a line whose beginning is further back
	buf := make([]byte, tailChunk)
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return 0, fmt.Errorf("reading %s: %w", path, err)
		}
		end -= n
		block := append(buf[:n:n], carry...)
		// Lines wholly inside block, last first; the first piece may be
		// the end of a line that starts in an earlier chunk.
		for {
			i := bytes.LastIndexByte(block[:max(len(block)-1, 0)], '\n')
			if i < 0 {
				break
			}
			switch kind, tokens := classify(block[i+1:]); kind {
			case isCompaction:
				return 0, nil
			case isUsage:
				return tokens, nil
			}
			block = block[:i+1]
		}
		if end == 0 {
			// The file's first line.
			switch kind, tokens := classify(block); kind {
			case isUsage:
				return tokens, nil
			}
			return 0, nil
		}
		carry = append([]byte(nil), block...)
		if len(carry) > maxHookLine {
			return 0, fmt.Errorf("reading %s: a line longer than %d bytes", path, maxHookLine)
		}
	}
	return 0, nil
}

// tailChunk is how much of a rollout contextTokens reads back at a time;
// maxHookLine bounds the one line it may have to assemble across chunks.
const (
	tailChunk   = 256 << 10
	maxHookLine = 64 << 20
)

func openRollout(path string) (*os.File, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return nil, fmt.Errorf("transcript_path %q is not a Codex rollout (.jsonl)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript_path: %w", err)
	}
	return f, nil
}

// What one rollout line says about the window's usage.
const (
	notUsage     = iota // nothing: a message, a tool call, a partial line
	isCompaction        // a compaction: the window starts again
	isUsage             // a usage record: the context's size
)

// usage is a usage record's token counts.
type usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
}

func (u *usage) total() int64 {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.InputTokens + u.OutputTokens
}

// classify reads one line: a compaction, a usage record (with the context's
// tokens), or neither. A partial line (Codex is writing) is neither.
func classify(raw []byte) (kind int, tokens int64) {
	if len(raw) == 0 || !bytes.Contains(raw, []byte(`"token`)) && !bytes.Contains(raw, []byte(`"compacted"`)) {
		return notUsage, 0
	}
	var line struct {
		Type    string `json:"type"`
		Payload struct {
			Type  string `json:"type"`
			Usage *usage `json:"usage"`
			Info  *struct {
				Last *usage `json:"last_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	if json.Unmarshal(raw, &line) != nil {
		return notUsage, 0
	}
	switch {
	case line.Type == "compacted":
		return isCompaction, 0
	case line.Type == "token_usage_record" && line.Payload.Usage != nil:
		return isUsage, line.Payload.Usage.total()
	case line.Type == "event_msg" && line.Payload.Type == "token_count" && line.Payload.Info != nil && line.Payload.Info.Last != nil:
		return isUsage, line.Payload.Info.Last.total()
	}
	return notUsage, 0
}
