package search

import (
	"math"
	"path/filepath"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
)

// SessionMatches answers history_list's query over one session from the
// persistent index under cacheDir (see store.go): when the index holds
// sess's file and proves it, and the fork parents its entry records,
// unchanged (as a search proves them), it returns, in stored (seq) order,
// exactly the listable, masked events of the session for which
// Matches(ev, query) holds, and the session's notice (the Summary.Notice
// of its decode without a head), with ok true. It never writes the index: a
// session the index does not hold, or cannot prove unchanged, is ok false,
// and the caller decodes it as before; so is every error (a damaged
// segment, an unreadable manifest). A session whose decode was refused
// when it was indexed is ok false too, so the caller's decode reports the
// refusal as it always has.
//
// Event times are UTC: the index keeps instants, not the offset a
// transcript wrote them with (the pinned CLIs write UTC).
func SessionMatches(src Source, sess history.Session, query, cacheDir string) (events []history.Event, notice string, ok bool) {
	if cacheDir == "" || query == "" || sess.Path == "" || !filepath.IsAbs(sess.Path) {
		return nil, "", false
	}
	if src.Forks && src.Inherits == nil {
		return nil, "", false // decoded on every search: the index never holds it
	}
	dir := filepath.Join(cacheDir, indexDirName)
	m := loadManifest(dir)
	e := m.Entries[sess.Path]
	if e == nil || e.Err != "" {
		return nil, "", false
	}
	if !proveEntry(src, sess.Path, e) {
		return nil, "", false
	}
	if e.Blocks == 0 {
		return []history.Event{}, e.Notice, true // no listable event
	}
	segs := &segSet{dir: dir, sizes: m.Segs, open: map[string]*segState{}}
	defer segs.close()
	st := segs.get(e.Seg, query)
	if st.err != nil {
		return nil, "", false
	}
	// Every match is kept (per unbounded): the page is chosen from them.
	q := newQueryPlan(query, math.MaxInt)
	var mt matcher
	if err := q.entryMatches(&blockReader{}, &mt, st, e); err != nil {
		return nil, "", false
	}
	events = make([]history.Event, len(mt.ring))
	for i, ev := range mt.ring {
		if !ev.Time.IsZero() {
			ev.Time = ev.Time.UTC()
		}
		events[i] = ev
	}
	return events, e.Notice, true
}

// proveEntry says whether path, and the fork parents e records, are as e's
// keys were taken: by a stat alone for an entry that is not racy (see
// statProves), else by full keys, tails included, as indexFile proves them.
func proveEntry(src Source, path string, e *entry) bool {
	s := &searcher{listed: make(chan struct{})}
	close(s.listed)
	for dep := range e.Deps {
		if _, _, ok := parseMissingIDDep(dep); ok {
			// A parent id no file had: proven only while no listed file
			// has it now, which takes the source's listing.
			files, err := src.Files()
			if err != nil {
				return false
			}
			for k := range files {
				files[k].Harness = src.Harness
			}
			s.lists = [][]history.Session{files}
			break
		}
	}
	w := &worker{s: s}
	if !e.Racy {
		if k, ok := filekey.Lstat(path); ok && w.provenByStat(e, k) {
			return true
		}
	}
	key, err := filekey.With(path, make([]byte, filekey.TailBytes))
	if err != nil {
		return false
	}
	return (&fileAnswer{Key: e.Key, Deps: e.Deps}).fresh(key, w.depKey)
}
