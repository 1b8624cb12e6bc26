// Package search is a literal search over every session of every harness:
// history_list's query (a plain, case-insensitive substring) across all
// transcripts on the machine, without naming a session first.
//
// It is fast where it can prove it safe and exact everywhere. By default
// (Options.Index) every session's decoded, masked events are kept in a
// persistent trigram index (store.go, indexed.go), and any query over
// unchanged files reads posting lists and candidate blocks only. Without
// it, a raw-bytes prefilter skips files that cannot match (prefilter.go),
// only candidate files are decoded by their harness's decoder, and answers
// are cached per query and file. Either way what is kept is keyed on what
// proves a file unchanged (shared/filekey: size, modification time, change
// time, inode, a hash of its tail, and the same for the files a fork
// inherits from); a settled key is proven by one stat, a racy one (taken
// just after a change) by its tail too, and a changed file is always
// searched again.
//
// Secrets: a decoded event passes through history.VisibleEvent (the one
// masking point, shared/history/visible.go) before a match is decided or a
// snippet cut, so a query for a secret's text finds nothing, a snippet
// never holds part of a token, and the answer cache holds only masked text
// (and a hash of the query, which may itself be a secret). The raw scan
// still reads raw bytes, which is sound: it only rules files out, and
// masked text holds no query text the raw text lacks, except across a
// marker ("[REDACTED …]"), which a query may match but is not promised to.
//
// A session's Updated is its last record's time, as `notesoup history
// sessions` shows it: the newest time among the events the decoder emits
// (read anyway to find the matches), or the file's modification time when
// no event has one.
//
// Where the time goes, and so the shape of the code: a cold query is bound
// by reading the files (the scan kernel in pair_amd64.s tests 32 bytes per
// step without lower-casing them, see prefilter.go); a query over an index
// that is up to date by listing the session folders and one stat per file;
// tails are read (on Linux in io_uring batches, uring_linux.go) only for
// racy keys and the raw engine's answers.
package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/notesoup/notesoup/shared/filekey"
	"github.com/notesoup/notesoup/shared/history"
)

// Defaults.
const (
	// DefaultPerSession bounds the entries kept per session: the newest
	// matches, as history_list's first page shows them. Count still counts
	// them all.
	DefaultPerSession = 5
	// chunkBytes is the read size of the raw scan: big enough that read
	// calls cost little, small enough that the chunk the kernel copied in
	// is still in the core's L2 cache when the scan reads it, and that a
	// worker's buffer stays small whatever the file size. It must hold
	// firstLineMax (the fork check reads the first line from the first
	// chunk).
	chunkBytes = 256 << 10
)

// Options configure a search.
type Options struct {
	Sources []Source
	// CacheDir holds cached answers; "" disables the cache.
	CacheDir string
	// PerSession bounds the entries kept per session (DefaultPerSession
	// when 0).
	PerSession int
	// Workers is the number of files searched at once (GOMAXPROCS when 0).
	Workers int
	// Index answers from the persistent index under CacheDir/index (see
	// store.go) instead of a raw scan and per-query answers: any query
	// over unchanged files reads posting lists and candidate blocks only.
	// Ignored when CacheDir is "".
	Index bool
	// Limit, with Index, stops verifying sessions once this many newest
	// sessions with matches are complete (0: every session); Result.More
	// then says how many others may still match.
	Limit int
	// NoAnswerCache, with Index, neither reads nor writes the per-query
	// answers kept beside the index (benchmarks of a new query use it).
	NoAnswerCache bool
	// Emit, when set, is handed each session with matches, in the order
	// Result.Sessions would list them, instead of Result.Sessions holding
	// them all: with Index, each as soon as it and every newer session are
	// known, and its entries are then let go, so a search whose answer
	// names thousands of sessions (a common word, --limit 0) holds only the
	// few not yet handed over. Result.Sessions is then empty. An error
	// from Emit (a closed pipe) stops the search and is its error.
	Emit func(SessionHits) error
}

