package dream

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/notesoup/notesoup/shared/notes"
)

// UndoResult is what an undo did.
type UndoResult struct {
	// PassDir is the pass whose snapshot was restored.
	PassDir string
	// Changes counts what the restore did, both scopes together.
	Changes Changes
}

// Undo puts the notes of the project of cwd back as the newest pass's
// snapshot holds them, byte for byte: notes the pass changed are
// rewritten, notes it deleted come back, notes it created are removed.
// It refuses while a pass runs (ErrBusy), when the newest pass was undone
// already, and, unless force, when the notes changed since the pass ended
// (someone wrote a note after it; restoring would lose that) or the pass
// never recorded its end.
func Undo(home, cwd string, force bool) (UndoResult, error) {
	var res UndoResult
	sp, err := notes.Open(home).Space(cwd)
	if err != nil {
		return res, err
	}
	dir := passesFolder(home, sp)
	// Looked for before the lock, which creates the notes folders: an undo
	// with nothing to undo leaves no trace.
	if names, err := passNames(dir); err != nil || len(names) == 0 {
		if err == nil {
			err = fmt.Errorf("no dream pass to undo for the project %s (none under %s)", sp.Root(), dir)
		}
		return res, err
	}
	release, err := lockDreams(scopeDirs(sp))
	if err != nil {
		return res, err
	}
	defer release()
	names, err := passNames(dir)
	if err != nil {
		return res, err
	}
	passDir := filepath.Join(dir, names[len(names)-1])
	res.PassDir = passDir
	var done undone
	if err := readJSON(filepath.Join(passDir, undoneFile), &done); err == nil {
		return res, fmt.Errorf("the newest dream pass (%s) was undone already at %s; nothing to undo", stampOf(passDir), done.At.Local().Format(time.DateTime))
	} else if !os.IsNotExist(err) {
		return res, err
	}
	var rec before
	if err := readJSON(filepath.Join(passDir, beforeFile), &rec); err != nil {
		return res, fmt.Errorf("the snapshot of the pass of %s cannot be read: %w", stampOf(passDir), err)
	}
	if rec.Version != recordVersion {
		return res, fmt.Errorf("the snapshot %s has format version %d; this notesoup reads %d: undo with the notesoup that made it", passDir, rec.Version, recordVersion)
	}
	scopes := scopesOf(sp)
	snap := map[string]ScopeSnapshot{}
	for _, s := range rec.Scopes {
		snap[s.Label] = s
	}
	for _, sc := range scopes {
		if s, ok := snap[sc.label]; !ok || s.Dir != sc.dir {
			return res, fmt.Errorf("the snapshot %s is of the %s notes in %s, but they are in %s now (the notes home moved?); nothing restored", passDir, sc.label, s.Dir, sc.dir)
		}
	}
	if !force {
		var aft after
		if err := readJSON(filepath.Join(passDir, afterFile), &aft); err != nil {
			if os.IsNotExist(err) {
				return res, fmt.Errorf("the pass of %s did not record its end (notesoup was stopped while it ran), so changes made after it cannot be told apart; notesoup dream --undo --force restores its snapshot anyway", stampOf(passDir))
			}
			return res, err
		}
		var changed []string
		for _, sc := range scopes {
			es, err := readScope(sc.dir)
			if err != nil {
				return res, err
			}
			for _, p := range diff(aft.Scopes[sc.label], sums(es)) {
				changed = append(changed, sc.label+": "+p)
			}
		}
		if len(changed) > 0 {
			return res, fmt.Errorf("the notes changed since the pass of %s ended (%s); undoing would lose those changes: notesoup dream --undo --force restores the snapshot anyway", stampOf(passDir), listPaths(changed))
		}
	}
	for _, sc := range scopes {
		var ch Changes
		err := withNotesLock(sc.dir, func() (err error) {
			ch, err = restoreScope(sc.dir, snap[sc.label].Entries)
			return err
		})
		res.Changes = res.Changes.Add(ch)
		if err != nil {
			return res, fmt.Errorf("%w; the %s notes are partly restored: run notesoup dream --undo --force again once the cause is fixed", err, sc.label)
		}
	}
	if err := writeJSON(filepath.Join(passDir, undoneFile), undone{At: time.Now().UTC(), Changes: res.Changes, Forced: force}); err != nil {
		return res, fmt.Errorf("the notes are restored, but recording the undo in %s failed: %w", passDir, err)
	}
	return res, nil
}
