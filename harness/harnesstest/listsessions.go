package harnesstest

import (
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/history"
)

// ListSessions lists and describes the session files under roots as a
// plugin's ListSessions does (harness.Builtin): the files walked by files,
// each described by describe, newest first; an error of the walk is the
// answer's.
func ListSessions(files func(roots []string, idPrefix string) ([]history.Session, error), describe harness.Describer, roots []string) ([]history.Session, error) {
	found, err := files(roots, "")
	if err != nil {
		return nil, err
	}
	return harness.Describe(harness.Paths(found), describe, nil)
}
