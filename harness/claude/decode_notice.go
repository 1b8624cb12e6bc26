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

// IncompleteHistoryNotice is the Claude-specific notice both history tools
// prepend, whatever they return (even empty pages and query errors), when the
// projection has ancestry gaps. It is "" for a complete projection. It is
// outside event documents, search matches and read offsets, and at most
// MaxNoticeBytes long.
func IncompleteHistoryNotice(s history.Summary) string {
	var missing, segments []string
	for _, n := range s.Notes {
		switch n.Kind {
		case history.NoteGap:
			missing = append(missing, n.Ref)
		case history.NoteUnknownSegment:
			segments = append(segments, n.Ref)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[incomplete history] This Claude Code transcript does not hold all of the selected branch's history: its ancestry is cut at %d point(s) (uuid %s",
		len(missing), strings.Join(bounded(missing), ", "))
	if len(missing) > noticeUUIDs {
		fmt.Fprintf(&b, " and %d more", len(missing)-noticeUUIDs)
	}
	b.WriteString("), by a record missing from the file or by a fork that copied only the rows after a compaction. Earlier events on those paths are not shown")
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
