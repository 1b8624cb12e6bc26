package claude

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/walk"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// Listing reads only the head and tail of each file: enough for the cwd, the
// first prompt and the latest title, and cheap over thousands of sessions.
const (
	headScanBytes = 256 << 10
	tailScanBytes = 64 << 10
	// maxTitleRunes keeps a title to one short line.
	maxTitleRunes = 120
)

// SessionFiles lists the main transcripts under roots whose names may hold
// an id starting with idPrefix, without reading them: each one's Harness,
// ID (the file name) and Path. A root is read through a symbolic link, and
// a root that cannot be read is an error (the others are still listed); a
// project folder that cannot be read is left out with a notice on stderr.
func SessionFiles(roots []string, idPrefix string) ([]history.Session, error) {
	ss, err := walk.Files(roots, walk.Spec{
		Harness: Name,
		Strict:  true,
		// <root>/<project slug>/<sessionId>.jsonl: subagent transcripts
		// one level deeper are not sessions of their own.
		MinDepth: 1, MaxDepth: 1,
		Keep: func(name string) bool {
			return strings.HasSuffix(name, ".jsonl") && harness.NameMayHold(name, idPrefix)
		},
		ID: func(name string) string { return strings.TrimSuffix(name, ".jsonl") },
	})
	if err != nil {
		err = fmt.Errorf("%s sessions: %w", Name, err)
	}
	return ss, err
}

// Describe describes one transcript (see SessionInfo). A transcript that
// holds no conversation row yet (empty, or only metadata: every session
// starts so for a moment) is not a session to list or pick: reading it
// could only say there is nothing to read. One that cannot be opened
// (unreadable, left by another user; no longer a regular file) is left out
// with a notice on stderr, as a Pi or Codex file is, so it does not hide
// the others; one deleted since it was listed is left out silently.
func Describe(path string) (history.Session, bool, error) {
	s, rows, err := sessionInfo(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			walk.Notice(Name, "transcript left out of the listing", "path", path, "error", err)
		}
		return history.Session{}, false, nil
	}
	return s, rows, nil
}

type infoRecord struct {
	Type        string `json:"type"`
	Cwd         string `json:"cwd"`
	Timestamp   string `json:"timestamp"`
	IsMeta      bool   `json:"isMeta"`
	IsSidechain bool   `json:"isSidechain"`
	// IsCompactSummary marks the user row that carries a compaction's
	// summary: never the person's prompt, so never a title.
	IsCompactSummary bool   `json:"isCompactSummary"`
	CustomTitle      string `json:"customTitle"`
	AITitle          string `json:"aiTitle"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// SessionInfo describes one transcript from its head and tail: id (the file
// name), cwd, title (the latest custom or AI title, else the first typed
// prompt), first and last record times, and size.
func SessionInfo(path string) (history.Session, error) {
	s, _, err := sessionInfo(path)
	return s, err
}

// sessionInfo is SessionInfo, also reporting whether the part of the file
// read holds a conversation row (a file larger than that part is taken to).
func sessionInfo(path string) (s history.Session, rows bool, err error) {
	f, st, err := rawread.Open(path)
	if err != nil {
		return history.Session{}, false, err
	}
	defer f.Close()
	s = history.Session{Harness: Name, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"),
		Path: path, Size: st.Size(), Updated: st.ModTime().UTC()}
	rows = st.Size() > headScanBytes
	abs, err := filepath.Abs(path)
	if err == nil {
		s.Path = abs
	}
	var prompt, custom, ai string
	var last time.Time
	// scan reads r's lines. skipFirst drops the first (the tail starts
	// mid-line); cut drops a last line with no newline (the head ends
	// mid-line), which could only fail to decode, after costing a
	// validation of up to headScanBytes.
	scan := func(r io.Reader, skipFirst, cut bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), headScanBytes)
		unterminated := false
		sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			adv, tok, err := bufio.ScanLines(data, atEOF)
			unterminated = tok != nil && adv == len(data) && atEOF && (len(data) == 0 || data[len(data)-1] != '\n')
			return adv, tok, err
		})
		first := true
		for sc.Scan() {
			if first && skipFirst {
				first = false // the tail starts mid-line
				continue
			}
			first = false
			if cut && unterminated {
				break
			}
			var rec infoRecord
			if !decodeInfo(sc.Bytes(), &rec) {
				continue
			}
			rows = rows || isRowType(rec.Type)
			if rec.Cwd != "" && s.Cwd == "" {
				s.Cwd = rec.Cwd
			}
			if t, err := time.Parse(time.RFC3339Nano, rec.Timestamp); err == nil {
				if s.Started.IsZero() {
					s.Started = t.UTC()
				}
				if t.After(last) {
					last = t.UTC()
				}
			}
			switch rec.Type {
			case "custom-title":
				if rec.CustomTitle != "" {
					custom = rec.CustomTitle // the last one wins
				}
			case "ai-title":
				if rec.AITitle != "" {
					ai = rec.AITitle
				}
			case typeUser:
				if prompt == "" && !rec.IsMeta && !rec.IsSidechain && !rec.IsCompactSummary && rec.Message != nil {
					if text := promptText(rec.Message.Content); isTypedPrompt(text) {
						prompt = text
					}
				}
			}
		}
	}
	scan(io.LimitReader(f, headScanBytes), false, st.Size() > headScanBytes)
	if st.Size() > headScanBytes {
		off := st.Size() - tailScanBytes
		if off < headScanBytes {
			off = headScanBytes
		}
		if _, err := f.Seek(off, io.SeekStart); err == nil {
			scan(f, true, false)
		}
	}
	title := custom
	for _, t := range []string{ai, prompt} {
		if title == "" {
			title = t
		}
	}
	s.Title = shortTitle(title)
	if !last.IsZero() {
		s.Updated = last
	}
	return s, rows, nil
}

// promptText is the text a user row's content shows as a prompt: a string,
// or the text blocks of a block array (a prompt sent with an image). A row
// of tool results is no prompt.
func promptText(content json.RawMessage) string {
	var text string
	if json.Unmarshal(content, &text) == nil {
		return text
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			return ""
		}
	}
	return strings.Join(parts, " ")
}

// isTypedPrompt skips engine-made user rows (command echoes, caveats, task
// notifications) that would make useless titles.
func isTypedPrompt(text string) bool {
	t := strings.TrimSpace(text)
	return t != "" && !strings.HasPrefix(t, "<")
}

// shortTitle masks the title's secrets before it cuts anything
// (history.TitleSource), then keeps one short line.
func shortTitle(s string) string {
	s = strings.Join(strings.Fields(history.TitleSource(s)), " ")
	r := []rune(s)
	if len(r) > maxTitleRunes {
		return string(r[:maxTitleRunes-1]) + "…"
	}
	return s
}