// SessionHits is one session's matches.
type SessionHits struct {
	Session history.Session `json:"session"`
	// Count is how many listable events match.
	Count int `json:"count"`
	// Entries are the newest matches (at most PerSession), oldest first,
	// as history_list renders them.
	Entries []history.Entry `json:"entries"`
}

// Stats say how a search was answered.
type Stats struct {
	Files       int   `json:"files"`
	Bytes       int64 `json:"bytes"`
	Cached      int   `json:"cached"`  // answered from the cache
	Skipped     int   `json:"skipped"` // proven not to match by the raw scan
	Decoded     int   `json:"decoded"` // decoded by the harness decoder
	ScannedByte int64 `json:"scanned_bytes"`
}

// Result is a search's answer: sessions with matches, newest first.
type Result struct {
	Query    string        `json:"query"`
	Sessions []SessionHits `json:"sessions"`
	// Errors are per-file problems (a refused transcript, an unreadable
	// file); the other files are still searched.
	Errors []string `json:"errors,omitempty"`
	Stats  Stats    `json:"stats"`
	// More is, when Options.Limit stopped the search, how many sessions
	// past the ones listed may match: an upper bound (each holds every
	// trigram of the query in one block, or matched when decoded), not a
	// count of matches. 0 when every session was searched.
	More int `json:"more,omitempty"`
}

// source is a Source as the workers use it.
type source struct {
	*Source
	// plan is the query prepared for the raw scan of this source's files;
	// not ok when the source has no raw search or the query no atom that
	// proves anything here.
	plan plan
	// everyTime: every file is decoded on every search, never answered
	// from the cache (see Source.Inherits).
	everyTime bool
}

// job is one file to search.
type job struct {
	src  *source
	sess history.Session
}

