package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/reset"
)

// The budget warning, once per window, as Codex has it (harness/codex):
// the AfterTool and BeforeAgent hooks read the chat's last token count
// and, once it is past the warning point below Gemini's own compression
// point, answer the warning as hookSpecificOutput.additionalContext. A
// marker file per window (created with O_EXCL) makes it once per window,
// across the concurrent hook processes of parallel tool calls.

// warnedDir is the directory under the hook state directory holding one
// marker file per window that has had its budget warning.
const warnedDir = "gemini-warned"

// tailChunk is how much of a chat lastUsage reads back at a time;
// maxUsageLine bounds the one line it may have to assemble across chunks
// (a message is written whole with its tool results, so a line can be
// large, but not this large).
const (
	tailChunk    = 256 << 10
	maxUsageLine = 64 << 20
)

// chatUsage is what the chat says about the current window's size.
type chatUsage struct {
	// Tokens is the prompt token count of the last model response in the
	// current window (tokens.input: the API's promptTokenCount, the figure
	// Gemini compares with its compression point); 0 when none was
	// recorded since the history was last replaced.
	Tokens int64
	// Model is the model that answered that response ("" when unknown).
	Model string
	// End is the offset just past the chat's last complete line when it
	// was read: what a later read may start from without a torn line.
	End int64
}

// lastUsage reads the chat at path from its end back to the last line that
// decides the window's size: a Gemini message carrying tokens, or a line
// that replaces or cuts the history ($set.messages at a compression or a
// resume, $rewindTo), after which nothing is known until the next
// response. AfterTool runs after every tool call and a long chat is tens
// of MB, so only the tail that matters is read.
func lastUsage(path string) (chatUsage, error) {
	f, err := openChat(path)
	if err != nil {
		return chatUsage{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return chatUsage{}, fmt.Errorf("transcript_path: %w", err)
	}
	u, err := readBack(f, path, fi.Size())
	if err != nil {
		return chatUsage{}, err
	}
	return u, nil
}

// readBack is lastUsage over an open chat of size bytes.
func readBack(f io.ReaderAt, path string, size int64) (chatUsage, error) {
	end := size
	lineEnd := int64(-1) // the offset past the last newline, once found
	var carry []byte     // the start of a line whose beginning is further back
	buf := make([]byte, tailChunk)
	found := func(u chatUsage) chatUsage {
		u.End = max(lineEnd, 0)
		return u
	}
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return chatUsage{}, fmt.Errorf("reading %s: %w", path, err)
		}
		end -= n
		block := append(buf[:n:n], carry...)
		if lineEnd < 0 {
			if i := bytes.LastIndexByte(block, '\n'); i >= 0 {
				lineEnd = end + int64(i) + 1
			}
		}
		// Lines wholly inside block, last first; the first piece may be
		// the end of a line that starts in an earlier chunk.
		for {
			i := bytes.LastIndexByte(block[:max(len(block)-1, 0)], '\n')
			if i < 0 {
				break
			}
			if u, done := classifyLine(block[i+1:]); done {
				return found(u), nil
			}
			block = block[:i+1]
		}
		if end == 0 {
			u, _ := classifyLine(block) // the file's first line
			return found(u), nil
		}
		carry = append([]byte(nil), block...)
		if len(carry) > maxUsageLine {
			return chatUsage{}, fmt.Errorf("reading %s: a line longer than %d bytes", path, maxUsageLine)
		}
	}
	return found(chatUsage{}), nil
}

// replacesHistory reports whether a chat line is a $set.messages: the
// history replaced, at a compression (one more window) or a resume.
func replacesHistory(raw []byte) bool {
	if !bytes.Contains(raw, []byte(`"$set"`)) {
		return false
	}
	var l usageLine
	if json.Unmarshal(raw, &l) != nil || l.RewindTo != nil || l.ID != nil {
		return false
	}
	return len(l.Set) > 0 && setsMessages(l.Set)
}

