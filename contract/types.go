package contract

import (
	"errors"
	"fmt"
	"time"
)

// The plain types below are the contract's own: a plugin built against this
// package alone (see examples/harness-jsonl) speaks the whole contract.
// shared/history and shared/reset give them their harness-neutral meaning
// and re-export them under the same names.

// Session describes one persisted transcript file of one harness.
type Session struct {
	Harness string    `json:"harness"`          // the harness's name, as in selectors ("claude", "jsonl", ...)
	ID      string    `json:"id"`               // the harness's own session / thread id
	Path    string    `json:"path"`             // absolute path of the transcript file
	Cwd     string    `json:"cwd,omitempty"`    // working directory the session ran in, if recorded
	Title   string    `json:"title,omitempty"`  // title or first user prompt, one line, bounded
	Started time.Time `json:"started,omitzero"` // first record's time, zero if unknown
	Updated time.Time `json:"updated,omitzero"` // last record's time (or file mtime), zero if unknown
	Size    int64     `json:"size"`             // file size in bytes
}

// Kind says what an Event is.
type Kind string

// Event kinds. A logical message, attachment or notice takes one address; every
// tool use and every tool result takes one more of its own.
const (
	KindMessage    Kind = "message"     // user / assistant / system text envelope
	KindAttachment Kind = "attachment"  // a recorded attachment rendering
	KindNotice     Kind = "notice"      // harness notice (compaction summary, branch summary, ...)
	KindToolUse    Kind = "tool_use"    // a tool call made by the assistant
	KindToolResult Kind = "tool_result" // the result of a tool call
)

// Role is who produced an event, as history_list's role filter sees it.
// Tool uses and tool results carry RoleTool, so a role filter of "user" or
// "assistant" finds dialogue rather than tool traffic.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
	RoleTool      Role = "tool"
)

// Event is one addressable item of a transcript.
type Event struct {
	// Seq is the stable address: allocated over first-occurrence persisted
	// append order, before branch filtering, starting at 1. It never moves
	// when the file grows.
	Seq int64
	// Window is the window or segment id, e.g. "claude:<sessionId>:2" or
	// "claude:<sessionId>:unknown:<missingUuid>".
	Window string
	Kind   Kind
	Role   Role
	// Text is the visible text only: text blocks and recorded attachment
	// renderings. Thinking, reasoning and raw payloads never appear here.
	Text string
	// ToolName and ToolID are set on tool uses and tool results.
	ToolName string
	ToolID   string
	// ToolInput is a tool use's arguments as recorded (compact JSON). It is
	// what the model wrote, so history_read shows it with the call; it is
	// empty on every other kind.
	ToolInput string
	// IsError marks a tool result the harness recorded as an error.
	IsError bool
	// PairSeq links a tool use to its result and back; 0 when the call is
	// still pending (no result recorded yet).
	PairSeq int64
	Time    time.Time
	// Line is the 1-based line of the file the event came from.
	Line int
}

// NoteKind classifies a decoder's projection note.
type NoteKind string

// Projection note kinds.
const (
	NoteGap            NoteKind = "gap"             // an ancestor the branch needs is missing
	NoteUnknownSegment NoteKind = "unknown_segment" // events without a path to a root
	NoteRefusal        NoteKind = "refusal"         // the decoder refused (invalid schema, cycle, ...)
)

// ProjectionNote is something the decoder wants every reader to know about
// the projection it produced (gaps, unknown segments, refusals).
type ProjectionNote struct {
	Kind    NoteKind
	Message string
	Line    int    // file line it concerns, 0 if none
	Ref     string // the missing uuid, segment id, ... it concerns
}

// Summary is what a decoder knows only once it has read the whole file: the
// windows and segments it saw, its projection notes, and the head's window.
type Summary struct {
	// Windows lists numbered windows in ordinal order, then unknown segments.
	Windows []string
	Notes   []ProjectionNote
	// HeadWindow is the window of the selected head, and HeadKnown says
	// whether its ordinal was resolved independently. When HeadKnown is false
	// history_state must refuse rather than guess.
	HeadWindow string
	HeadKnown  bool
	// HeadOrdinal is the head window's ordinal when HeadKnown.
	HeadOrdinal int
	// Notice is harness-specific text every history response about this
	// projection must carry (Claude's incomplete-history notice), at most
	// MaxNoticeBytes; empty when there is nothing to say.
	Notice string
}

// MaxNoticeBytes bounds Summary.Notice, so history responses can reserve
// room for it before choosing a page.
const MaxNoticeBytes = 1024

// EmitFunc receives events in ascending seq order. Returning an error stops
// the decode and that error is returned.
type EmitFunc func(Event) error

