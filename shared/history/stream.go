package history

import (
	"errors"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/notesoup/notesoup/contract"
)

// MaxResponseBytes bounds every rendered history response, notices and
// footers included. Tool results larger than this are truncated or refused
// by some hosts, so the page is chosen to fit instead of being clipped.
const MaxResponseBytes = 32 * 1024

// ErrStopped is what an EmitFunc returns to end a decode early because the
// consumer has what it needs. Decoders pass it through unchanged; Events
// swallows it.
var ErrStopped = contract.ErrStopped

// Projection is one decode of one session, replayable: every range over
// Events decodes the file again, so a consumer that needs two passes (Read
// redirecting a result to its earlier call) keeps no events in memory.
type Projection struct {
	// Events yields the selected events in seq order; a decode error is
	// yielded once, with a zero Event, and ends the sequence.
	Events iter.Seq2[Event, error]
	// Summary returns the summary of the most recent decode (valid once a
	// range over Events has returned).
	Summary func() Summary
}

// Project wraps a decoder, a session and options into a Projection.
func Project(d Decoder, sess Session, opts DecodeOptions) Projection {
	return ProjectFunc(func(emit EmitFunc) (Summary, error) { return d.Decode(sess, opts, emit) })
}

// ProjectFunc makes a Projection of any decode that pushes events to an
// EmitFunc, e.g. a decode streamed from a harness plugin. decode is called
// once per range over Events and must honour ErrStopped (stop and return it,
// or any error) when emit returns it.
func ProjectFunc(decode func(emit EmitFunc) (Summary, error)) Projection {
	var last Summary
	seq := func(yield func(Event, error) bool) {
		stopped := false
		sum, err := decode(func(ev Event) error {
			if !yield(ev, nil) {
				stopped = true
				return ErrStopped
			}
			return nil
		})
		last = sum
		if err != nil && !errors.Is(err, ErrStopped) && !stopped {
			yield(Event{}, err)
		}
	}
	return Projection{Events: seq, Summary: func() Summary { return last }}
}

// RenderOptions returns options that print the decode's Summary.Notice
// (the harness's notice, e.g. Claude's incomplete-history notice) before
// every response, with room reserved for it up front.
func (p Projection) RenderOptions() RenderOptions {
	return RenderOptions{Notice: func() string { return p.Summary().Notice }, NoticeReserve: NoticeReserve}
}

// Slice turns a fixed list of events (tests, fakes) into a replayable
// sequence.
func Slice(events []Event) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for _, ev := range events {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// NoticeReserve is the room a Summary.Notice takes in a response: the
// notice at its bound and the blank line that separates it.
const NoticeReserve = MaxNoticeBytes + len("\n\n")

// RenderOptions are what the caller adds around the harness-neutral text.
type RenderOptions struct {
	// Notice, when non-nil, returns text to print before the response (the
	// Claude incomplete-history notice). It is called once the events have
	// been consumed, so it may depend on the decode's Summary. Its length
	// is budgeted up front by NoticeReserve; a longer notice is cut to it.
	Notice func() string
	// NoticeReserve is the room reserved for the notice, separator
	// included (use the NoticeReserve constant for a Summary.Notice).
	NoticeReserve int
	// ListHint renders how to fetch another list page with the given query
	// (the same filters, a new cursor), e.g. a tool call or a CLI command.
	// Nil renders a history_list call.
	ListHint func(next ListQuery) string
	// ReadHint renders how to read an address from a byte offset. Nil
	// renders a history_read call.
	ReadHint func(seq int64, offset int) string
	// Answer, when set, describes the serialized answer a front end sends
	// (JSON, perhaps with the text and the structured form both), so a page
	// is chosen to keep that answer, not only the text, within
	// MaxResponseBytes: JSON escaping alone can multiply a text's size by
	// six. Nil means the answer is the text itself (the MCP server, the
	// CLI's text output).
	Answer *Answer
}

// Answer is how a front end serializes a history answer, as byte counts.
// Every count must be an upper bound; the page is chosen within them.
type Answer struct {
	// Reserve is the bytes of the answer's own wrapper: its keys, the
	// session reference, the cursors, and its copy of the notice (at most
	// NoticeReserve once escaped: the notice is cut to that).
	Reserve int
	// Entry is the bytes one list entry adds to the answer: its structured
	// form and, when the answer carries the text too, its escaped line
	// (Entry.Line).
	Entry func(e Entry) int
	// Body is the bytes a read's body adds to the answer: its escaped
	// structured copy and, when the answer carries the text too, the
	// escaped copy in the text.
	Body func(body string) int
	// Text is the bytes the text's fixed parts (header, footer, notice) take
	// in the answer: JSONLen when it carries the text, nil when it does not.
	Text func(s string) int
}

// text is the answer size of a fixed part of the text.
func (a *Answer) text(s string) int {
	if a.Text == nil {
		return 0
	}
	return a.Text(s)
}

// JSONLen is the length of s encoded as a JSON string, quotes included,
// as encoding/json writes it with HTML escaping off (SetEscapeHTML(false),
// which every notesoup JSON answer uses): control characters, U+2028,
// U+2029 and invalid UTF-8 take six bytes each, quotes, backslashes,
// newlines, returns and tabs two.
func JSONLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

func (o RenderOptions) notice() string {
	if o.Notice == nil {
		return ""
	}
	n := o.Notice()
	if n == "" {
		return ""
	}
	if len(n)+2 > o.NoticeReserve {
		cut := cutRuneBoundary(n, o.NoticeReserve-len("…")-2)
		if cut < 0 {
			cut = 0
		}
		n = n[:cut] + "…"
	}
	// In a JSON answer the notice's escaped form must fit its reserve too.
	for o.Answer != nil && len(n) > 0 && JSONLen(n+"\n\n") > o.NoticeReserve {
		n = strings.TrimSuffix(n, "…")
		n = n[:cutRuneBoundary(n, len(n)*3/4)] + "…"
		if len(n) <= len("…") {
			n = ""
		}
	}
	if n == "" {
		return ""
	}
	return n + "\n\n"
}

// Wrap prefixes text (typically an error message a tool returns) with the
// notice, so a session's notice accompanies every response about it, query
// errors included. Call it only once the events were consumed (or the
// notice is known); text is returned unchanged when there is no notice.
func (o RenderOptions) Wrap(text string) string {
	return o.notice() + text
}

func (o RenderOptions) noticeReserve() int {
	if o.Notice == nil {
		return 0
	}
	return o.NoticeReserve
}

// IsRetryable reports whether err is a refusal worth retrying shortly.
func IsRetryable(err error) bool { return contract.IsRetryable(err) }
