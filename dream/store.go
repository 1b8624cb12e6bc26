package dream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Where the passes are kept: <notes home>/dream/<project key>/<stamp>/,
// one folder per pass, holding before.json (the snapshot), after.json
// (what the pass left, written when it ends) and undone.json (written by
// an undo). Stamps sort by time, so the newest pass is the last name.
const (
	passesDir  = "dream"
	beforeFile = "before.json"
	afterFile  = "after.json"
	undoneFile = "undone.json"
	// stampLayout names a pass folder: UTC, to the nanosecond, sortable.
	stampLayout = "20060102T150405.000000000Z"
	// keepPasses is how many passes of a project are kept; older ones are
	// pruned when a pass ends.
	keepPasses = 10
	// maxRecordBytes bounds a record read back: two scopes at the
	// snapshot's limit, base64-encoded, and room for the JSON around them.
	maxRecordBytes = 2*maxScopeSize*4/3 + 8<<20
)

// ScopeSnapshot is one notes folder as it was before a pass.
type ScopeSnapshot struct {
	// Label is "project" or "global".
	Label string `json:"label"`
	// Dir is the folder, links resolved.
	Dir string `json:"dir"`
	// Entries are its files, folders and links, by path.
	Entries []Entry `json:"entries"`
}

// before is a pass's snapshot, taken before the harness starts.
type before struct {
	Version int             `json:"version"`
	Project string          `json:"project"`
	Harness string          `json:"harness"`
	Started time.Time       `json:"started"`
	Scopes  []ScopeSnapshot `json:"scopes"`
}

// after is what the pass left: each scope's entry sums, so an undo can
// tell whether anything changed the notes since.
type after struct {
	Ended  time.Time                    `json:"ended"`
	Exit   string                       `json:"exit"`
	Scopes map[string]map[string]string `json:"scopes"` // label -> path -> sum
}

// undone records an undo.
type undone struct {
	At      time.Time `json:"at"`
	Changes Changes   `json:"changes"`
	Forced  bool      `json:"forced"`
}

// recordVersion is before.json's format version.
const recordVersion = 1

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), atomicfile.Options{Perm: lockPerm})
}

// readJSON reads a record into v, bounded and only from a regular file.
func readJSON(path string, v any) error {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxRecordBytes {
		return fmt.Errorf("%s is larger than any record a dream pass writes; it is damaged: remove it", path)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is damaged (%v): remove that pass's folder", path, err)
	}
	return nil
}

// passNames lists the pass folders under dir, oldest first.
func passNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list dream passes in %s: %w", dir, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() || skip(e.Name()) {
			continue
		}
		if _, err := time.Parse(stampLayout, e.Name()); err == nil {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// prune removes all but the newest keepPasses pass folders.
func prune(dir string) error {
	names, err := passNames(dir)
	if err != nil {
		return err
	}
	var errs []error
	for len(names) > keepPasses {
		if err := os.RemoveAll(filepath.Join(dir, names[0])); err != nil {
			errs = append(errs, err)
		}
		names = names[1:]
	}
	return errors.Join(errs...)
}

// newPassDir creates the folder of a pass starting at t.
func newPassDir(dir string, t time.Time) (string, error) {
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	p := filepath.Join(dir, t.UTC().Format(stampLayout))
	if err := os.Mkdir(p, dirPerm); err != nil {
		return "", fmt.Errorf("create %s: %w", p, err)
	}
	return p, nil
}

// stampOf is the time a pass folder's name gives, for messages.
func stampOf(passDir string) string {
	t, err := time.Parse(stampLayout, filepath.Base(passDir))
	if err != nil {
		return filepath.Base(passDir)
	}
	return t.Local().Format(time.DateTime)
}

// listPaths renders at most ten paths for a message.
func listPaths(ps []string) string {
	const most = 10
	if len(ps) > most {
		return strings.Join(ps[:most], ", ") + fmt.Sprintf(" and %d more", len(ps)-most)
	}
	return strings.Join(ps, ", ")
}
