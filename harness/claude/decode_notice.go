package claude

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/notesoup/notesoup/shared/history"
)

// MaxNoticeBytes bounds the incomplete-history notice, so the history tools
// can reserve room for it before choosing a page (history.MaxNoticeBytes
// bounds every harness's Summary.Notice).
const MaxNoticeBytes = history.MaxNoticeBytes

// noticeUUIDs is how many missing uuids the notice names before "and N
// more": enough evidence to look them up, bounded whatever the damage.
const noticeUUIDs = 3

// forkCutPrefix starts the gap note of a compact boundary whose earlier
// history a fork did not copy: its Ref is the boundary, which is in the
// file, not a missing record.
const forkCutPrefix = "the history before compact boundary "

// IncompleteHistoryNotice is the Claude-specific notice both history tools
// prepend, whatever they return (even empty pages and query errors), when the
// projection has ancestry gaps. It is "" for a complete projection. It is
// outside event documents, search matches and read offsets, and at most
// MaxNoticeBytes long. It names as missing only records the file lacks; a
// fork's cut at a compaction is named by its compact boundary.
func IncompleteHistoryNotice(s history.Summary) string {
	var missing, cuts, segments []string
	for _, n := range s.Notes {
		switch {
		case n.Kind == history.NoteGap && strings.HasPrefix(n.Message, forkCutPrefix):
			cuts = append(cuts, n.Ref)
		case n.Kind == history.NoteGap:
			missing = append(missing, n.Ref)
		case n.Kind == history.NoteUnknownSegment:
			segments = append(segments, n.Ref)
		}
	}
	if len(missing) == 0 && len(cuts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[incomplete history] This Claude Code transcript does not hold all of the selected branch's history: ")
	if len(missing) > 0 {
		fmt.Fprintf(&b, "%d ancestor record(s) are missing from the file (uuid %s", len(missing), strings.Join(bounded(missing), ", "))
		if len(missing) > noticeUUIDs {
			fmt.Fprintf(&b, " and %d more", len(missing)-noticeUUIDs)
		}
		b.WriteString(")")
	}
	if len(cuts) > 0 {
		if len(missing) > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "it is a fork that copied only the rows after %d compaction(s), not the history before (compact boundary uuid %s", len(cuts), strings.Join(bounded(cuts), ", "))
		if len(cuts) > noticeUUIDs {
			fmt.Fprintf(&b, " and %d more", len(cuts)-noticeUUIDs)
		}
		b.WriteString(")")
	}
	b.WriteString(". Earlier events on those paths are not shown")
	if len(segments) > 0 {
		fmt.Fprintf(&b, "; %d segment(s) with no path to the session's start are named claude:<session>:unknown:<uuid>, their window ordinals unknown", len(segments))
	}
	b.WriteString(". Append order is not used to fill the gap.")
	out := strings.ToValidUTF8(b.String(), "")
	if len(out) > MaxNoticeBytes {
		cut := MaxNoticeBytes - len("…")
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

func bounded(ss []string) []string {
	if len(ss) > noticeUUIDs {
		ss = ss[:noticeUUIDs]
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		// A uuid is short; a hostile one is cut so the notice stays bounded.
		if len(s) > 64 {
			s = s[:64] + "…"
		}
		out[i] = s
	}
	return out
}
