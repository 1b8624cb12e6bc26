package search

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/notesoup/notesoup/internal/filelock"
	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/index"
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
	n := len(opts.Sources)
	s := &searcher{query: query, per: per, srcs: make([]source, n), lists: make([][]history.Session, n), listed: make(chan struct{})}
	for i := range opts.Sources {
		src := &opts.Sources[i]
		s.srcs[i] = source{Source: src, everyTime: src.Forks && src.Inherits == nil}
		if src.RawSearch {
			s.srcs[i].plan = newPlan(query, src.SynthesizedWords)
		}
	}
	// The listings run while the manifest loads.
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
	m, paths, ents := loadManifestList(dir)
	// The index may hold the files of other sources too (other roots, a
	// harness not reached this time): only the entries of this search's
	// scopes can be gone from its listings, or answer its query.
	scopes := make([]string, 0, n)
	for i := range opts.Sources {
		if c := opts.Sources[i].scope(); !slices.Contains(scopes, c) {
			scopes = append(scopes, c)
		}
	}
	slices.Sort(scopes)
	inScope := 0
	for i := range ents {
		if slices.Contains(scopes, ents[i].Scope) {
			inScope++
		}
	}
	s.cache = &cacheFile{Files: make(map[string]*fileAnswer, len(paths))}
	answers := make([]fileAnswer, len(paths)) // one allocation, not one per file
	for i, p := range paths {
		e := &ents[i]
		answers[i] = fileAnswer{Key: e.Key, Deps: e.Deps, ent: e}
		s.cache.Files[p] = &answers[i]
	}
	var budget atomic.Int64
	budget.Store(buildBudget)
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
		settled []settledEntry
		// known counts the listed files the manifest has an entry of this
		// search's scopes for; rescoped, those whose entry names another
		// scope than their source's.
		known    atomic.Int64
		rescoped atomic.Bool
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := &worker{s: s}
			defer ws.dir.Close()
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
			var localKnown int64
			// count notes a listed file's entry in the manifest.
			count := func(src *source, e *entry) {
				if slices.Contains(scopes, e.Scope) {
					localKnown++
				}
				if e.Scope != src.scope() {
					rescoped.Store(true)
				}
			}
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
						count(src, sl.ent)
						continue
					}
					if a := s.cache.Files[sess.Path]; !src.everyTime && a != nil {
						count(src, a.ent)
					}
					if src.everyTime {
						a := &fileAnswer{}
						if _, st, err := ws.dir.Open(sess.Path); err == nil {
							a.Key = st.Key()
							if sess.Updated.IsZero() {
								sess.Updated = st.MTime
							}
						}
						sess.Size = a.Key.Size
						ws.decode(src, sess, a)
						sl.sess, sl.answer = sess, a
						local.Decoded++
						continue
					}
					e, a, how := ws.indexFile(src, sess, b, &budget)
					switch how {
					case fromBudget:
						// Past this search's build budget: answered
						// as the raw engine answers (prefilter, then
						// decode), indexed by a later search.
						a, how, scanned := ws.answer(job{src: src, sess: sess})
						sl.answer = a
						local.ScannedByte += scanned
						switch how {
						case fromScan:
							local.Skipped++
						case fromDecode:
							local.Decoded++
						}
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
			known.Add(localKnown)
			mu.Lock()
			settled = append(settled, ws.settled...)
			stats.Cached += local.Cached
			stats.Decoded += local.Decoded
			stats.Skipped += local.Skipped
			stats.ScannedByte += local.ScannedByte
			mu.Unlock()
		}()
	}
	wg.Wait()

	for i, src := range opts.Sources {
		if listErrs[i] != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s sessions: %v", src.Harness, listErrs[i]))
		}
	}
	// The same query again over an unchanged index: every listed file
	// proven unchanged, none decoded now, none gone from the listing.
	reuse := !opts.NoAnswerCache && m.Gen != 0 && len(fresh) == 0 && len(errs) == 0
	indexed := 0
	var indexedBytes int64
	for i := range slots {
		for k := range slots[i] {
			sl := &slots[i][k]
			if sl.answer != nil {
				reuse = false
			} else if sl.ent != nil {
				indexed++
				indexedBytes += sl.ent.Key.Size
			}
		}
	}
	reuse = reuse && indexed == inScope && !rescoped.Load()
	akey := ""
	if reuse {
		akey = answerKey(query, per, opts.Limit, scopes)
		if k, ok := loadAnswer(dir, akey, m.Gen); ok {
			res.Sessions, res.More = k.Sessions, k.More
			if opts.Emit != nil {
				for _, sh := range k.Sessions {
					if err := opts.Emit(sh); err != nil {
						return res, err
					}
				}
				res.Sessions = []SessionHits{}
			}
			res.Errors = append(res.Errors, k.Errors...)
			stats.Files, stats.Bytes = indexed, indexedBytes
			res.Stats = stats
			return res, nil
		}
	}

	// Every session in the order the answer lists them (newest first);
	// those decoded now or refused have their answers, the others are
	// verified from the index in that order, two at a time, until Limit
	// sessions with matches are complete.
	total := 0
	for i := range slots {
		total += len(slots[i])
	}
	items := make([]*item, 0, total)
	backing := make([]item, 0, total) // one allocation, not one per session
	for i := range slots {
		for k := range slots[i] {
			sl := &slots[i][k]
			if sl.answer == nil && sl.ent == nil {
				continue
			}
			backing = append(backing, item{sess: sl.sess, ans: sl.answer, ent: sl.ent, src: &s.srcs[i], everyTime: s.srcs[i].everyTime})
			it := &backing[len(backing)-1]
			if it.ans == nil {
				e := it.ent
				it.sess.Size = e.Key.Size
				if e.Updated != 0 {
					it.sess.Updated = time.Unix(0, e.Updated)
				} else if it.sess.Updated.IsZero() {
					it.sess.Updated = time.Unix(0, e.Key.MTime)
				}
				if e.Err != "" || e.Blocks == 0 || len(fresh) > 0 && fresh[it.sess.Path] != nil {
					it.ans = &fileAnswer{Key: e.Key, Err: e.Err}
				}
			} else if it.ans.Hits != nil {
				it.sess.Updated = it.ans.Hits.Session.Updated
			}
			it.updated = it.sess.Updated.UnixNano()
			items = append(items, it)
		}
	}
	// Paths are unique, so the order is total.
	slices.SortFunc(items, func(a, b *item) int {
		if a.updated != b.updated {
			return cmp.Compare(b.updated, a.updated)
		}
		return strings.Compare(a.sess.Path, b.sess.Path)
	})
	q := newQueryPlan(query, per)
	q.emit = opts.Emit
	segs := &segSet{dir: dir, sizes: m.Segs, open: map[string]*segState{}}
	defer segs.close()
	cut := q.verify(items, segs, opts.Limit, workers)
	// A segment that could not be read: its sessions are decoded now
	// (and stored anew), as if they had changed, and the order walked
	// again (what was verified is kept).
	damaged := segs.damagedNames()
	if len(damaged) > 0 {
		bad := map[string]bool{}
		for _, d := range damaged {
			bad[d] = true
			delete(m.Segs, d)
		}
		ws := &worker{s: s}
		b := newSegBuilder()
		var mine []*entry
		for _, it := range items {
			if it.ans != nil || it.ent == nil || !bad[it.ent.Seg] {
				continue
			}
			delete(s.cache.Files, it.sess.Path)
			e, a, how := ws.indexFile(it.src, it.sess, b, nil)
			it.ent, it.ans = e, a
			if how == fromDecode {
				stats.Decoded++
				stats.Cached--
				fresh[it.sess.Path] = e
				if e.Blocks > 0 {
					mine = append(mine, e)
				}
			}
		}
		ws.dir.Close()
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
		cut = q.verify(items, segs, opts.Limit, workers)
	}
	q.flush(items, cut)

	var entryErrs []string
	for k, it := range items {
		stats.Files++
		if it.ent != nil {
			stats.Bytes += it.ent.Key.Size
		} else {
			stats.Bytes += it.ans.Key.Size
		}
		if it.ans != nil && it.ans.Err != "" {
			entryErrs = append(entryErrs, it.ans.Err)
			continue
		}
		if k >= cut {
			if it.ans != nil && it.ans.Count > 0 || it.ans == nil && segs.mayMatch(q, it.ent) {
				res.More++
			}
			continue
		}
		if a := it.ans; q.emit == nil && a != nil && a.Count > 0 && a.Hits != nil {
			res.Sessions = append(res.Sessions, SessionHits{Session: a.Hits.Session, Count: a.Count, Entries: a.Hits.Entries})
		}
	}
	res.Stats = stats
	res.Errors = append(res.Errors, entryErrs...)
	res.Errors = append(res.Errors, errs...)
	if sessions := res.Sessions; reuse && len(damaged) == 0 && q.emitErr == nil && !q.keptOver {
		if q.emit != nil {
			sessions = q.kept
		}
		storeAnswer(dir, akey, m.Gen, kept{Sessions: sessions, Errors: entryErrs, More: res.More})
	}
	// A manifest entry no listed file matched: its file is gone (or no
	// longer listed). Paths in a listing are distinct.
	gone := known.Load() < int64(inScope)
	if len(fresh) > 0 || len(damaged) > 0 || gone || rescoped.Load() || len(settled) > 0 {
		listed := make(map[string]string, len(items))
		for _, it := range items {
			if !it.everyTime {
				listed[it.sess.Path] = it.src.scope()
			}
		}
		dropUnmasked(opts.CacheDir)
		if err := commit(dir, fresh, newSegs, listed, scopes, damaged, settled); err != nil {
			res.Errors = append(res.Errors, err.Error())
		}
	}
	return res, q.emitErr
}

