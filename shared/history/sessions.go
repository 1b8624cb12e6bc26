package history

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Catalog is a source of sessions per harness: only what a Catalog lists is
// readable, so a selector can never reach a file outside the harnesses'
// roots. The service backs it with the harness plugins, built in or
// external; tests use fakes. Which harnesses exist is the catalog's to say:
// nothing here knows a harness's name.
type Catalog interface {
	// Harnesses names every harness the catalog can list, in the order
	// sessions of equal time are shown.
	Harnesses() []string
	// Sessions lists the sessions of one harness, in any order. A harness
	// with no root on this machine returns no sessions and no error.
	Sessions(harness string) ([]Session, error)
}

// PrefixCatalog is a Catalog that can list only the sessions whose id
// starts with a prefix, reading fewer files to do it (each harness names a
// session's file for its id). It may return more; ListSessions filters
// again.
type PrefixCatalog interface {
	Catalog
	SessionsWithPrefix(harness, idPrefix string) ([]Session, error)
}

// StaticCatalog is a Catalog over fixed harness names and a function.
type StaticCatalog struct {
	Names []string
	List  func(harness string) ([]Session, error)
}

// Harnesses implements Catalog.
func (c StaticCatalog) Harnesses() []string { return c.Names }

// Sessions implements Catalog.
func (c StaticCatalog) Sessions(harness string) ([]Session, error) { return c.List(harness) }

// SessionQuery filters a cross-harness session listing.
type SessionQuery struct {
	// Harness keeps one harness; empty keeps all.
	Harness string
	// Cwd keeps sessions that ran in this directory or below it.
	Cwd string
	// Query keeps sessions whose id, title or cwd contains this literal,
	// case-insensitively.
	Query string
	// IDPrefix keeps sessions whose id starts with this; a PrefixCatalog
	// then reads only the files named for such ids.
	IDPrefix string
	// Limit bounds the result; 0 means no bound.
	Limit int
}

// maxCandidates bounds the candidates an ambiguity error names: enough to
// pick from, short enough for one tool response.
const maxCandidates = 10

// ListSessions lists sessions across harnesses, newest first (by Updated,
// then Started, then harness and id for a stable order).
func ListSessions(cat Catalog, q SessionQuery) ([]Session, error) {
	known := cat.Harnesses()
	harnesses := known
	if q.Harness != "" {
		if !slices.Contains(known, q.Harness) {
			return nil, unknownHarness(q.Harness, known)
		}
		harnesses = []string{q.Harness}
	}
	var all []Session
	var errs []error
	pc, narrow := cat.(PrefixCatalog)
	narrow = narrow && q.IDPrefix != ""
	for _, h := range harnesses {
		var ss []Session
		var err error
		if narrow {
			ss, err = pc.SessionsWithPrefix(h, q.IDPrefix)
		} else {
			ss, err = cat.Sessions(h)
		}
		if err != nil {
			// One harness failing must not hide the others' sessions; the
			// error is still returned beside them.
			errs = append(errs, fmt.Errorf("%s sessions: %w", h, err))
			continue
		}
		for _, s := range ss {
			if s.Harness == "" {
				s.Harness = h
			}
			if !strings.HasPrefix(s.ID, q.IDPrefix) {
				continue
			}
			if q.Cwd != "" && !underDir(s.Cwd, q.Cwd) {
				continue
			}
			if q.Query != "" && !matchesSession(s, q.Query) {
				continue
			}
			all = append(all, s)
		}
	}
	SortSessions(all, known)
	if q.Limit > 0 && len(all) > q.Limit {
		all = all[:q.Limit]
	}
	return all, errors.Join(errs...)
}

// SortSessions orders sessions newest first; sessions of equal times keep
// the order of their harnesses in harnesses.
func SortSessions(ss []Session, harnesses []string) {
	sort.SliceStable(ss, func(i, j int) bool {
		a, b := ss[i], ss[j]
		if !a.Updated.Equal(b.Updated) {
			return a.Updated.After(b.Updated)
		}
		if !a.Started.Equal(b.Started) {
			return a.Started.After(b.Started)
		}
		if a.Harness != b.Harness {
			return harnessRank(harnesses, a.Harness) < harnessRank(harnesses, b.Harness)
		}
		return a.ID < b.ID
	})
}

func harnessRank(harnesses []string, h string) int {
	if i := slices.Index(harnesses, h); i >= 0 {
		return i
	}
	return len(harnesses)
}

// unknownHarness refuses a harness name the catalog does not list, naming
// the ones it does.
func unknownHarness(h string, known []string) error {
	return fmt.Errorf("unknown harness %q; use one of %s (`notesoup plugins` lists them)", clipInput(h), strings.Join(known, ", "))
}

func underDir(cwd, dir string) bool {
	if cwd == "" {
		return false
	}
	c, d := filepath.Clean(cwd), filepath.Clean(dir)
	if c == d {
		return true
	}
	if !strings.HasSuffix(d, string(filepath.Separator)) {
		d += string(filepath.Separator)
	}
	return strings.HasPrefix(c, d)
}

