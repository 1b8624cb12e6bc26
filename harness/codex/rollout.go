package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// This file reads what the hook needs from a live rollout: the context's
// size (the last usage record of the current window) and the compactions
// so far. It is not the history decoder: the hook runs on every tool call,
// so it reads back from the end and decodes only the lines that can matter.

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

// openRollout opens a rollout for reading: a regular file named *.jsonl.
// It opens without blocking, so a FIFO named like a rollout cannot hang the
// hook, and refuses anything but a regular file before reading a byte.
func openRollout(path string) (*os.File, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return nil, fmt.Errorf("transcript_path %q is not a Codex rollout (.jsonl)", path)
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

// bootMarker is how a boot block's opening tag for window
// codex:<thread>:<ord> reads inside a rollout line: a JSON string, its
// quotes escaped.
func bootMarker(thread string, ord int) []byte {
	return []byte(fmt.Sprintf(`<notesoup-boot window=\"codex:%s:%d\">`, thread, ord))
}

// rolloutHasBoot reports whether a rollout holds marker (bootMarker) in a
// line: the boot block of that window was given to the model before. The
// scan reads the whole file once, a line at a time with at most
// maxHookLine bytes kept; it runs only when a thread is resumed.
func rolloutHasBoot(path string, marker []byte) (bool, error) {
	f, err := openRollout(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxHookLine {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if bytes.Contains(line, marker) {
			return true, nil
		}
		line = line[:0]
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}
