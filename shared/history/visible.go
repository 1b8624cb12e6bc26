package history

import (
	"iter"
	"strings"
	"unicode"

	"github.com/notesoup/notesoup/shared/redact"
)

// This file is THE ONE POINT where transcript text becomes text notesoup
// shows: every output path (history_list and history_read through the CLI,
// MCP and the helper protocol, `notesoup search` human and --json, session
// titles in listings and refusals, and every cache that keeps any of
// these: the search's answers, the harnesses' session descriptions) takes
// transcript text through the functions below, which mask secrets with shared/redact. Two rules make
// that safe:
//
//   - Mask before cutting. A snippet, a title or a page is cut from text
//     already masked; cutting first can split a token so that no rule
//     recognises the rest, which then prints.
//   - Decide on masked text. A query matches the masked text, so searching
//     for a secret finds nothing; marker text ("[REDACTED …]") may match.
//
// Masking is idempotent, so a caller that cannot know whether its text
// passed here already (a description cached by a harness) may pass it
// again.

// VisibleText returns transcript text with its secrets masked.
func VisibleText(s string) string { return redact.Mask(s) }

// VisibleEvent returns ev with its visible text and tool input masked.
func VisibleEvent(ev Event) Event {
	ev.Text = redact.Mask(ev.Text)
	ev.ToolInput = redact.Mask(ev.ToolInput)
	return ev
}

// VisibleEvents wraps an event stream so that every event passes through
// VisibleEvent before paging, searching or rendering sees it.
func VisibleEvents(events iter.Seq2[Event, error]) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for ev, err := range events {
			if err == nil {
				ev = VisibleEvent(ev)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// VisibleSession returns s with its title masked. A built-in harness's
// title passed TitleSource before it was clipped; an external plugin's
// arrives as the plugin made it, so it is masked here too (a no-op on a
// title masked already).
func VisibleSession(s Session) Session {
	s.Title = redact.Mask(s.Title)
	return s
}

// titleSourceBytes bounds the text a title is masked from: a first prompt
// may be megabytes pasted, and a title shows 120 runes of it. It is far
// more than a title shows, so masking (which may shorten a text, a private
// key block to a marker) rarely brings the cut into view, and the word the
// cut splits is dropped anyway.
const titleSourceBytes = 16 << 10

// TitleSource prepares the text a session's title is cut from: at most
// titleSourceBytes of it, masked before any cutting; when the text was
// longer, the word the bound split is dropped (a token cut short may no
// longer look like one) and "…" marks the cut. The caller then collapses
// and clips it to its own bound.
func TitleSource(s string) string {
	if len(s) <= titleSourceBytes {
		return redact.Mask(s)
	}
	s = redact.Mask(s[:cutRuneBoundary(s, titleSourceBytes)])
	s = strings.TrimRightFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
	return s + "…"
}

// Title makes a session title of s for a listing: masked (TitleSource),
// whitespace (newlines included) collapsed to single spaces, at most max
// runes, a cut marked with "…".
func Title(s string, max int) string {
	var b strings.Builder
	space, n := false, 0
	for _, r := range strings.TrimSpace(TitleSource(s)) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			if n+1 >= max {
				b.WriteString("…")
				return b.String()
			}
			b.WriteByte(' ')
			n++
		}
		if n >= max {
			b.WriteString("…")
			return b.String()
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}