func matchesSession(s Session, q string) bool {
	for _, f := range []string{s.ID, s.Title, s.Cwd} {
		if at, _ := IndexFold(f, q); at >= 0 {
			return true
		}
	}
	return false
}

// Selector words.
const (
	SelectorCurrent = "current"
	SelectorLatest  = "latest"
)

// bound returns the caller's current session when s names it, so selecting
// the current session explicitly keeps the caller's live binding (its path
// and head) rather than the catalog's offline view.
func bound(s Session, current *Session) Session {
	if current != nil && current.Harness == s.Harness && current.ID == s.ID {
		return *current
	}
	return s
}

// Resolve turns a session selector into a session of the catalog:
//
//	"" or "current"       the caller's current session (current != nil)
//	"latest"              the newest session of any harness
//	"<harness>:latest"    the newest session of that harness
//	"<harness>:<id>"      that id, or a unique id prefix, of that harness
//	"<id>"                a unique id (or id prefix) of any harness
//
// An exact id wins over a longer id it prefixes. An ambiguous prefix is
// refused with the candidates. A selector is never a path: anything that
// looks like one is refused before the catalog is asked.
func Resolve(cat Catalog, selector string, current *Session) (Session, error) {
	sel := strings.TrimSpace(selector)
	selector = clipInput(selector) // refusals quote it: never echo unbounded input
	if sel == "" || sel == SelectorCurrent {
		if current == nil {
			return Session{}, fmt.Errorf("no current session is bound here; name one (e.g. \"latest\" or \"claude:<id>\") and list them with `notesoup history sessions`")
		}
		return *current, nil
	}
	if strings.ContainsAny(sel, `/\`) || strings.HasPrefix(sel, ".") || strings.HasPrefix(sel, "~") || strings.HasSuffix(sel, ".jsonl") {
		return Session{}, fmt.Errorf("session selector %q looks like a path; selectors name sessions under the harnesses' roots (\"latest\", \"claude:<id>\", an id prefix), never files", selector)
	}
	harness, id := "", sel
	if i := strings.IndexByte(sel, ':'); i >= 0 {
		harness, id = sel[:i], sel[i+1:]
		if known := cat.Harnesses(); !slices.Contains(known, harness) {
			return Session{}, fmt.Errorf("session selector %q: %w", selector, unknownHarness(harness, known))
		}
		if id == "" {
			return Session{}, fmt.Errorf("session selector %q: missing id after %q (or use %s:latest)", selector, clipInput(harness)+":", clipInput(harness))
		}
	}
	var all []Session
	var err error
	if id != SelectorLatest {
		// Only sessions whose id starts with id can match: a PrefixCatalog
		// finds them without describing every session. A file not named
		// for its id escapes that narrow look, so finding nothing there
		// falls back to the whole listing.
		all, err = ListSessions(cat, SessionQuery{Harness: harness, IDPrefix: id})
	}
	if len(all) == 0 {
		all, err = ListSessions(cat, SessionQuery{Harness: harness})
	}
	if err != nil && len(all) == 0 {
		return Session{}, err
	}
	if id == SelectorLatest {
		if len(all) == 0 {
			where := "any harness"
			if harness != "" {
				where = harness
			}
			return Session{}, fmt.Errorf("session selector %q: no sessions found for %s", selector, where)
		}
		return bound(all[0], current), nil
	}
	var exact, prefixed []Session
	for _, s := range all {
		switch {
		case s.ID == id:
			exact = append(exact, s)
		case strings.HasPrefix(s.ID, id):
			prefixed = append(prefixed, s)
		}
	}
	if len(exact) == 1 {
		return bound(exact[0], current), nil
	}
	cands := append(exact, prefixed...)
	switch len(cands) {
	case 0:
		return Session{}, fmt.Errorf("session selector %q matches no session; list them with `notesoup history sessions`", selector)
	case 1:
		return bound(cands[0], current), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session selector %q is ambiguous: %d sessions match; use a longer prefix or harness:id. Candidates:", selector, len(cands))
	for i, s := range cands {
		if i == maxCandidates {
			fmt.Fprintf(&b, "\n  … and %d more", len(cands)-maxCandidates)
			break
		}
		fmt.Fprintf(&b, "\n  %s:%s  %s  %s", s.Harness, s.ID, timeString(s.Updated), oneLine(s.Title))
	}
	return Session{}, errors.New(b.String())
}

// maxQuotedInput bounds how much of a caller's input a refusal quotes.
const maxQuotedInput = 128

// clipInput shortens s for quoting in an error, cutting at a rune boundary.
func clipInput(s string) string {
	if len(s) <= maxQuotedInput {
		return s
	}
	cut := cutRuneBoundary(s, maxQuotedInput)
	if cut < 0 {
		cut = 0
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
