package claude

import (
	"errors"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
)

// listSessions lists and describes the main transcripts under root, as the
// plugin's ListSessions does through SessionFiles and Describe.
func listSessions(root string) ([]history.Session, error) { return findSessions(root, "") }

// findSessions is listSessions describing only the files whose names may
// hold an id starting with idPrefix (harness.NameMayHold).
func findSessions(root, idPrefix string) ([]history.Session, error) {
	found, err := SessionFiles([]string{root}, idPrefix)
	sessions, derr := harness.Describe(harness.Paths(found), Describe, nil)
	return sessions, errors.Join(err, derr)
}
