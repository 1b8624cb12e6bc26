package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/shared/history"
)

// searchIndexed answers a query from the persistent index (see store.go):
// every listed file is proven unchanged against the manifest (the same
// batched proof as the answer cache's), a file that is not is decoded,
// masked and added to a new segment, and the query then reads the
// trigram index of every segment holding an unchanged session and
// verifies only the candidate blocks, with history_list's own matcher.
// The work for a new query is posting lists and candidate blocks; the
// work after a change is decoding the files that changed.
func searchIndexed(query string, per, workers int, opts Options) (Result, error) {
	res := Result{Query: query, Sessions: []SessionHits{}}
	dir := filepath.Join(opts.CacheDir, indexDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, fmt.Errorf("search: index folder %s: %w (use --no-cache, or another --cache-dir)", dir, err)
	}
	m := loadManifest(dir)
	n := len(opts.Sources)
	s := &searcher{query: query, per: per, srcs: make([]source, n), lists: make([][]history.Session, n), listed: make(chan struct{})}
	s.cache = &cacheFile{Files: make(map[string]*fileAnswer, len(m.Entries))}
	for p, e := range m.Entries {
		s.cache.Files[p] = &fileAnswer{Key: e.Key, Deps: e.Deps, ent: e}
	}
	for i := range opts.Sources {
		src := &opts.Sources[i]
		s.srcs[i] = source{Source: src, everyTime: src.Forks && src.Inherits == nil}
	}
	listErrs := make([]error, n)
	var lw sync.WaitGroup
	for i := range opts.Sources {
		lw.Add(1)
		go func() {
			defer lw.Done()
			src := &opts.Sources[i]
			ss, err := src.Files()
			listErrs[i] = err
			for k := range ss {
				ss[k].Harness = src.Harness
			}
			s.lists[i] = ss
		}()
	}
	lw.Wait()
	close(s.listed)

	// Classify every file: unchanged in the index (its entry), or decoded
	// now (a fresh entry, its events in this run's segments, and its
	// answer computed from the events in memory).
	type slot struct {
		sess   history.Session
		ent    *entry
		answer *fileAnswer // computed now (decoded, every-time or error)
	}
	slots := make([][]slot, n)
	batches := make(chan batch, 64)
	go func() {
		for i := range s.lists {
			slots[i] = make([]slot, len(s.lists[i]))
		}
		for i := range s.lists {
			for lo := 0; lo < len(s.lists[i]); lo += batchFiles {
				batches <- batch{src: i, lo: lo, hi: min(len(s.lists[i]), lo+batchFiles)}
			}
		}
		close(batches)
	}()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		stats   Stats
		fresh   = map[string]*entry{}
		newSegs = map[string]int64{}
		errs    []string
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := &worker{s: s}
			defer ws.dir.close()
			defer ws.closeRing()
			b := newSegBuilder()
			var mine []*entry // entries whose blocks are in b
			flush := func() {
				if b.blocks == 0 {
					return
				}
				name, size, err := b.write(dir)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err.Error())
				} else {
					newSegs[name] = size
					for _, e := range mine {
						e.Seg = name
					}
				}
				b, mine = newSegBuilder(), mine[:0]
			}
			var local Stats
			for bt := range batches {
				src := &s.srcs[bt.src]
				list := s.lists[bt.src][bt.lo:bt.hi]
				var proven []*fileAnswer
				if !src.everyTime {
					proven = ws.proveBatch(list)
				}
				for k, sess := range list {
					sl := &slots[bt.src][bt.lo+k]
					sl.sess = sess
					if proven != nil && proven[k] != nil {
						sl.ent = proven[k].ent
						local.Cached++
						continue
					}
					if src.everyTime {
						a := &fileAnswer{}
						if _, st, err := ws.dir.openFile(sess.Path); err == nil {
							a.Key = st.key()
							if sess.Updated.IsZero() {
								sess.Updated = st.mtime
							}
						}
						sess.Size = a.Key.Size
						ws.decode(src, sess, a)
						sl.sess, sl.answer = sess, a
						local.Decoded++
						continue
					}
					e, a, how := ws.indexFile(src, sess, b)
					switch how {
					case fromCache:
						sl.ent = e
						local.Cached++
					case fromDecode:
						sl.ent = e
						if e.Blocks > 0 {
							mine = append(mine, e)
						}
						sl.answer = a
						local.Decoded++
						mu.Lock()
						fresh[sess.Path] = e
						mu.Unlock()
						if b.size() >= segmentBytes {
							flush()
						}
					default:
						sl.answer = a
					}
				}
			}
			flush()
			mu.Lock()
			stats.Cached += local.Cached
			stats.Decoded += local.Decoded
			mu.Unlock()
		}()
	}
	wg.Wait()

	// Unchanged sessions: the index of each segment holding one, then the
	// candidate blocks.
	bySeg := map[string][]*slot{}
	for i := range slots {
		for k := range slots[i] {
			sl := &slots[i][k]
			if sl.answer == nil && sl.ent != nil && sl.ent.Blocks > 0 && fresh[sl.sess.Path] == nil {
				bySeg[sl.ent.Seg] = append(bySeg[sl.ent.Seg], sl)
			}
		}
	}
	answers := map[*entry]*fileAnswer{}
	var damaged []string
	var qw sync.WaitGroup
	for name, sls := range bySeg {
		qw.Add(1)
		go func() {
			defer qw.Done()
			ents := make([]*entry, len(sls))
			for i, sl := range sls {
				ents[i] = sl.ent
			}
			got, err := querySegment(dir, name, m.Segs[name], query, per, ents)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				damaged = append(damaged, name)
				return
			}
			for e, a := range got {
				answers[e] = a
			}
		}()
	}
	qw.Wait()
	// A segment that could not be read: its sessions are decoded now
	// (and stored anew), as if they had changed.
	if len(damaged) > 0 {
		bad := map[string]bool{}
		for _, d := range damaged {
			bad[d] = true
			delete(m.Segs, d)
		}
		ws := &worker{s: s}
		b := newSegBuilder()
		var mine []*entry
		for i := range slots {
			for k := range slots[i] {
				sl := &slots[i][k]
				if sl.answer != nil || sl.ent == nil || !bad[sl.ent.Seg] || fresh[sl.sess.Path] != nil {
					continue
				}
				delete(s.cache.Files, sl.sess.Path)
				e, a, how := ws.indexFile(&s.srcs[i], sl.sess, b)
				sl.ent, sl.answer = e, a
				if how == fromDecode {
					stats.Decoded++
					stats.Cached--
					fresh[sl.sess.Path] = e
					if e.Blocks > 0 {
						mine = append(mine, e)
					}
				}
			}
		}
		ws.dir.close()
		if b.blocks > 0 {
			name, size, err := b.write(dir)
			if err != nil {
				errs = append(errs, err.Error())
			} else {
				newSegs[name] = size
				for _, e := range mine {
					e.Seg = name
				}
			}
		}
	}

	for i, src := range opts.Sources {
		if listErrs[i] != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s sessions: %v", src.Harness, listErrs[i]))
		}
	}
	listed := map[string]bool{}
	for i := range slots {
		for k := range slots[i] {
			sl := &slots[i][k]
			a := sl.answer
			sess := sl.sess
			if a == nil && sl.ent != nil {
				a = answers[sl.ent]
				if a == nil {
					a = &fileAnswer{Key: sl.ent.Key, Err: sl.ent.Err}
				}
				sess.Size = sl.ent.Key.Size
				if sl.ent.Updated != 0 {
					sess.Updated = time.Unix(0, sl.ent.Updated)
				} else if sess.Updated.IsZero() {
					sess.Updated = time.Unix(0, sl.ent.Key.MTime)
				}
				if a.Hits != nil {
					a.Hits.Session = history.VisibleSession(sess)
				}
			}
			if a == nil {
				continue
			}
			if !s.srcs[i].everyTime {
				listed[sess.Path] = true
			}
			stats.Files++
			stats.Bytes += a.Key.Size
			if a.Err != "" {
				res.Errors = append(res.Errors, a.Err)
				continue
			}
			if a.Count > 0 && a.Hits != nil {
				res.Sessions = append(res.Sessions, SessionHits{Session: a.Hits.Session, Count: a.Count, Entries: a.Hits.Entries})
			}
		}
	}
	res.Stats = stats
	res.Errors = append(res.Errors, errs...)
	sort.SliceStable(res.Sessions, func(i, j int) bool {
		a, b := res.Sessions[i], res.Sessions[j]
		if !a.Session.Updated.Equal(b.Session.Updated) {
			return a.Session.Updated.After(b.Session.Updated)
		}
		return a.Session.Path < b.Session.Path
	})
	gone := false
	for p := range m.Entries {
		if !listed[p] {
			gone = true
			break
		}
	}
	if len(fresh) > 0 || len(damaged) > 0 || gone {
		dropUnmasked(opts.CacheDir)
		if err := commit(dir, fresh, newSegs, listed, damaged); err != nil {
			res.Errors = append(res.Errors, err.Error())
		}
	}
	return res, nil
}

