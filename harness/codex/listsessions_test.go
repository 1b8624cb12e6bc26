package codex

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
)

// listSessions lists and describes the session files under roots, as the
// plugin's ListSessions does through SessionFiles and Describe.
func listSessions(roots []string) ([]history.Session, error) {
	found, err := SessionFiles(roots, "")
	if err != nil {
		return nil, err
	}
	return harness.Describe(harness.Paths(found), Describe, nil)
}
