package vault

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Retention is what a harness says about deleting its own transcripts:
// the setting, the period, and when it will next delete something (the
// oldest transcript's modification time plus the period). Package vault
// only carries it; each harness package fills it in (harness/*/retention.go).
type Retention struct {
	Harness string `json:"harness"`
	// Known is false when nothing is known about the harness deleting
	// transcripts (Note says so).
	Known bool `json:"known"`
	// Deletes is false when the setting keeps transcripts for good.
	Deletes bool `json:"deletes"`
	// Setting is the setting as the person would look it up, with its
	// value and where it comes from ("cleanupPeriodDays = 30 (default)").
	Setting string `json:"setting,omitempty"`
	// Period is how old a transcript gets before it is deleted.
	Period time.Duration `json:"period_ns,omitempty"`
	// Oldest is the oldest transcript's modification time under the roots.
	Oldest time.Time `json:"oldest,omitzero"`
	// Next is when the harness will next delete something: Oldest plus
	// Period, at its next start after that (zero when nothing will be).
	Next time.Time `json:"next_delete,omitzero"`
	// Note says anything else worth knowing (a limit by count, a broken
	// settings file).
	Note string `json:"note,omitempty"`
}

// maxScan bounds OldestModTime's walk: a root with more files than this
// answers from those it saw.
const maxScan = 200000

// OldestModTime returns the oldest modification time of the regular files
// under roots (entering folders at most depth levels below a root) whose names keep accepts, or
// the zero time when there are none. Symbolic links are not followed.
func OldestModTime(roots []string, depth int, keep func(name string) bool) time.Time {
	var oldest time.Time
	seen := 0
	for _, root := range roots {
		root = filepath.Clean(root)
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || seen >= maxScan {
				return filepath.SkipDir
			}
			seen++
			if d.IsDir() {
				if rel, _ := filepath.Rel(root, p); rel != "." && depthOf(rel) > depth {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !keep(d.Name()) {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if oldest.IsZero() || fi.ModTime().Before(oldest) {
				oldest = fi.ModTime()
			}
			return nil
		})
	}
	return oldest
}

func depthOf(rel string) int {
	n := 1
	for _, c := range rel {
		if c == os.PathSeparator {
			n++
		}
	}
	return n
}

// NextDelete is when a transcript last modified at oldest is deleted by a
// harness keeping them for period: the zero time without one.
func NextDelete(oldest time.Time, period time.Duration) time.Time {
	if oldest.IsZero() || period < 0 {
		return time.Time{}
	}
	return oldest.Add(period)
}
