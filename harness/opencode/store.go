package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/notesoup/notesoup/contract"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// maxIDBytes bounds a session id. OpenCode's are "ses_" and 26 letters and
// digits; ids travel into selectors, window ids and terminals, so anything
// else in the database is not listed.
const maxIDBytes = 128

// idRule says what validID accepts, for error messages.
const idRule = "an id is 1 to 128 ASCII letters, digits, '-', '_' or '.', not starting with '.'"

// validID reports whether id may name a session.
func validID(id string) bool {
	if id == "" || len(id) > maxIDBytes || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// isDBName reports whether name is one of OpenCode's database names:
// opencode.db (the latest, beta and prod channels) or opencode-<channel>.db
// (any other channel, whose name OpenCode reduces to [a-zA-Z0-9._-]).
func isDBName(name string) bool {
	if name == "opencode.db" {
		return true
	}
	ch, ok := strings.CutPrefix(name, "opencode-")
	if !ok {
		return false
	}
	ch, ok = strings.CutSuffix(ch, ".db")
	return ok && validID(ch)
}

// dbFiles lists the databases directly inside root that the plugin reads:
// OpenCode's own names, and the one $OPENCODE_DB names when it is there.
// A missing root holds none.
func dbFiles(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if e.Type().IsRegular() && ownedDB(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ownedDB reports whether path is named as a database this plugin reads.
func ownedDB(path string) bool {
	if isDBName(filepath.Base(path)) {
		return true
	}
	data, err := dataDir()
	if err != nil {
		return false
	}
	db, ok := envDB(data)
	return ok && db == path
}

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// headerBytes is the database header; byte 18 is its write version, 2 for
// a database in WAL mode.
const headerBytes = 100

// busyTimeoutMS bounds how long a read waits for a lock OpenCode holds
// (in WAL mode readers wait only while a writer recovers or restarts the
// log); past it the read is refused as retryable.
const busyTimeoutMS = 2000

// store is an open database, read-only.
type store struct {
	db   *sql.DB
	path string
	mode string // how it was opened, for errors: "read-only" or "immutable"
}

// openStore opens path read-only if it is a database this harness owns: a
// regular file, not a link, named as OpenCode names its databases,
// directly inside one of roots, starting with SQLite's header.
//
// Reading a WAL database read-only needs its -shm index, and SQLite would
// create a missing -shm (and -wal) even for a read-only connection. So:
//   - with both the -wal and the -shm there (OpenCode running, or crashed),
//     it opens with mode=ro: a consistent snapshot that includes the
//     newest rows in the -wal, taking only the shared read locks every
//     reader takes in the existing -shm;
//   - with no -wal (OpenCode closed it cleanly, checkpointing everything
//     into the file; a stale -shm alone holds nothing), it opens with
//     immutable=1: SQLite reads the file alone, locks nothing and creates
//     nothing;
//   - a -wal without its -shm may hold committed rows no index describes;
//     that is refused as retryable (OpenCode rebuilds the index when it
//     next opens the database).
//
// A database in rollback-journal mode (not OpenCode's) opens with mode=ro.
// The file SQLite opens is the one checked by name only: SQLite opens it
// again itself; a link swapped in between is the residual risk.
func openStore(path string, roots []string) (*store, error) {
	refuse := func(reason string, retry bool) (*store, error) {
		return nil, &contract.Refusal{Harness: Name, Path: path, Reason: reason, Retry: retry}
	}
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return refuse("not an absolute, clean path", false)
	}
	if !slices.Contains(roots, filepath.Dir(path)) {
		return refuse("not directly inside the session roots "+strings.Join(roots, ", "), false)
	}
	if !ownedDB(path) {
		return refuse("not an OpenCode database: the name must be opencode.db or opencode-<channel>.db (or the file $OPENCODE_DB names)", false)
	}
	header, err := readHeader(path)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(header, sqliteMagic) {
		return refuse("not an SQLite database (no SQLite header)", false)
	}
	mode := "read-only"
	params := "mode=ro"
	if header[18] == 2 { // WAL
		wal, shm := exists(path+"-wal"), exists(path+"-shm")
		switch {
		case !wal:
			mode, params = "immutable", "mode=ro&immutable=1"
		case !shm:
			return refuse("the database's -wal is there without its -shm (OpenCode crashed or is opening it); start OpenCode once, or retry", true)
		}
	}
	dsn := "file:" + uriPath(path) + "?" + params + fmt.Sprintf("&_pragma=busy_timeout(%d)&_pragma=query_only(1)", busyTimeoutMS)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", Name, path, err)
	}
	db.SetMaxOpenConns(1) // one snapshot per call, one connection
	return &store{db: db, path: path, mode: mode}, nil
}

// exists reports whether path names a file (a link counts: it is only
// tested, never opened).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readHeader reads the first headerBytes of path, which must be a regular
// file and no link, checked on the descriptor read.
func readHeader(path string) ([]byte, error) {
	refuse := func(reason string, retry bool) ([]byte, error) {
		return nil, &contract.Refusal{Harness: Name, Path: path, Reason: reason, Retry: retry}
	}
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return refuse("not a regular file (links are not followed)", false)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !after.Mode().IsRegular() || !os.SameFile(before, after) {
		return refuse("the file was replaced while it was opened", true)
	}
	buf := make([]byte, headerBytes)
	if _, err := io.ReadFull(f, buf); err != nil {
		return refuse("not an SQLite database (shorter than its header)", false)
	}
	return buf, nil
}

// uriPath escapes path for an SQLite URI filename, where '?' starts the
// query, '#' a fragment and '%' an escape.
func uriPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
}

// read runs fn in one read transaction: every query sees one snapshot of
// the database, however OpenCode writes meanwhile.
func (s *store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.refusal(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to keep
	if err := fn(tx); err != nil {
		return s.refusal(err)
	}
	return nil
}

// refusal turns an SQLite error into a refusal naming the database; a
// busy or locked database, or one changed under an immutable read, may
// clear by itself.
func (s *store) refusal(err error) error {
	var r *contract.Refusal
	if errors.As(err, &r) || errors.Is(err, contract.ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	retry := strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "locked") || strings.Contains(msg, "busy") ||
		s.mode == "immutable" && strings.Contains(msg, "malformed")
	return &contract.Refusal{Harness: Name, Path: s.path, Reason: fmt.Sprintf("reading the database (%s): %v", s.mode, err), Retry: retry}
}

// Close closes the database.
func (s *store) Close() error { return s.db.Close() }