// indexFile proves one file unchanged against its manifest entry or
// decodes it into b: the key (and its fork parents' keys) is taken before
// the decode, so a write during the decode changes the key the next
// search sees. how is fromCache, fromDecode or fromError (a file that
// cannot be opened: an answer, never stored).
func (w *worker) indexFile(src *source, sess history.Session, b *segBuilder) (*entry, *fileAnswer, int) {
	path := sess.Path
	if cap(w.tail) < tailBytes {
		w.tail = make([]byte, tailBytes)
	}
	f, st, err := w.dir.openFile(path)
	if err != nil {
		return nil, &fileAnswer{Err: fmt.Sprintf("%s: %v", path, err)}, fromError
	}
	key := st.key()
	key.Tail, err = tailHashAt(f, key.Size, w.tail)
	f.Close()
	if err != nil {
		return nil, &fileAnswer{Err: fmt.Sprintf("%s: %v", path, err)}, fromError
	}
	if a := w.s.cache.Files[path]; a != nil && a.ent != nil && a.fresh(key, w.depKey) {
		return a.ent, nil, fromCache
	}
	e := &entry{Key: key}
	if src.Inherits != nil {
		if line, err := firstLine(path, w.readBuf()); err == nil {
			if threads := src.Inherits(line); len(threads) > 0 {
				e.Deps = map[string]FileKey{}
				parents, missing := w.s.forkParents(src, threads, w.readBuf())
				for _, id := range missing {
					e.Deps[missingIDDep(src.Harness, id)] = missingKey
				}
				for _, p := range parents {
					k, err := keyWith(p, w.tail[:tailBytes])
					if errors.Is(err, fs.ErrNotExist) {
						k, err = missingKey, nil
					}
					if err != nil {
						return nil, &fileAnswer{Err: fmt.Sprintf("%s: parent %s: %v", path, p, err)}, fromError
					}
					e.Deps[p] = k
				}
			}
		}
	}
	sess.Size = key.Size
	if sess.Updated.IsZero() {
		sess.Updated = st.mtime
	}
	var events []history.Event
	var last time.Time
	for ev, err := range history.Project(src.Decoder, sess, history.DecodeOptions{}).Events {
		if err != nil {
			e.Err = err.Error()
			events = nil
			break
		}
		if ev.Time.After(last) {
			last = ev.Time
		}
		if !history.Listable(ev) {
			continue
		}
		if ev = history.VisibleEvent(ev); history.Listable(ev) {
			events = append(events, ev)
		}
	}
	if !last.IsZero() {
		e.Updated = last.UnixNano()
		sess.Updated = last
	}
	a := &fileAnswer{Key: key, Err: e.Err}
	if e.Err == "" {
		var mt matcher
		mt.init(w.s.query, w.s.per)
		for _, ev := range events {
			mt.event(ev, false)
		}
		mt.finish(sess, a)
		if len(events) > 0 {
			e.First, e.Blocks = b.addSession(events)
		}
	}
	return e, a, fromDecode
}