// Search runs query over every session of every source.
func Search(query string, opts Options) (Result, error) {
	if query == "" {
		return Result{}, errors.New("search: the query is empty; give the literal text to look for")
	}
	if strings.ContainsAny(query, "\n\r") {
		return Result{}, errors.New("search: the query must be one line (it is a literal substring)")
	}
	per := opts.PerSession
	if per <= 0 {
		per = DefaultPerSession
	}
	if per > history.MaxListLimit {
		return Result{}, fmt.Errorf("search: at most %d entries per session, got %d", history.MaxListLimit, per)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.Index && opts.CacheDir != "" {
		return searchIndexed(query, per, workers, opts)
	}
	res, err := searchRaw(query, per, workers, opts)
	if err != nil || opts.Emit == nil {
		return res, err
	}
	// The raw engine's answer is whole before any of it is known to be
	// newest: handed over at the end.
	for _, sh := range res.Sessions {
		if err := opts.Emit(sh); err != nil {
			return res, err
		}
	}
	res.Sessions = []SessionHits{}
	return res, nil
}

// searchRaw is Search without the index: a raw scan of every file, a
// decode of the candidates, and answers cached per query and file.
func searchRaw(query string, per, workers int, opts Options) (Result, error) {
	// Sessions is never nil: --json prints [] for no sessions.
	res := Result{Query: query, Sessions: []SessionHits{}}
	// The listings, the cache load and the answers overlap: each source
	// is listed by its own goroutine, which hands its files to the
	// workers in batches as soon as it has them.
	n := len(opts.Sources)
	s := &searcher{query: query, per: per, srcs: make([]source, n), lists: make([][]history.Session, n), listed: make(chan struct{})}
	for i := range opts.Sources {
		src := &opts.Sources[i]
		s.srcs[i] = source{Source: src, everyTime: src.Forks && src.Inherits == nil}
		if src.RawSearch {
			s.srcs[i].plan = newPlan(query, src.SynthesizedWords)
		}
	}
	answers := make([][]*fileAnswer, n)
	listErrs := make([]error, n)
	batches := make(chan batch, 64)
	// listed waits for every listing (pathOf needs them all), sending
	// for every batch to be handed out. A worker waiting in pathOf never
	// holds up a listing: lists are set before their batches are sent.
	var listed, sending sync.WaitGroup
	for i := range opts.Sources {
		listed.Add(1)
		sending.Add(1)
		go func() {
			defer sending.Done()
			src := &opts.Sources[i]
			ss, err := src.Files()
			listErrs[i] = err
			for k := range ss {
				ss[k].Harness = src.Harness
			}
			s.lists[i] = ss
			answers[i] = make([]*fileAnswer, len(ss))
			listed.Done()
			for lo := 0; lo < len(ss); lo += batchFiles {
				batches <- batch{src: i, lo: lo, hi: min(len(ss), lo+batchFiles)}
			}
		}()
	}
	go func() {
		listed.Wait()
		close(s.listed)
	}()
	go func() {
		sending.Wait()
		close(batches)
	}()
	s.cache = loadCache(opts.CacheDir, query, per)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		stats Stats
		dirty bool
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := &worker{s: s} // the read buffer comes with the first scan
			defer ws.dir.Close()
			defer ws.closeRing()
			var local Stats
			changed := false
			for b := range batches {
				src := &s.srcs[b.src]
				var proven []*fileAnswer
				if !src.everyTime {
					proven = ws.proveBatch(s.lists[b.src][b.lo:b.hi])
				}
				for k := b.lo; k < b.hi; k++ {
					if proven != nil && proven[k-b.lo] != nil {
						answers[b.src][k] = proven[k-b.lo]
						local.Cached++
						continue
					}
					a, how, scanned := ws.answer(job{src: src, sess: s.lists[b.src][k]})
					answers[b.src][k] = a
					local.ScannedByte += scanned
					switch how {
					case fromCache:
						local.Cached++
					case fromScan:
						local.Skipped++
						changed = true
					case fromDecode:
						local.Decoded++
						changed = true
					}
				}
			}
			mu.Lock()
			stats.ScannedByte += local.ScannedByte
			stats.Cached += local.Cached
			stats.Skipped += local.Skipped
			stats.Decoded += local.Decoded
			dirty = dirty || changed
			mu.Unlock()
		}()
	}
	wg.Wait()
	cache := s.cache
	for i, src := range opts.Sources {
		if listErrs[i] != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s sessions: %v", src.Harness, listErrs[i]))
		}
	}
	files := 0 // the answers the cache keeps
	for i := range answers {
		for _, a := range answers[i] {
			if a == nil {
				continue
			}
			if !s.srcs[i].everyTime {
				files++
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
	if files != len(cache.Files) {
		dirty = true // files were removed (or added): drop their answers
	}
	res.Stats = stats
	sort.SliceStable(res.Sessions, func(i, j int) bool {
		a, b := res.Sessions[i], res.Sessions[j]
		if !a.Session.Updated.Equal(b.Session.Updated) {
			return a.Session.Updated.After(b.Session.Updated)
		}
		return a.Session.Path < b.Session.Path
	})
	if dirty && opts.CacheDir != "" {
		fresh := make(map[string]*fileAnswer, files)
		for i := range answers {
			if s.srcs[i].everyTime {
				continue
			}
			for k, a := range answers[i] {
				if a != nil {
					fresh[s.lists[i][k].Path] = a
				}
			}
		}
		cache.Files = fresh
		if err := cache.save(opts.CacheDir); err != nil {
			res.Errors = append(res.Errors, err.Error())
		}
	}
	return res, nil
}

// batchFiles is how many files of one listing a worker takes at a time:
// few enough to share the work evenly, enough that consecutive files of
// one directory go to one worker (see filekey.Dir) and that proving them
// unchanged is one batch (see proveBatch).
const batchFiles = 32

// batch is a run of one source's files, lists[src][lo:hi].
type batch struct{ src, lo, hi int }

// How an answer was found.
const (
	fromCache = iota
	fromScan
	fromDecode
	fromError
)

// searcher is what workers share.
type searcher struct {
	query string
	per   int
	srcs  []source   // one per Options.Sources
	cache *cacheFile // read-only while workers run
	// lists[i] are source i's files, set before any of them is handed out.
	lists [][]history.Session
	// listed is closed when every source is listed.
	listed chan struct{}
	// byID maps "harness:id" to a path, for fork parents; built on first
	// use, after every source is listed.
	byIDOnce sync.Once
	byID     map[string]string
}

// pathOf finds a session's file by harness and id, once every source is
// listed (a fork's parent may be in a listing still under way).
func (s *searcher) pathOf(harness, id string) (string, bool) {
	s.byIDOnce.Do(func() {
		<-s.listed
		s.byID = map[string]string{}
		for _, ss := range s.lists {
			for _, sess := range ss {
				s.byID[sess.Harness+":"+sess.ID] = sess.Path
			}
		}
	})
	p, ok := s.byID[harness+":"+id]
	return p, ok
}

// worker searches files one at a time with its own read buffer.
type worker struct {
	s    *searcher
	prov prover      // proves batches of files unchanged, where it can
	dir  filekey.Dir // the directory of the file opened last
	buf  []byte      // read buffer
	// first is the first line of the file scanned last when its source
	// has forks, threads the sessions it inherits from (Source.Inherits,
	// inherits while the file's source is scanned).
	first    []byte
	threads  []string
	inherits func([]byte) []string
	tail     []byte // the tail read for a key
	// settled are the racy index entries this worker proved settled
	// (see settle).
	settled []settledEntry
}

// answer finds one file's answer: from the cache when the file (and what
// it inherits) is unchanged, else by scanning and, for candidates, decoding.
// Each file is opened once: the stat, the tail and the scan share the
// descriptor (raw system calls where there are any, see key_unix.go).
func (w *worker) answer(j job) (*fileAnswer, int, int64) {
	path := j.sess.Path
	fail := func(err error) (*fileAnswer, int, int64) {
		return &fileAnswer{Err: fmt.Sprintf("%s: %v", path, err)}, fromError, 0
	}
	if cap(w.tail) < filekey.TailBytes {
		w.tail = make([]byte, filekey.TailBytes)
	}
	f, st, err := w.dir.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	key := st.Key()
	tailKnown := false
	sess := j.sess
	sess.Size = key.Size
	if sess.Updated.IsZero() {
		sess.Updated = st.MTime
	}
	if j.src.everyTime {
		// Nothing to scan or prove: the bytes a fork inherits are not
		// named, so only the decoder can answer, and only now.
		a := &fileAnswer{Key: key}
		w.decode(j.src, sess, a)
		return a, fromDecode, 0
	}
	// Only an answer with the same size, modification time, inode and
	// change time can still hold; then the tail decides. Any other file is
	// scanned, and the scan hashes the tail it reads anyway.
	if a := w.s.cache.Files[path]; a != nil && a.Key.SameStat(key) {
		if key.Tail, err = filekey.TailHashAt(f, key.Size, w.tail); err != nil {
			return fail(err)
		}
		tailKnown = true
		if a.fresh(key, w.depKey) {
			return a, fromCache, 0
		}
	}
	a := &fileAnswer{Key: key}
	var sc *scanner
	if j.src.plan.ok {
		sc = newScanner(j.src.plan)
	}
	// The key is the size and time taken before the scan and a hash of
	// the tail bytes the scan read: a write during or after the scan
	// changes the key the next search sees, so an answer is never kept
	// past one. A file that shrank under the scan reads short (the next
	// stat differs), never beyond its end.
	var first *[]byte // the first line decides a fork's inheritance
	w.first, w.threads, w.inherits = w.first[:0], nil, j.src.Inherits
	if j.src.Inherits != nil {
		first = &w.first
	}
	done, scanned, tail, tailOK, err := w.scan(f, key.Size, sc, !tailKnown, first)
	if err == nil && !tailKnown {
		if tailOK {
			a.Key.Tail = tail
		} else {
			a.Key.Tail, err = filekey.TailHashAt(f, key.Size, w.tail)
		}
	}
	if err != nil {
		a.Err = fmt.Sprintf("%s: %v", path, err)
		return a, fromError, scanned
	}
	if first != nil && len(w.first) > 0 {
		if threads := w.threads; len(threads) > 0 {
			// A fork shows its parents' events too: the answer depends
			// on their bytes, and so does the raw scan. A parent that is
			// missing (no listed file has its id, or its file is gone)
			// is a dependency too, keyed as missing: when it reappears,
			// the fork's answer changes with it.
			a.Deps = map[string]filekey.Key{}
			parents, missing := w.s.forkParents(j.src, threads, w.readBuf())
			for _, id := range missing {
				a.Deps[missingIDDep(j.src.Harness, id)] = missingKey
			}
			for _, p := range parents {
				k, n, pdone, err := w.scanParent(p, sc, done)
				if errors.Is(err, fs.ErrNotExist) {
					// The decoder's gap notice; the file may come back.
					a.Deps[p] = missingKey
					sc = nil
					continue
				}
				scanned += n
				if err != nil {
					a.Err = fmt.Sprintf("%s: parent %s: %v", path, p, err)
					return a, fromError, scanned
				}
				a.Deps[p] = k
				done = pdone
			}
			if len(missing) > 0 {
				sc = nil // a parent we could not name or read: decode
			}
		}
	}
	if sc != nil && !done && !sc.candidate() {
		return a, fromScan, scanned
	}
	w.decode(j.src, sess, a)
	return a, fromDecode, scanned
}

// scanParent keys a fork's parent file and, unless the answer is already
// settled (done), feeds its bytes to sc too.
func (w *worker) scanParent(path string, sc *scanner, done bool) (filekey.Key, int64, bool, error) {
	f, st, err := filekey.Open(path)
	if err != nil {
		return filekey.Key{}, 0, done, err
	}
	defer f.Close()
	k := st.Key()
	if k.Tail, err = filekey.TailHashAt(f, k.Size, w.tail); err != nil {
		return filekey.Key{}, 0, done, err
	}
	if done {
		return k, 0, true, nil
	}
	done, n, _, _, err := w.scan(f, k.Size, sc, false, nil)
	return k, n, done, err
}

// scan feeds the first size bytes of f to sc (when not nil). For a file
// that may inherit, first is not nil: scan keeps the file's first line
// there and, if w.inherits names sessions it inherits from, makes sc
// eager, since their files are fed to it next (see scanner). done reports
// that the answer is settled (see scanner.feed). When wantTail is set and
// the chunk read last holds the file's last filekey.TailBytes, tail is their hash
// (tailOK), which saves a read.
//
// Plain reads into a reused buffer: on the machines measured, mapping
// thousands of files cost more in page faults and unmapping than the copy
// (see BENCHMARKS.md), and a chunk read into the same small buffer is
// still in the cache when the kernel scans it.
func (w *worker) scan(f filekey.File, size int64, sc *scanner, wantTail bool, first *[]byte) (done bool, scanned int64, tail uint64, tailOK bool, err error) {
	if first != nil {
		*first = (*first)[:0]
	}
	if size == 0 {
		return false, 0, filekey.TailHash(nil), wantTail, nil
	}
	keep := 0
	if sc != nil {
		keep = sc.overlap()
		sc.startFile()
	}
	buf := w.readBuf()
	var pos int64 // file offset of buf[0]
	kept := 0     // bytes repeated from the previous chunk
	for head := true; ; head = false {
		want := min(int64(len(buf)-kept), size-pos-int64(kept))
		n, rerr := f.ReadAt(buf[kept:kept+int(want)], pos+int64(kept))
		chunk := buf[:kept+n]
		scanned += int64(n)
		end := pos + int64(len(chunk))
		short := int64(n) < want
		if rerr != nil && !(short && errors.Is(rerr, io.EOF)) {
			return false, scanned, 0, false, rerr
		}
		if wantTail && end == size && int64(len(chunk)) >= min(size, filekey.TailBytes) {
			tail, tailOK = filekey.TailHash(chunk[len(chunk)-int(min(size, filekey.TailBytes)):]), true
		}
		if head {
			if first != nil {
				*first = appendFirstLine(*first, chunk)
				w.threads = w.inherits(*first)
				if sc != nil && len(w.threads) > 0 {
					sc.eager = true
				}
			}
			if sc == nil {
				return false, scanned, tail, tailOK, nil
			}
		}
		if sc.feed(chunk, pos) {
			return true, scanned, tail, tailOK, nil
		}
		if short || end >= size {
			if sc.rescan() {
				// Settle it: the whole file again, every missing
				// atom (see scanner). The first line and tail are
				// kept.
				sc.eager = true
				done, n, _, _, err := w.scan(f, size, sc, false, nil)
				return done, scanned + n, tail, tailOK, err
			}
			return false, scanned, tail, tailOK, nil
		}
		kept = min(keep, len(chunk))
		copy(buf[:kept], chunk[len(chunk)-kept:])
		pos = end - int64(kept)
	}
}

// firstLineMax bounds the first line kept for the fork check: a fork's
// first record may carry a whole system prompt, tens of KiB.
const firstLineMax = 256 << 10

// The first chunk must hold the first line the fork check reads.
var _ [chunkBytes - firstLineMax]struct{}

// depKey keys a file an answer depends on (a fork's parent), reusing the
// worker's tail buffer. A missing file, and an id no listed file has
// (missingIDDep), key as missingKey, so an answer computed without them
// holds until they appear.
func (w *worker) depKey(dep string) (filekey.Key, error) {
	if harness, id, ok := parseMissingIDDep(dep); ok {
		if _, found := w.s.pathOf(harness, id); found {
			return filekey.Key{}, nil // named now: the answer is stale
		}
		return missingKey, nil
	}
	if cap(w.tail) < filekey.TailBytes {
		w.tail = make([]byte, filekey.TailBytes)
	}
	k, err := filekey.With(dep, w.tail[:filekey.TailBytes])
	if errors.Is(err, fs.ErrNotExist) {
		return missingKey, nil
	}
	return k, err
}

// missingKey is the key of a dependency that does not exist: no file has
// it (a real file's size is never negative).
var missingKey = filekey.Key{Size: -1}

// missingIDPrefix starts the dependency of a fork on a parent id that no
// listed file has: a NUL, which no path holds, then harness:id.
const missingIDPrefix = "\x00id:"

// missingIDDep names the dependency on a parent id no listed file has.
func missingIDDep(harness, id string) string { return missingIDPrefix + harness + ":" + id }

// parseMissingIDDep undoes missingIDDep.
func parseMissingIDDep(dep string) (harness, id string, ok bool) {
	rest, ok := strings.CutPrefix(dep, missingIDPrefix)
	if !ok {
		return "", "", false
	}
	harness, id, ok = strings.Cut(rest, ":")
	return harness, id, ok
}

// readBuf is the worker's read buffer, made on first use: a warm search
// reads no more than tails.
func (w *worker) readBuf() []byte {
	if w.buf == nil {
		w.buf = make([]byte, chunkBytes)
	}
	return w.buf
}

// appendFirstLine appends the first line of b (at most firstLineMax bytes)
// to dst.
func appendFirstLine(dst, b []byte) []byte {
	b = b[:min(len(b), firstLineMax)]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return append(dst, b...)
}

// forkParents resolves the ids of the sessions a file of src inherits from
// to their files, following what each parent inherits in turn, so a chain
// of forks depends on all of its files; missing are the ids no listed file
// has. buf is scratch for reading first lines.
func (s *searcher) forkParents(src *source, threads []string, buf []byte) (out, missing []string) {
	seen := map[string]bool{}
	for len(threads) > 0 && len(out)+len(missing) < 64 {
		t := threads[0]
		threads = threads[1:]
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		p, ok := s.pathOf(src.Harness, t)
		if !ok {
			missing = append(missing, t)
			continue
		}
		out = append(out, p)
		if line, err := firstLine(p, buf); err == nil {
			threads = append(threads, src.Inherits(line)...)
		}
	}
	return out, missing
}

// firstLine reads path's first line (at most firstLineMax bytes) into buf,
// which must hold that many.
func firstLine(path string, buf []byte) ([]byte, error) {
	f, _, err := filekey.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Most first lines are a few KiB: read more only while none ended.
	have := 0
	for step := 16 << 10; have < firstLineMax; step *= 2 {
		want := min(step, firstLineMax) - have
		n, err := f.ReadAt(buf[have:have+want], int64(have))
		if i := bytes.IndexByte(buf[have:have+n], '\n'); i >= 0 {
			return buf[:have+i], nil
		}
		have += n
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf[:have], nil
}

// decode runs the harness decoder and keeps the count and the newest
// matches, with history_list's own rules for what matches and how an entry
// renders. The match is decided, and the snippet cut, on masked text
// (history.VisibleEvent): an event counts only when its masked text holds
// the query. Only events whose raw text holds it are masked: masking
// replaces parts of a text by markers, so a masked text holds the query
// only where the raw one does, or across a marker (which a query may,
// but need not, match). Masking every event would cost more than
// decoding them (measured 1.6-2.4x the decode's CPU).
func (w *worker) decode(src *source, sess history.Session, a *fileAnswer) {
	q := history.ListQuery{Query: w.s.query}
	ring := make([]history.Event, 0, w.s.per)
	count := 0
	var last time.Time // the newest event time: the session's Updated
	proj := history.Project(src.Decoder, sess, history.DecodeOptions{})
	for ev, err := range proj.Events {
		if err != nil {
			a.Err = err.Error()
			a.Count, a.Hits = 0, nil
			return
		}
		if ev.Time.After(last) {
			last = ev.Time
		}
		if !Matches(ev, q.Query) {
			continue
		}
		if ev = history.VisibleEvent(ev); !Matches(ev, q.Query) {
			continue // the query was (part of) a secret
		}
		count++
		if len(ring) < w.s.per {
			ring = append(ring, ev)
		} else {
			copy(ring, ring[1:])
			ring[len(ring)-1] = ev
		}
	}
	a.Count = count
	if count == 0 {
		return
	}
	page, err := history.List(history.Slice(ring), history.ListQuery{Query: q.Query, Limit: w.s.per}, history.RenderOptions{})
	if err != nil {
		a.Err = fmt.Sprintf("%s: %v", sess.Path, err)
		return
	}
	if !last.IsZero() {
		sess.Updated = last
	}
	entries := page.Entries
	if entries == nil {
		entries = []history.Entry{} // JSON [] rather than null
	}
	a.Hits = &hits{Session: history.VisibleSession(sess), Entries: entries}
}

// Matches reports whether history_list's query would list ev: a listable
// event whose searchable text (a tool use's name and input, any other
// event's visible text) holds query, case-insensitively.
func Matches(ev history.Event, query string) bool {
	if !history.Listable(ev) {
		return false
	}
	text := ev.Text
	if ev.Kind == history.KindToolUse {
		text = ev.ToolName
		if ev.ToolInput != "" {
			text += " " + ev.ToolInput
		}
	}
	at, _ := history.IndexFold(text, query)
	return at >= 0
}