// setsMessages reports whether a $set object carries a messages list.
func setsMessages(set json.RawMessage) bool {
	var v struct {
		Messages json.RawMessage `json:"messages"`
	}
	return json.Unmarshal(set, &v) == nil && len(v.Messages) > 0 && string(v.Messages) != "null"
}

// usageLine is the part of a chat line classifyLine reads.
type usageLine struct {
	ID       *string         `json:"id"`
	Type     string          `json:"type"`
	Model    string          `json:"model"`
	RewindTo *string         `json:"$rewindTo"`
	Set      json.RawMessage `json:"$set"`
	Tokens   *struct {
		Input int64 `json:"input"`
	} `json:"tokens"`
}

// classifyLine reads one chat line, as the CLI's loader tries its kinds: a
// rewind, a message, a metadata patch. done is true when the line decides
// the window's size: a Gemini message with tokens (u holds them), or a
// rewind or a history replacement (u is zero). A torn or foreign line
// decides nothing.
func classifyLine(raw []byte) (u chatUsage, done bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || !bytes.Contains(raw, []byte(`"tokens"`)) && !bytes.Contains(raw, []byte(`"$`)) {
		return chatUsage{}, false
	}
	var l usageLine
	if json.Unmarshal(raw, &l) != nil {
		return chatUsage{}, false
	}
	switch {
	case l.RewindTo != nil:
		return chatUsage{}, true
	case l.ID != nil:
		if l.Type != "gemini" || l.Tokens == nil {
			return chatUsage{}, false
		}
		return chatUsage{Tokens: max(l.Tokens.Input, 0), Model: strings.TrimSpace(l.Model)}, true
	case len(l.Set) > 0 && setsMessages(l.Set):
		return chatUsage{}, true
	}
	return chatUsage{}, false
}

// openChat opens a chat file for reading: a regular file named *.jsonl.
// It opens without blocking, so a FIFO named like a chat cannot hang the
// hook, and refuses anything but a regular file before reading a byte.
func openChat(path string) (*os.File, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return nil, fmt.Errorf("transcript_path %q is not a Gemini CLI chat (.jsonl)", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("transcript_path: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("transcript_path: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("transcript_path %q is not a regular file", path)
	}
	return f, nil
}

// checkTranscriptPath keeps the hook's reads inside Gemini's chat roots:
// the payload names the file, so it is checked like any other input.
func checkTranscriptPath(path string, getenv func(string) string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("transcript_path %q is not absolute", path)
	}
	h, err := home(getenv, os.UserHomeDir)
	if err != nil {
		return fmt.Errorf("transcript_path: %w", err)
	}
	root := filepath.Join(h, "tmp")
	rel, err := filepath.Rel(root, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("transcript_path %q is not under Gemini's chat folder %s; set %s as the Gemini CLI runs with it", path, root, envHome)
	}
	return nil
}

// memoSuffix names the file, beside the window markers, that remembers a
// session's window ordinal and how much of its chat it covers: past the
// warning point every hook needs the ordinal, and the history decoder's
// answer costs a whole decode (seconds for a chat of tens of MB), while
// only a $set.messages line can change it.
const memoSuffix = ".window"

// maxMemoBytes bounds the memo file: two numbers.
const maxMemoBytes = 64

// memoOrdinal returns the ordinal the memo records when the chat, from the
// offset the memo covers up to end (a line end), holds no line that
// replaces the history; ok is false when that is not known.
func memoOrdinal(memo, chatPath string, end int64) (ord int, ok bool) {
	data, err := rawread.ReadAll(memo, maxMemoBytes)
	if err != nil {
		return 0, false
	}
	var off int64
	if n, err := fmt.Sscanf(string(data), "%d %d\n", &ord, &off); n != 2 || err != nil || ord < 0 || off < 0 || off > end {
		return 0, false
	}
	f, err := openChat(chatPath)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	lr := jsonl.NewReaderMax(io.NewSectionReader(f, off, end-off), maxUsageLine)
	for {
		b, _, err := lr.Next()
		if err == io.EOF {
			return ord, true
		}
		if err != nil || replacesHistory(b) {
			return 0, false
		}
	}
}

