// Package claude is the Claude Code harness: it decodes the JSONL
// transcripts Claude Code persists under ~/.claude/projects into the
// harness-neutral history model, and lists those sessions.
package claude

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness/jsonl"
	"github.com/notesoup/notesoup/internal/rawread"
	"github.com/notesoup/notesoup/shared/history"
)

// Decoder decodes Claude Code main-session transcripts. The zero value is
// ready to use.
//
// Decoding takes two passes over the file: the first keeps only the graph
// (uuids, links, line numbers, seqs: tens of bytes per row) and selects the
// branch; the second streams the selected rows' text to the EmitFunc. Memory
// is therefore bounded by the row count and the longest line, not by the
// text in the file.
type Decoder struct{}

var _ history.Decoder = Decoder{}

// refusal is the decoder's one error: the transcript cannot be projected as
// it is. line is 0 when the refusal concerns the file as a whole; retry is
// true when it may clear by itself (a head the host reported that is not on
// disk yet).
func refusal(path string, line int, retry bool, reason string) *history.Refusal {
	return &history.Refusal{Harness: Name, Path: path, Line: line, Reason: reason, Retry: retry}
}

// sessionID is the id windows are named after: the session's own (a fork
// uses its new id), else the file name.
func sessionID(sess history.Session) string {
	if sess.ID != "" {
		return sess.ID
	}
	return strings.TrimSuffix(filepath.Base(sess.Path), ".jsonl")
}

// Decode implements history.Decoder.
func (Decoder) Decode(sess history.Session, opts history.DecodeOptions, emit history.EmitFunc) (history.Summary, error) {
	sid := sessionID(sess)
	f, fi, err := rawread.Open(sess.Path)
	if err != nil {
		return history.Summary{}, fmt.Errorf("claude transcript: %w", err)
	}
	defer f.Close()
	// Both passes read through one jsonl.File: a transcript is read once,
	// into a pooled buffer, unless it is too large to hold.
	lf := jsonl.NewFile(f, fi.Size())
	defer lf.Release()
	g, err := readGraph(lf, fi.Size(), sess.Path, sid)
	if err != nil {
		return history.Summary{}, err
	}
	defer g.nodes.release()
	head, err := g.selectHead(opts.Head)
	if err != nil {
		return history.Summary{}, err
	}
	p, err := g.project(head)
	if err != nil {
		return history.Summary{}, err
	}
	sum := g.summary(p)
	sum.Notice = IncompleteHistoryNotice(sum)
	order := g.selectedBySeq(p)
	// The graph's uuid index is no longer needed; let it go before the text
	// pass allocates.
	g.byKey, g.byStr = nil, nil
	return sum, g.emitText(lf, p, order, emit)
}
