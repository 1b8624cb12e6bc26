package main

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/notesoup/notesoup/contract"
)

// maxTitleBytes bounds a session's title on one line.
const maxTitleBytes = 120

// logger writes to stderr, which the host forwards into its own log
// (NOTESOUP_LOG=debug); stdout belongs to the handshake.
var logger = hclog.New(&hclog.LoggerOptions{Name: "notesoup-harness-" + Name, Output: os.Stderr, JSONFormat: true, Level: hclog.Info})

// ListSessions implements contract.Harness: one Session per row of the
// session table of every OpenCode database directly inside the roots, its
// Path the database. Subagents' sessions (parent_id set) are sessions of
// their own, as OpenCode shows them. Cwd is the session's directory, Title
// OpenCode's title for it, Started and Updated its times, Size the bytes
// of its messages' and parts' JSON. A database that cannot be read is
// skipped and logged; when no database could be read, the first error is
// returned.
func (Harness) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(contract.Session) error) error {
	roots, err := rootsOr(f.Roots)
	if err != nil {
		return err
	}
	var firstErr error
	read := 0
	for _, root := range roots {
		dbs, err := dbFiles(root)
		if err != nil {
			logger.Warn("listing a root", "root", root, "error", err)
			firstErr = firstOr(firstErr, err)
			continue
		}
		for _, db := range dbs {
			if err := listDB(ctx, db, roots, f, fn); err != nil {
				if _, ok := err.(stopError); ok {
					return err.(stopError).err // fn's error, unchanged
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				logger.Warn("skipping a database", "path", db, "error", err)
				firstErr = firstOr(firstErr, err)
				continue
			}
			read++
		}
	}
	if read == 0 {
		return firstErr
	}
	return nil
}

// stopError carries fn's error out of a read transaction.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

func firstOr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// listDB lists the sessions of one database.
func listDB(ctx context.Context, path string, roots []string, f contract.SessionFilter, fn func(contract.Session) error) error {
	st, err := openStore(path, roots)
	if err != nil {
		return err
	}
	defer st.Close()
	var stop error
	err = st.read(ctx, func(tx *sql.Tx) error {
		q := `SELECT id, directory, title, time_created, time_updated,
			coalesce((SELECT sum(octet_length(data)) FROM message WHERE session_id = s.id), 0) +
			coalesce((SELECT sum(octet_length(data)) FROM part WHERE session_id = s.id), 0)
			FROM session s WHERE substr(id, 1, length(?1)) = ?1 ORDER BY time_created, id`
		if f.FilesOnly {
			q = `SELECT id, '', '', 0, 0, 0 FROM session WHERE substr(id, 1, length(?1)) = ?1 ORDER BY time_created, id`
		}
		rows, err := tx.QueryContext(ctx, q, f.IDPrefix)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, dir, title string
			var created, updated, size int64
			if err := rows.Scan(&id, &dir, &title, &created, &updated, &size); err != nil {
				return err
			}
			if !validID(id) {
				logger.Debug("skipping a session whose id is not an id", "path", path, "id", id)
				continue
			}
			s := contract.Session{Harness: Name, ID: id, Path: path, Cwd: oneLine(dir, 4096), Title: oneLine(title, maxTitleBytes),
				Started: msTime(created), Updated: msTime(updated), Size: size}
			if err := fn(s); err != nil {
				stop = err
				return err
			}
		}
		return rows.Err()
	})
	if stop != nil {
		return stopError{stop}
	}
	return err
}

// oneLine returns s on one line: control and space runs become one space,
// invalid UTF-8 is dropped, at most max bytes, cut on a rune boundary.
func oneLine(s string, max int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			space = b.Len() > 0
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if b.Len()+n > max {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
