// Package history defines the harness-neutral model of a persisted agent
// transcript and the rules (addressing, pairing, paging, search) that every
// harness decoder and every history tool share.
//
// A harness plugin decodes its own file format into Events; everything after
// that (history_list, history_read, history_state) is harness-neutral and lives
// here, so the three harnesses page, search and render identically.
package history

import "github.com/notesoup/notesoup/contract"

// The transcript model's plain types are the harness contract's own
// (package contract), so a harness plugin needs nothing but the contract;
// they are re-exported here under the names the history rules use.
type (
	// Session describes one persisted transcript file of one harness.
	Session = contract.Session
	// Kind says what an Event is.
	Kind = contract.Kind
	// Role is who produced an event, as history_list's role filter sees it.
	Role = contract.Role
	// Event is one addressable item of a transcript.
	Event = contract.Event
	// NoteKind classifies a decoder's projection note.
	NoteKind = contract.NoteKind
	// ProjectionNote is something every reader of a projection must know.
	ProjectionNote = contract.ProjectionNote
	// Summary is what a decoder knows only once it has read the whole file.
	Summary = contract.Summary
	// EmitFunc receives events in ascending seq order; an error it returns
	// stops the decode and is returned.
	EmitFunc = contract.EmitFunc
	// Refusal is the one error a decoder returns when it will not decode.
	Refusal = contract.Refusal
)

// Event kinds (see contract).
const (
	KindMessage    = contract.KindMessage
	KindAttachment = contract.KindAttachment
	KindNotice     = contract.KindNotice
	KindToolUse    = contract.KindToolUse
	KindToolResult = contract.KindToolResult
)

// Roles (see contract).
const (
	RoleUser      = contract.RoleUser
	RoleAssistant = contract.RoleAssistant
	RoleSystem    = contract.RoleSystem
	RoleTool      = contract.RoleTool
)

// Projection note kinds (see contract).
const (
	NoteGap            = contract.NoteGap
	NoteUnknownSegment = contract.NoteUnknownSegment
	NoteRefusal        = contract.NoteRefusal
)

// MaxNoticeBytes bounds Summary.Notice, so history responses can reserve
// room for it before choosing a page.
const MaxNoticeBytes = contract.MaxNoticeBytes

// DecodeOptions tune a decode.
type DecodeOptions struct {
	// Head, when set, names the record (uuid / entry id) that is the live
	// head of the session, as the harness reported it; otherwise the decoder
	// selects the head offline by the harness's rules.
	Head string
}

// Decoder decodes one harness's transcript files.
type Decoder interface {
	// Decode reads the transcript at sess.Path and emits the events of the
	// selected branch in seq order. A refusal is returned as an error that
	// names the file and line.
	Decode(sess Session, opts DecodeOptions, emit EmitFunc) (Summary, error)
}
