package claude

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/internal/installdir"
	"github.com/notesoup/notesoup/vault"
)

// Retention says how Claude Code deletes transcripts: at startup, every
// session file whose modification time is older than cleanupPeriodDays
// (settings.json; DefaultCleanupDays when unset). roots are the session
// roots to find the oldest transcript under (nil: the default root).
func Retention(_ context.Context, roots []string) vault.Retention {
	r := vault.Retention{Harness: Name, Known: true}
	if len(roots) == 0 {
		root, err := DefaultRoot()
		if err != nil {
			r.Note = err.Error()
			return r
		}
		roots = []string{root}
	}
	dir, err := ConfigDir()
	if err != nil {
		r.Note = err.Error()
		return r
	}
	path := filepath.Join(dir, "settings.json")
	var s settings
	days, from := float64(DefaultCleanupDays), "default"
	if _, err := installdir.ReadJSON(path, &s); err != nil {
		r.Note = fmt.Sprintf("%v; Claude Code's default applies", err)
	} else if s.CleanupPeriodDays != nil {
		days, from = *s.CleanupPeriodDays, path
	}
	r.Setting = fmt.Sprintf("cleanupPeriodDays = %g (%s)", days, from)
	if days >= keepDays {
		return r // a century: kept, in effect
	}
	r.Deletes = true
	r.Period = time.Duration(days * float64(24*time.Hour))
	// Session files sit in projects/<project>/.
	r.Oldest = vault.OldestModTime(roots, 1, func(n string) bool { return strings.HasSuffix(n, ".jsonl") })
	r.Next = vault.NextDelete(r.Oldest, r.Period)
	return r
}