// buildBudget bounds the bytes of transcripts one search decodes into the
// index: the first search over a large corpus answers the files past it as
// the raw engine does (a prefilter, then a decode of candidates) and
// leaves them to later searches, so no single search pays for the whole
// build (about 20 CPU-seconds per GB). A variable for tests.
var buildBudget int64 = 128 << 20

// fromBudget: a file indexFile left to a later search (buildBudget).
const fromBudget = -1

// indexFile proves one file unchanged against its manifest entry or
// decodes it into b (within budget, when not nil): the key (and its fork parents' keys) is taken before
// the decode, so a write during the decode changes the key the next
// search sees. how is fromCache, fromDecode or fromError (a file that
// cannot be opened: an answer, never stored).
func (w *worker) indexFile(src *source, sess history.Session, b *segBuilder, budget *atomic.Int64) (*entry, *fileAnswer, int) {
	path := sess.Path
	if cap(w.tail) < filekey.TailBytes {
		w.tail = make([]byte, filekey.TailBytes)
	}
	// The clock before any key is taken: a key is racy by it (filekey.Racy).
	now := time.Now().UnixNano()
	if a := w.s.cache.Files[path]; a != nil && a.ent != nil && !a.ent.Racy {
		if k, ok := w.dir.Lstat(path); ok && w.provenByStat(a.ent, k) {
			return a.ent, nil, fromCache
		}
	}
	key, err := w.dir.Key(path, w.tail)
	if err != nil {
		return nil, &fileAnswer{Err: fmt.Sprintf("%s: %v", path, err)}, fromError
	}
	if a := w.s.cache.Files[path]; a != nil && a.ent != nil && a.fresh(key, w.depKey) {
		w.settle(path, a.ent, now)
		return a.ent, nil, fromCache
	}
	// A file is taken while any budget was left before it, so a file
	// larger than the budget is still indexed, alone.
	if budget != nil && budget.Add(-key.Size)+key.Size <= 0 {
		return nil, nil, fromBudget
	}
	e := &entry{Key: key, Scope: src.scope()}
	if src.Inherits != nil {
		if line, err := firstLine(path, w.readBuf()); err == nil {
			if threads := src.Inherits(line); len(threads) > 0 {
				e.Deps = map[string]filekey.Key{}
				parents, missing := w.s.forkParents(src, threads, w.readBuf())
				for _, id := range missing {
					e.Deps[missingIDDep(src.Harness, id)] = missingKey
				}
				for _, p := range parents {
					k, err := filekey.With(p, w.tail[:filekey.TailBytes])
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
	// Racy (see filekey.Racy) when the file or a parent changed just before
	// its key was taken.
	e.Racy = filekey.Racy(key, now)
	for _, k := range e.Deps {
		if k != missingKey && filekey.Racy(k, now) {
			e.Racy = true
		}
	}
	sess.Size = key.Size
	if sess.Updated.IsZero() {
		sess.Updated = time.Unix(0, key.MTime)
	}
	var events []history.Event
	var last time.Time
	proj := history.Project(src.Decoder, sess, history.DecodeOptions{})
	for ev, err := range proj.Events {
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
	if e.Err == "" {
		e.Notice = proj.Summary().Notice
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
			mt.event(ev)
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
	// unsettled is how many of the ring's last events alias a block.
	unsettled int
}

func (m *matcher) init(q string, per int) {
	m.q, m.per, m.count, m.ring, m.unsettled = q, per, 0, m.ring[:0], 0
}

// event tests one masked event.
func (m *matcher) event(ev history.Event) {
	if Matches(ev, m.q) {
		m.keep(ev)
	}
}

// add counts an event known to match whose strings alias a block's
// buffer; settle copies those still kept out before the buffer is reused,
// so an event that a newer match pushes out is never copied.
func (m *matcher) add(ev history.Event) {
	m.keep(ev)
	m.unsettled = min(m.unsettled+1, len(m.ring))
}

func (m *matcher) settle() {
	for i := len(m.ring) - m.unsettled; i < len(m.ring); i++ {
		m.ring[i] = cloneEvent(m.ring[i])
	}
	m.unsettled = 0
}

func (m *matcher) keep(ev history.Event) {
	m.count++
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

// item is one session as the query phase walks them, newest first.
type item struct {
	sess      history.Session
	src       *source
	ent       *entry      // its manifest entry (nil: decoded every time)
	ans       *fileAnswer // nil until known
	everyTime bool
	updated   int64 // sess.Updated in UnixNano, the order's key
}

// queryPlan is the query as blocks are verified against it: an ASCII query
// is found in the block's text with ASCII letters lowered (exactly
// history.IndexFold's ASCII path), any other in the text folded as
// index.Fold folds it (exactly its rune-by-rune path: two runes are equal
// under simple folding when they fold alike). Either way one substring
// search covers the whole block, and only the events holding a match are
// parsed into entries.
type queryPlan struct {
	query  string
	per    int
	ascii  bool
	needle []byte
	// part is, for a non-ASCII query, its longest ASCII run when that run
	// proves something: a block whose ASCII-lowered text lacks it cannot
	// match, and is ruled out without folding. Runs holding k or s are
	// not used: the Kelvin sign and long s fold to them.
	part    []byte
	partOff int // where part starts in needle
	// probe and partProbe find needle (ASCII) and part in a block's raw
	// text, letters in either case, with the raw scan's vector kernel
	// (indexAtom): the same positions as in the text with its ASCII
	// letters lowered, without lowering a copy of every block first.
	probe, partProbe probe
	needleS, partS   string // needle and part as strings, made once

	// emit is Options.Emit; emitted counts the items handed over (or
	// passed: no match) so far, and emitErr is Emit's error.
	emit    func(SessionHits) error
	emitted int
	emitErr error
	// kept holds what was handed over while it could still be kept as
	// the query's answer (maxAnswerBytes); keptOver, once it could not.
	kept      []SessionHits
	keptBytes int
	keptOver  bool
}

// flush hands Emit the sessions with matches among items[q.emitted:to],
// in order, and lets go of their entries. It stops at an item not known
// yet (its segment was damaged: it is decoded, then handed over, before
// any item after it).
func (q *queryPlan) flush(items []*item, to int) {
	if q.emit == nil {
		return
	}
	for ; q.emitted < to && q.emitErr == nil; q.emitted++ {
		it := items[q.emitted]
		a := it.ans
		if a == nil {
			return
		}
		if a.Count == 0 || a.Err != "" || a.Hits == nil {
			continue
		}
		sh := SessionHits{Session: a.Hits.Session, Count: a.Count, Entries: a.Hits.Entries}
		q.keep(sh)
		if err := q.emit(sh); err != nil {
			q.emitErr = err
			return
		}
		it.ans = &fileAnswer{Key: a.Key, Count: a.Count}
	}
}

// keep adds sh to the answer to be kept, until it grows past what one
// kept answer may hold.
func (q *queryPlan) keep(sh SessionHits) {
	if q.keptOver {
		return
	}
	q.keptBytes += 512 + len(sh.Session.Path)
	for _, e := range sh.Entries {
		q.keptBytes += 256 + len(e.Snippet)
	}
	if q.keptBytes > maxAnswerBytes {
		q.kept, q.keptOver = nil, true
		return
	}
	q.kept = append(q.kept, sh)
}

func newQueryPlan(query string, per int) *queryPlan {
	q := &queryPlan{query: query, per: per, ascii: true}
	for i := 0; i < len(query); i++ {
		if query[i] >= utf8.RuneSelf {
			q.ascii = false
			break
		}
	}
	if q.ascii {
		q.needle = index.LowerASCII(nil, []byte(query))
		q.needleS = string(q.needle)
		q.probe = atomProbe(q.needleS)
	} else {
		q.needle = index.Fold(nil, query)
		for _, run := range bytes.FieldsFunc(q.needle, func(r rune) bool { return r >= utf8.RuneSelf }) {
			if len(run) > len(q.part) && len(run) >= 3 && !bytes.ContainsAny(run, "ks") {
				q.part = run
				// run is a subslice of needle: its offset.
				q.partOff = int(uintptr(unsafe.Pointer(unsafe.SliceData(run))) - uintptr(unsafe.Pointer(unsafe.SliceData(q.needle))))
			}
		}
		if q.part != nil {
			q.partS = string(q.part)
			q.partProbe = atomProbe(q.partS)
		}
	}
	return q
}

// segState is one segment as a query reads it: opened and its candidate
// blocks found once, by the first session that needs them.
type segState struct {
	once    sync.Once
	seg     *segment
	docs    []uint32
	all     bool
	err     error
	damaged atomic.Bool
}

// segSet is the segments a query opened.
type segSet struct {
	dir   string
	sizes map[string]int64
	mu    sync.Mutex
	open  map[string]*segState
	query string
}

func (ss *segSet) get(name, query string) *segState {
	ss.mu.Lock()
	st := ss.open[name]
	if st == nil {
		st = &segState{}
		ss.open[name] = st
	}
	ss.mu.Unlock()
	st.once.Do(func() {
		size, ok := ss.sizes[name]
		if !ok {
			st.err = errSegment
		} else if st.seg, st.err = openSegment(ss.dir, name, size); st.err == nil {
			st.docs, st.all, st.err = candidates(st.seg, query)
		}
		if st.err != nil {
			st.damaged.Store(true)
		}
	})
	return st
}

// candidates reads the trigram index; a fault on the mapping (the file
// truncated under the search) is an error, not a crash.
func candidates(seg *segment, query string) (docs []uint32, all bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			docs, all, err = nil, false, fmt.Errorf("%v: %w", r, errSegment)
		}
	}()
	return seg.idx.Candidates(query)
}

func (ss *segSet) damagedNames() []string {
	var out []string
	for name, st := range ss.open {
		if st.damaged.Load() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func (ss *segSet) close() {
	for _, st := range ss.open {
		if st.seg != nil {
			st.seg.unmap()
		}
	}
}

// blocksOf returns the candidate blocks of e in its segment.
func (st *segState) blocksOf(e *entry) ([]uint32, bool, error) {
	if uint64(e.First)+uint64(e.Blocks) > uint64(st.seg.blocks) {
		return nil, false, errSegment
	}
	if st.all {
		return nil, true, nil
	}
	lo := sort.Search(len(st.docs), func(i int) bool { return st.docs[i] >= e.First })
	hi := sort.Search(len(st.docs), func(i int) bool { return st.docs[i] >= e.First+e.Blocks })
	return st.docs[lo:hi], false, nil
}

// mayMatch says whether the index leaves e a candidate (an upper bound of
// the sessions past a limit).
func (ss *segSet) mayMatch(q *queryPlan, e *entry) bool {
	st := ss.get(e.Seg, q.query)
	if st.err != nil {
		return true
	}
	docs, all, err := st.blocksOf(e)
	return err != nil || all || len(docs) > 0
}

// verify finds the answers of items (newest first) that are not known
// yet, with workers goroutines taking them in order, and stops handing
// them out once the first limit sessions with matches (0: all) are
// complete; it returns how many items, from the first, the answer is
// complete over. A session in a damaged segment is left unknown (and its
// segment marked) for the caller to decode.
func (q *queryPlan) verify(items []*item, segs *segSet, limit, workers int) int {
	var (
		next   atomic.Int64
		stop   atomic.Bool
		mu     sync.Mutex
		done   = make([]bool, len(items))
		prefix int
		found  int
		cut    = -1
	)
	// advance moves the complete prefix on, and hands it to Emit; called
	// with mu held.
	advance := func() {
		for cut < 0 && prefix < len(items) && done[prefix] {
			it := items[prefix]
			prefix++
			if it.ans != nil && it.ans.Count > 0 && it.ans.Err == "" {
				found++
				if limit > 0 && found >= limit {
					cut = prefix
					stop.Store(true)
				}
			}
		}
		q.flush(items, prefix)
		if q.emitErr != nil {
			stop.Store(true)
		}
	}
	// Items are taken a few at a time: most are ruled out by the index
	// alone, and one lock per item would cost more than the item.
	const chunk = 16
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := &blockReader{}
			var mt matcher
			var lastSeg string // the segment of the item before, and its state
			var lastSt *segState
			for !stop.Load() {
				lo := int(next.Add(chunk) - chunk)
				if lo >= len(items) {
					return
				}
				hi := min(lo+chunk, len(items))
				// from is the first item of the chunk not yet marked done.
				from := lo
				markDone := func(to int) {
					mu.Lock()
					for i := from; i < to; i++ {
						done[i] = true
					}
					advance()
					mu.Unlock()
					from = to
				}
				for i := lo; i < hi; i++ {
					it := items[i]
					if it.ans != nil {
						continue
					}
					if lastSt == nil || it.ent.Seg != lastSeg {
						lastSeg, lastSt = it.ent.Seg, segs.get(it.ent.Seg, q.query)
					}
					st := lastSt
					if st.err != nil {
						continue
					}
					if docs, all, err := st.blocksOf(it.ent); err == nil && !all && len(docs) == 0 {
						it.ans = noMatch // ruled out by the index alone: cheap, marked with the chunk
						continue
					}
					// A session to verify block by block: what is done so
					// far counts first, so that a limit reached stops the
					// other workers before they start more.
					markDone(i)
					if stop.Load() {
						return
					}
					a, err := q.session(br, &mt, st, it)
					if err != nil {
						st.damaged.Store(true)
					} else {
						it.ans = a
					}
					markDone(i + 1)
				}
				markDone(hi)
			}
		}()
	}
	wg.Wait()
	if cut < 0 {
		return len(items)
	}
	return cut
}

// noMatch is the answer of every session the index rules out (shared:
// nothing changes an answer once given).
var noMatch = &fileAnswer{}

// session verifies one session's candidate blocks.
func (q *queryPlan) session(br *blockReader, mt *matcher, st *segState, it *item) (*fileAnswer, error) {
	if err := q.entryMatches(br, mt, st, it.ent); err != nil {
		return nil, err
	}
	a := &fileAnswer{Key: it.ent.Key}
	mt.finish(it.sess, a)
	return a, nil
}

// entryMatches hands mt (initialized with the plan's query and per) every
// event of e's candidate blocks that holds the query, in stored order;
// shared by searches and SessionMatches (session.go).
func (q *queryPlan) entryMatches(br *blockReader, mt *matcher, st *segState, e *entry) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v: %w", r, errSegment)
		}
	}()
	docs, all, err := st.blocksOf(e)
	if err != nil {
		return err
	}
	mt.init(q.query, q.per)
	if all {
		for d := e.First; d < e.First+e.Blocks; d++ {
			if err := q.block(br, mt, st.seg, d); err != nil {
				return err
			}
		}
	} else {
		for _, d := range docs {
			if err := q.block(br, mt, st.seg, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// windows finds the events holding a non-ASCII query through its ASCII
// part: at each place the text holds the part (letters in either case),
// only a window of the raw text around it is folded and searched. Exact:
// the part's bytes fold from exactly the same ASCII bytes (it holds no k
// or s, the only ASCII letters a non-ASCII rune folds to), and a rune
// folds to at least one byte and comes from at most four, so a match
// through this place lies within 4 bytes per folded byte either side,
// and within its event (no query holds the separator).
func (q *queryPlan) windows(br *blockReader, mt *matcher, tb []byte) {
	k := 0
	rest := len(q.needle) - q.partOff - len(q.part)
	for at := 0; at < len(tb); {
		j := indexAtom(tb[at:], q.partS, &q.partProbe)
		if j < 0 {
			return
		}
		p := at + j
		for k+1 < len(br.offs) && br.offs[k+1] <= p {
			k++
		}
		start, end := br.offs[k], len(tb)-1 // end: the event's separator
		if k+1 < len(br.offs) {
			end = br.offs[k+1] - 1
		}
		lo, hi := max(start, p-4*q.partOff), min(end, p+len(q.part)+4*rest)
		// Rune boundaries: a byte that is not a continuation byte
		// starts a rune wherever the fold of the whole event starts.
		for lo > start && !utf8.RuneStart(tb[lo]) {
			lo--
		}
		for hi < end && !utf8.RuneStart(tb[hi]) {
			hi++
		}
		br.win = index.FoldBytes(br.win[:0], tb[lo:hi])
		if bytes.Contains(br.win, q.needle) {
			mt.add(br.evs[k])
			if k+1 >= len(br.offs) {
				return
			}
			at = br.offs[k+1]
			k++
			continue
		}
		at = p + 1
	}
}

// block finds the events of block d holding the query and hands them to mt.
func (q *queryPlan) block(br *blockReader, mt *matcher, seg *segment, d uint32) error {
	text, recs, n, err := br.read(seg, d)
	if err != nil {
		return err
	}
	tb := unsafe.Slice(unsafe.StringData(text), len(text))
	var hay []byte
	// find is the next match of the needle in hay from at, or -1.
	find := func(at int) int {
		if j := bytes.Index(hay[at:], q.needle); j >= 0 {
			return at + j
		}
		return -1
	}
	if q.ascii {
		hay = tb
		find = func(at int) int {
			if j := indexAtom(hay[at:], q.needleS, &q.probe); j >= 0 {
				return at + j
			}
			return -1
		}
		if find(0) < 0 {
			return nil
		}
		if err := br.events(text, recs, n); err != nil {
			return err
		}
		br.foffs = append(br.foffs[:0], br.offs...)
	} else if q.part != nil {
		if indexAtom(tb, q.partS, &q.partProbe) < 0 {
			return nil
		}
		if err := br.events(text, recs, n); err != nil {
			return err
		}
		q.windows(br, mt, tb)
		mt.settle()
		return nil
	} else {
		if err := br.events(text, recs, n); err != nil {
			return err
		}
		// Fold event by event, keeping where each one starts in the
		// folded text (folding changes lengths).
		br.folded, br.foffs = br.folded[:0], br.foffs[:0]
		for k := range br.evs {
			br.foffs = append(br.foffs, len(br.folded))
			end := len(text)
			if k+1 < len(br.offs) {
				end = br.offs[k+1]
			}
			br.folded = index.FoldBytes(br.folded, tb[br.offs[k]:end])
		}
		hay = br.folded
	}
	// One hit per event is enough: after a hit, search on from the next
	// event's start. Separators are newlines, which no query holds, so a
	// hit never spans two events.
	k := 0
	for at := 0; at < len(hay); {
		pos := find(at)
		if pos < 0 {
			break
		}
		for k+1 < len(br.foffs) && br.foffs[k+1] <= pos {
			k++
		}
		mt.add(br.evs[k])
		if k+1 >= len(br.foffs) {
			break
		}
		at = br.foffs[k+1]
		k++
	}
	mt.settle()
	return nil
}

// commit merges this run's entries into the manifest on disk under the
// index lock: fresh entries replace theirs, listed files' entries take
// the scope of the source that listed them (listed maps path to scope),
// entries of this run's scopes no listing names go, and so do those of
// other scopes whose files are no longer on disk, a changed index is
// compacted (see compact), damaged segments and those nothing names are
// deleted, and settled entries (see settle) are marked so where the
// manifest still holds them unchanged. A lock not had in
// lockWait skips the write: the answer stands, and the next search redoes
// the work. Settling alone keeps the manifest's generation: the index
// answers every query as before, so the answers kept beside it hold.
func commit(dir string, fresh map[string]*entry, newSegs map[string]int64, listed map[string]string, scopes []string, damaged []string, settled []settledEntry) error {
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
	changed := len(fresh) > 0 || len(newSegs) > 0 || len(damaged) > 0
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
				changed = true
				continue
			}
		}
		if fresh[p] != nil {
			continue
		}
		if c, ok := listed[p]; ok {
			if e.Scope != c {
				e.Scope = c // another search's answers no longer hold
				changed = true
			}
			continue
		}
		if slices.Contains(scopes, e.Scope) {
			delete(m.Entries, p) // not listed, though its source was
			changed = true
		} else if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			delete(m.Entries, p)
			changed = true
		}
	}
	for _, st := range settled {
		if e := m.Entries[st.path]; e != nil && e.Racy && sameEntry(e, st.e) && fresh[st.path] == nil {
			e.Racy = false
		}
	}
	// A commit that changed the index may have left dead blocks behind
	// (see compact); one that only settled keys did not.
	if changed {
		var stored int64
		for _, size := range newSegs {
			stored += size
		}
		compact(dir, m, min(compactMaxBytes, max(compactMinBytes, compactRatio*stored)))
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
	data := m.encode(changed)
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
