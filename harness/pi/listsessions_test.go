package pi

import (
	"github.com/notesoup/notesoup/harness/harnesstest"
	"github.com/notesoup/notesoup/shared/history"
)

// listSessions lists and describes the session files under roots, as the
// plugin's ListSessions does through SessionFiles and Describe.
func listSessions(roots []string) ([]history.Session, error) {
	return harnesstest.ListSessions(SessionFiles, Describe, roots)
}
