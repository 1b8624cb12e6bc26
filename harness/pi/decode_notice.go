package pi

import (
	"fmt"
	"strings"

	"github.com/notesoup/notesoup/shared/history"
)

// gapNotice is the incomplete-history notice every history response about
// a projection with a missing ancestor carries (Summary.Notice), at most
// history.MaxNoticeBytes long; "" when the active branch is complete.
func gapNotice(notes []history.ProjectionNote) string {
	var missing, segments []string
	for _, n := range notes {
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
	out := fmt.Sprintf("[incomplete history] This Pi session file lacks the parent entry %s of its active branch: earlier events on that path are not shown, and events from there on are in the segment %s, whose window ordinal is unknown. File order is not used to fill the gap.",
		strings.Join(missing, ", "), strings.Join(segments, ", "))
	if len(out) > history.MaxNoticeBytes {
		out = strings.ToValidUTF8(out[:history.MaxNoticeBytes-len("…")], "") + "…"
	}
	return out
}