// writeMemo records that the chat up to end is in window ord. A memo that
// cannot be written costs only a decode next time, so errors are dropped.
func writeMemo(memo string, ord int, end int64) {
	_ = atomicfile.Write(memo, fmt.Appendf(nil, "%d %d\n", ord, end), atomicfile.Options{Perm: 0o600})
}

// thresholdEnv is the part of the hook's environment Gemini's compression
// point depends on (thresholds.go): where its settings are, and the model.
func thresholdEnv(getenv func(string) string) map[string]string {
	env := map[string]string{}
	for _, k := range []string{envHome, envModel, envSystemSettings, envSystemDefaults} {
		if v := getenv(k); v != "" {
			env[k] = v
		}
	}
	return env
}

// warning returns the budget warning when the chat's last prompt is past
// the warning point and this window (the session's compressions so far,
// as the history decoder counts them) has had none yet; undo takes the
// window's marker back when the answer could not be written.
func warning(ctx context.Context, env harness.HookEnv, getenv func(string) string, in hookInput) (text string, undo func(), err error) {
	if in.TranscriptPath == "" {
		return "", nil, nil // nothing to measure (a session Gemini does not record)
	}
	if err := checkTranscriptPath(in.TranscriptPath, getenv); err != nil {
		return "", nil, err
	}
	u, err := lastUsage(in.TranscriptPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, nil // not written yet: no response measured
	}
	if err != nil {
		return "", nil, err
	}
	if u.Tokens <= 0 {
		return "", nil, nil
	}
	l, err := env.Limits(ctx, reset.ThresholdInput{Model: u.Model, Env: thresholdEnv(getenv), Cwd: in.Cwd})
	if err != nil {
		return "", nil, err
	}
	if !reset.WarningDue(l, u.Tokens, false) {
		return "", nil, nil
	}
	memo := filepath.Join(env.StateDir(), warnedDir, in.SessionID+memoSuffix)
	ord, ok := memoOrdinal(memo, in.TranscriptPath, u.End)
	if !ok {
		ord, err = env.WindowOrdinal(ctx, in.SessionID, in.Cwd)
		if err != nil {
			return "", nil, fmt.Errorf("window ordinal of session %s: %v", in.SessionID, err)
		}
		defer writeMemo(memo, ord, u.End)
	}
	mark := filepath.Join(env.StateDir(), warnedDir, fmt.Sprintf("%s.%d", in.SessionID, ord))
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
	return warningText(u.Tokens, l.Native), func() { os.Remove(mark) }, nil
}

// toolPrefix starts the names Gemini gives notesoup's MCP tools.
const toolPrefix = "mcp_" + serverName + "_"

// warningText is the budget warning for Gemini: the shared warning's order
// of work (reset.WarningText), ending with Gemini's own compression instead
// of a reset tool Gemini does not have, and counting down to Gemini's
// compression point.
func warningText(contextTokens, native int64) string {
	left := native - contextTokens
	if left < 0 {
		left = 0
	}
	return "notesoup budget warning: this context window is nearly full. " +
		"When it reaches its limit the Gemini CLI will compress it on its own, replacing the older conversation with its own summary, which keeps little of what is only in this window; notesoup cannot empty a Gemini window for you. " +
		"Act now, before starting anything new: " +
		"(1) finish or safely park the step you are on; " +
		"(2) write down in your notes (" + toolPrefix + notes.ToolWrite + ", " + toolPrefix + notes.ToolEdit + ") what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; " +
		"(3) then carry on: after the compression, your notes are what carries the work. " +
		"About " + reset.GroupDigits(left) + " tokens left before Gemini compresses."
}