// matcher counts one session's matches and keeps the newest per of them.
type matcher struct {
	q     string
	per   int
	count int
	ring  []history.Event
}

func (m *matcher) init(q string, per int) {
	m.q, m.per, m.count, m.ring = q, per, 0, m.ring[:0]
}

// event tests one masked event; clone copies a kept one out of a mapping.
func (m *matcher) event(ev history.Event, clone bool) {
	if !Matches(ev, m.q) {
		return
	}
	m.count++
	if clone {
		ev = cloneEvent(ev)
	}
	if len(m.ring) < m.per {
		m.ring = append(m.ring, ev)
	} else {
		copy(m.ring, m.ring[1:])
		m.ring[len(m.ring)-1] = ev
	}
}

// finish renders the kept matches into a, as history_list's page.
func (m *matcher) finish(sess history.Session, a *fileAnswer) {
	a.Count = m.count
	if m.count == 0 {
		return
	}
	page, err := history.List(history.Slice(m.ring), history.ListQuery{Query: m.q, Limit: m.per}, history.RenderOptions{})
	if err != nil {
		a.Err = fmt.Sprintf("%s: %v", sess.Path, err)
		return
	}
	entries := page.Entries
	if entries == nil {
		entries = []history.Entry{}
	}
	a.Hits = &hits{Session: history.VisibleSession(sess), Entries: entries}
}