// ErrStopped is what an EmitFunc returns to end a decode early because the
// consumer has what it needs. Decoders pass it through unchanged.
var ErrStopped = errors.New("history: consumer stopped the decode")

// Refusal is the one error a decoder returns when it will not decode a
// file (or a line of it): a damaged record, a schema it does not know, a
// related file outside its roots. It names what was refused and says
// whether trying again shortly may succeed.
type Refusal struct {
	Harness string // the harness whose decoder refused
	Path    string // the file refused; empty when it did not survive a process boundary
	Line    int    // the 1-based line refused, 0 for the whole file
	Reason  string // what is wrong, and the fix where there is one
	// Retry is true when the refusal may clear by itself: a live head not
	// on disk yet, a file rewritten under the reader.
	Retry bool
}

// Error implements error: "harness: path:line: reason".
func (e *Refusal) Error() string {
	msg := e.Reason
	switch {
	case e.Path != "" && e.Line > 0:
		msg = fmt.Sprintf("%s:%d: %s", e.Path, e.Line, msg)
	case e.Path != "":
		msg = e.Path + ": " + msg
	}
	if e.Harness != "" {
		msg = e.Harness + ": " + msg
	}
	return msg
}

// Retryable reports whether the refusal may clear by itself.
func (e *Refusal) Retryable() bool { return e.Retry }

// IsRetryable reports whether err is a refusal worth retrying shortly.
func IsRetryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// ThresholdInput is everything a harness plugin may need to resolve its
// native auto-compaction point. Fields a harness does not use are ignored.
// Raw JSON fields are passed through untouched so each harness can type-check
// its own undocumented fields and fall through to the next source.
type ThresholdInput struct {
	Model       string            // model id as the harness names it
	ModelWindow int64             // the model's context window in tokens, 0 if unknown
	Settings    []byte            // merged settings JSON (Claude: $.settings.read(); Pi: merged settings.json), may be empty
	Env         map[string]string // relevant environment variables
	Usage       []byte            // harness usage report JSON (Claude: $.session.usage({breakdown:"summary"})), may be empty
	Cwd         string            // project directory, for project-level settings files
	Home        string            // the user's home (or HOME override), for user-level settings files
	Overrides   []string          // harness CLI overrides, e.g. Codex "-c key=value" pairs and "--profile name"

	// Cap is the runtime capacity ceiling (/notesoup cap) in tokens, 0 when
	// none. Each harness clamps its effective window to it before deducting
	// its own reserves, so the cap can only lower the native point.
	Cap int64
}

// NativePoint is a harness's native auto-compaction point and where it came from.
type NativePoint struct {
	// Resolved is false when no source produced a point; Reason then says why,
	// and callers must not guess.
	Resolved bool   `json:"resolved"`
	Tokens   int64  `json:"tokens"` // the native auto-compaction point in tokens
	Window   int64  `json:"window"` // the effective context window the point was derived from
	Source   string `json:"source"` // which source produced it, e.g. "usage.autoCompactThreshold"
	// AutoCompactEnabled is false when the harness's automatic compaction is
	// off; warnings still apply but automatic notesoup resets do not.
	AutoCompactEnabled bool   `json:"auto_compact_enabled"`
	Reason             string `json:"reason,omitempty"`

	// CapApplied is true when ThresholdInput.Cap lowered the point.
	CapApplied bool `json:"cap_applied,omitempty"`
	// CompactDisabled is true when the harness cannot compact at all
	// (Claude's DISABLE_COMPACT): budget warnings and explicit resets are
	// suppressed, not only automatic ones.
	CompactDisabled bool `json:"compact_disabled,omitempty"`
	// Notes lists inputs that were present but ignored (wrong type, out of
	// range, unreadable file), so a user can see why a setting had no effect.
	Notes []string `json:"notes,omitempty"`
	// Files lists every settings file the harness consulted (present or
	// not); a memoized point is reused only while none of them changed.
	Files []string `json:"files,omitempty"`
	// PolicySettings is the part of the settings the harness read (the
	// caller's, or its own settings files when the caller passed none)
	// that belongs to notesoup's budget policy: a JSON object holding only
	// their "notesoup" key, or empty. The policy reads its margins from it,
	// so a margin set in the harness's settings file counts in every front
	// end; the rest of the settings (which may hold secrets) stays behind.
	PolicySettings []byte `json:"-"`
}

// Percent returns the point as a percentage of its window, for callers that
// can only measure context fill in percent (Claude's percent fallback).
func (p NativePoint) Percent() float64 {
	if p.Window <= 0 {
		return 0
	}
	return 100 * float64(p.Tokens) / float64(p.Window)
}
