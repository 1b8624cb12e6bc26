package codex

import (
	"fmt"
	"strings"

	"github.com/notesoup/notesoup/shared/history"
)

// gapNotice is the incomplete-history notice every history response about
// a fork whose parent rollout is missing carries (Summary.Notice), at most
// history.MaxNoticeBytes long; "" when nothing is missing.
func gapNotice(notes []history.ProjectionNote) string {
	var missing []string
	for _, n := range notes {
		if n.Kind == history.NoteGap {
			missing = append(missing, n.Ref)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	out := fmt.Sprintf("[incomplete history] This Codex rollout inherits history from thread %s, which could not be read in full: the inherited events are missing, and the window ordinals after the gap are unknown unless a notesoup boot names them. Nothing is invented to fill the gap.",
		strings.Join(missing, ", "))
	if len(out) > history.MaxNoticeBytes {
		out = strings.ToValidUTF8(out[:history.MaxNoticeBytes-len("…")], "") + "…"
	}
	return out
}
