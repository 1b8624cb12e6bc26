// Package history defines the harness-neutral model of a persisted agent
// transcript and the rules (addressing, pairing, paging, search) that every
// harness decoder and every history tool share.
//
// A harness plugin decodes its own file format into Events; everything after
// that (history_list, history_read, history_state) is harness-neutral and lives
// here, so the three harnesses page, search and render identically.
package history

import "time"

// Harness names as they appear in window ids and session selectors.
const (
	HarnessClaude = "claude"
	HarnessPi     = "pi"
	HarnessCodex  = "codex"
)

// Session describes one persisted transcript file of one harness.
type Session struct {
	Harness string    `json:"harness"`          // "claude", "pi" or "codex"
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

// DecodeOptions tune a decode.
type DecodeOptions struct {
	// Head, when set, names the record (uuid / entry id) that is the live
	// head of the session, as the harness reported it; otherwise the decoder
	// selects the head offline by the harness's rules.
	Head string
}

// EmitFunc receives events in ascending seq order. Returning an error stops
// the decode and that error is returned.
type EmitFunc func(Event) error

// Decoder decodes one harness's transcript files.
type Decoder interface {
	// Decode reads the transcript at sess.Path and emits the events of the
	// selected branch in seq order. A refusal is returned as an error that
	// names the file and line.
	Decode(sess Session, opts DecodeOptions, emit EmitFunc) (Summary, error)
}