// querySegment answers query for the sessions ents (all in segment name):
// the trigram index names candidate blocks, and only those are read. A
// fault on the mapping (the file truncated under the search) is an error,
// not a crash.
func querySegment(dir, name string, size int64, query string, per int, ents []*entry) (out map[*entry]*fileAnswer, err error) {
	seg, err := openSegment(dir, name, size)
	if err != nil {
		return nil, err
	}
	defer seg.unmap()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%s: %v: %w", name, r, errSegment)
		}
	}()
	sort.Slice(ents, func(i, j int) bool { return ents[i].First < ents[j].First })
	for _, e := range ents {
		if uint64(e.First)+uint64(e.Blocks) > uint64(seg.blocks) {
			return nil, errSegment
		}
	}
	docs, all, err := seg.idx.Candidates(query)
	if err != nil {
		return nil, err
	}
	out = map[*entry]*fileAnswer{}
	var mt matcher
	var evs []history.Event
	// Walk the candidates and the sessions (both ascending) together.
	k := 0
	for _, e := range ents {
		lo, hi := e.First, e.First+e.Blocks
		mt.init(query, per)
		visit := func(d uint32) error {
			evs, err = seg.block(d, evs[:0])
			if err != nil {
				return err
			}
			for _, ev := range evs {
				mt.event(ev, true)
			}
			return nil
		}
		if all {
			for d := lo; d < hi; d++ {
				if err := visit(d); err != nil {
					return nil, err
				}
			}
		} else {
			for k < len(docs) && docs[k] < lo {
				k++
			}
			for ; k < len(docs) && docs[k] < hi; k++ {
				if err := visit(docs[k]); err != nil {
					return nil, err
				}
			}
		}
		if mt.count > 0 {
			a := &fileAnswer{Key: e.Key}
			mt.finish(history.Session{}, a)
			out[e] = a
		}
	}
	return out, nil
}

// commit merges this run's entries into the manifest on disk under the
// index lock: fresh entries replace theirs, entries of files no listing
// names any more and no longer on disk go, damaged segments and those
// nothing names are deleted. A lock not had in lockWait skips the write:
// the answer stands, and the next search redoes the work.
func commit(dir string, fresh map[string]*entry, newSegs map[string]int64, listed map[string]bool, damaged []string) error {
	lock, err := filelock.Acquire(filepath.Join(dir, lockName), 0o600, lockWait)
	if err != nil {
		for name := range newSegs {
			os.Remove(filepath.Join(dir, name))
		}
		var te *filelock.TimeoutError
		if errors.As(err, &te) {
			return nil // another search is writing the index; ours is not lost, only redone
		}
		return fmt.Errorf("search index: %w", err)
	}
	defer lock.Release()
	m := loadManifest(dir)
	for _, d := range damaged {
		delete(m.Segs, d)
	}
	for name, size := range newSegs {
		m.Segs[name] = size
	}
	for p, e := range fresh {
		m.Entries[p] = e
	}
	for p, e := range m.Entries {
		if e.Blocks > 0 {
			if _, ok := m.Segs[e.Seg]; !ok {
				delete(m.Entries, p)
				continue
			}
		}
		if !listed[p] && fresh[p] == nil {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				delete(m.Entries, p)
			}
		}
	}
	used := map[string]bool{}
	for _, e := range m.Entries {
		if e.Blocks > 0 {
			used[e.Seg] = true
		}
	}
	var drop []string
	for name := range m.Segs {
		if !used[name] {
			delete(m.Segs, name)
			drop = append(drop, name)
		}
	}
	// TODO(compaction): a segment whose live blocks are few keeps its dead
	// ones until every session in it changed.
	data := m.encode()
	if err := writeManifest(dir, data); err != nil {
		return err
	}
	for _, name := range drop {
		os.Remove(filepath.Join(dir, name))
	}
	for _, name := range damaged {
		os.Remove(filepath.Join(dir, name))
	}
	sweepOrphans(dir, m)
	return nil
}

// sweepOrphans deletes segment files the manifest does not name that are
// older than orphanAge (a crashed writer's; a concurrent writer's are
// young), and temporaries as old.
func sweepOrphans(dir string, m *manifest) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range ents {
		name := de.Name()
		isSeg := strings.HasPrefix(name, segPrefix) && strings.HasSuffix(name, segSuffix)
		if !isSeg && !strings.HasPrefix(name, ".seg-tmp-") && !strings.HasPrefix(name, ".manifest-tmp-") {
			continue
		}
		if _, ok := m.Segs[name]; ok {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > orphanAge {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
