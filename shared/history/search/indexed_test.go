package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/filekey/filekeytest"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/testkit/corpus"
)

// indexOpts are a search's options with the persistent index in a fresh
// temp folder.
func indexOpts(t *testing.T, srcs []Source) Options {
	return Options{Sources: srcs, CacheDir: t.TempDir(), Index: true}
}

// TestIndexMatchesBruteForce: the index answers every query as a full
// decode does (literal, case-insensitive, non-ASCII, short, across a
// separator, nowhere), cold and then from the index with every file
// proven unchanged.
func TestIndexMatchesBruteForce(t *testing.T) {
	res := genCorpus(t, 6<<20, 45)
	srcs := sourcesFor(res.Layout)
	opts := indexOpts(t, srcs)
	queries := []string{res.Needle, strings.ToUpper(res.Needle), "undefined: stream", "PASS", "résumé naïve", "RÉSUMÉ",
		"docs__search", "exec_command {", "no such text anywhere 8472", "go", "é", "a", "NAÏVE CAFÉ", "zzzq café"}
	for pass := 0; pass < 2; pass++ {
		for _, q := range queries {
			want := bruteCounts(t, srcs, q)
			got, err := Search(q, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Errors) > 0 {
				t.Fatalf("%q: errors: %v", q, got.Errors)
			}
			if g := countsOf(got); fmt.Sprint(g) != fmt.Sprint(want) {
				t.Errorf("pass %d, %q: counts differ from a full decode:\n got  %v\n want %v", pass, q, g, want)
			}
			if got.Stats.Files != len(res.Files) {
				t.Errorf("searched %d files, the corpus has %d", got.Stats.Files, len(res.Files))
			}
			if pass == 1 && got.Stats.Cached != got.Stats.Files {
				t.Errorf("pass 2, %q: not answered from the index: %+v", q, got.Stats)
			}
		}
	}
	// The same answers as the answer-cache engine, entries included.
	for _, q := range []string{res.Needle, "résumé naïve"} {
		a, err := Search(q, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Search(q, Options{Sources: srcs})
		if err != nil {
			t.Fatal(err)
		}
		a.Stats, b.Stats = Stats{}, Stats{}
		// As printed (JSON): an answer kept beside the index, like one
		// from the answer cache, has no rendered line (Entry.Line).
		if ja, jb := mustJSON(t, a), mustJSON(t, b); ja != jb {
			t.Errorf("%q: the index answers\n%v\nthe scan answers\n%v", q, a, b)
		}
	}
}

// TestIndexSeesAppendAndRewrite: an event appended between two queries
// shows in the second (only the changed file is decoded again), and a
// rewrite in place at the same size and modification time is caught,
// whether the index proves files by their tail hash (keys taken just after
// a change: racy) or by a stat alone (keys settled).
func TestIndexSeesAppendAndRewrite(t *testing.T) {
	filekeytest.EachProof(t, testIndexSeesAppendAndRewrite)
}

func testIndexSeesAppendAndRewrite(t *testing.T, settled bool) {
	res := genCorpus(t, 2<<20, 12)
	opts := indexOpts(t, sourcesFor(res.Layout))
	q := "zqx appended marker"
	first, err := Search(q, opts)
	if err != nil || len(first.Sessions) != 0 {
		t.Fatalf("before: %v %v", first.Sessions, err)
	}
	var target corpus.File
	for _, f := range res.ByHarness(corpus.Pi) {
		if f.ForkOf == "" {
			target = f
			break
		}
	}
	line := fmt.Sprintf(`{"type":"message","id":"feedf00d","parentId":"%s","timestamp":"2026-12-02T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"late mention of %s"}],"timestamp":1796208043000}}`+"\n", lastPiID(t, target.Path), q)
	appendFile(t, target.Path, line)
	after, err := Search(q, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := countsOf(after)[target.Path]; got != 1 || len(after.Sessions) != 1 {
		t.Fatalf("after the append: %v, want one match in %s (%+v)", countsOf(after), target.Path, after.Stats)
	}
	if after.Stats.Decoded != 1 || after.Stats.Cached != after.Stats.Files-1 {
		t.Errorf("only the appended file should be decoded again: %+v", after.Stats)
	}
	// Another query, new to the index, sees the appended text too.
	if r, _ := Search("LATE MENTION OF zqx", opts); countsOf(r)[target.Path] != 1 || r.Stats.Decoded != 0 {
		t.Errorf("a new query after the append: %v %+v", countsOf(r), r.Stats)
	}
	b, err := os.ReadFile(target.Path)
	if err != nil {
		t.Fatal(err)
	}
	filekeytest.RewriteInPlace(t, target.Path, bytes.Replace(b, []byte(q), []byte(strings.Repeat("y", len(q))), 1), settled)
	if m := loadManifest(filepath.Join(opts.CacheDir, indexDirName)); m.Entries[target.Path] == nil || m.Entries[target.Path].Racy == settled {
		t.Fatalf("the entry of %s: %+v, want racy %v", target.Path, m.Entries[target.Path], !settled)
	}
	rewritten, err := Search(q, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rewritten.Sessions) != 0 {
		t.Errorf("after the rewrite in place: %v, want none (%+v)", countsOf(rewritten), rewritten.Stats)
	}
	if r, _ := Search(strings.Repeat("y", len(q)), opts); countsOf(r)[target.Path] != 1 {
		t.Errorf("the rewritten text is not found: %v", countsOf(r))
	}
}

// TestIndexNeverHoldsASecret: a token is neither findable through the
// index nor stored in any file under the cache folder (segments, their
// trigram index, the manifest), in any case.
func TestIndexNeverHoldsASecret(t *testing.T) {
	files := map[string]string{
		"whole": "key " + tok2 + "\nexport GITHUB_TOKEN=" + tok1 + "\ngreeting",
		"other": "nothing secret here, greeting",
	}
	src, _ := fakeSource(t, &fakeHarness{render: func(s string) string { return s }}, files)
	opts := indexOpts(t, []Source{src})
	for pass := 0; pass < 2; pass++ {
		for _, q := range []string{tok1, tok2, tok1[10:30], strings.ToUpper(tok2[8:24])} {
			r, err := Search(q, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Sessions) != 0 {
				t.Errorf("pass %d: a query for a secret found %v", pass, idCounts(t, r))
			}
		}
		if r, _ := Search("greeting", opts); fmt.Sprint(idCounts(t, r)) != "map[other:1 whole:1]" {
			t.Errorf("greeting: %v", idCounts(t, r))
		}
	}
	n := 0
	filepath.WalkDir(opts.CacheDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n++
		for _, tok := range []string{tok1, tok2} {
			if l := leak(strings.ToLower(string(b)), strings.ToLower(tok)); l != "" {
				t.Errorf("%s holds %q of a token", p, l)
			}
		}
		return nil
	})
	if n < 3 {
		t.Fatalf("only %d files in the cache folder: the test proves nothing", n)
	}
}

// TestIndexRecoversFromDamage: a segment truncated (a crash mid-build, a
// full disk) or a torn manifest is detected; the search still answers
// right, decoding what it cannot read, and the next one is from the index
// again.
func TestIndexRecoversFromDamage(t *testing.T) {
	res := genCorpus(t, 2<<20, 12)
	srcs := sourcesFor(res.Layout)
	want := fmt.Sprint(bruteCounts(t, srcs, res.Needle))
	damage := map[string]func(t *testing.T, dir string){
		"truncated segment": func(t *testing.T, dir string) {
			segs, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"))
			if len(segs) == 0 {
				t.Fatal("no segment")
			}
			for _, s := range segs {
				fi, _ := os.Stat(s)
				os.Truncate(s, fi.Size()/2)
			}
		},
		"garbled segment, same size": func(t *testing.T, dir string) {
			segs, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"))
			for _, s := range segs {
				b, _ := os.ReadFile(s)
				for i := len(b) / 3; i < len(b); i += 7 {
					b[i] ^= 0x5a
				}
				os.WriteFile(s, b, 0o600)
			}
		},
		"torn manifest": func(t *testing.T, dir string) {
			p := filepath.Join(dir, manifestName)
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()-3)
		},
		"segment gone": func(t *testing.T, dir string) {
			segs, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"))
			os.Remove(segs[0])
		},
	}
	for name, hurt := range damage {
		t.Run(name, func(t *testing.T) {
			opts := indexOpts(t, srcs)
			if r, err := Search(res.Needle, opts); err != nil || fmt.Sprint(countsOf(r)) != want {
				t.Fatalf("cold: %v %v", countsOf(r), err)
			}
			hurt(t, filepath.Join(opts.CacheDir, indexDirName))
			for pass := 0; pass < 2; pass++ {
				r, err := Search(res.Needle, opts)
				if err != nil {
					t.Fatal(err)
				}
				// A garbled block may read as other events: then
				// the counts differ, which a checksum would catch;
				// they must never be an error or a crash.
				if got := fmt.Sprint(countsOf(r)); got != want && name != "garbled segment, same size" {
					t.Errorf("pass %d after damage: %s, want %s (%+v %v)", pass, got, want, r.Stats, r.Errors)
				}
				if pass == 1 && name != "garbled segment, same size" && r.Stats.Cached != r.Stats.Files {
					t.Errorf("not rebuilt: %+v", r.Stats)
				}
			}
		})
	}
}

// TestIndexConcurrentSearchesWhileAppending: searches run while a writer
// appends to a transcript and other searches write the index; every
// search answers without error, none sees fewer matches than were
// written before it started, and once the writer stops a search sees
// them all.
func TestIndexConcurrentSearchesWhileAppending(t *testing.T) {
	files := map[string]string{"live": "start\n", "a": "quiet words\n", "b": "more quiet words\n"}
	src, root := fakeSource(t, &fakeHarness{render: func(s string) string { return s }}, files)
	opts := indexOpts(t, []Source{src})
	live := filepath.Join(root, "live.txt")
	const appends = 40
	var written sync.WaitGroup
	var mu sync.Mutex
	done := 0 // appends finished
	written.Add(1)
	go func() {
		defer written.Done()
		for i := range appends {
			appendFile(t, live, fmt.Sprintf("zqx event %d\n", i))
			mu.Lock()
			done++
			mu.Unlock()
		}
	}()
	var searchers sync.WaitGroup
	errs := make(chan string, 64)
	for range 3 {
		searchers.Add(1)
		go func() {
			defer searchers.Done()
			for range 15 {
				mu.Lock()
				before := done
				mu.Unlock()
				r, err := Search("ZQX event", opts)
				if err != nil || len(r.Errors) > 0 {
					errs <- fmt.Sprint(err, r.Errors)
					return
				}
				got := 0
				for _, s := range r.Sessions {
					got += s.Count
				}
				if got < before {
					errs <- fmt.Sprintf("saw %d matches, %d were written before the search", got, before)
				}
			}
		}()
	}
	searchers.Wait()
	written.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	r, err := Search("zqx EVENT", opts)
	if err != nil || len(r.Sessions) != 1 || r.Sessions[0].Count != appends {
		t.Fatalf("after the writer stopped: %+v %v", r.Sessions, err)
	}
	// Nothing left behind: the segments the manifest names and no other.
	dir := filepath.Join(opts.CacheDir, indexDirName)
	m := loadManifest(dir)
	segs, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"))
	if len(segs) != len(m.Segs) {
		t.Errorf("%d segment files, the manifest names %d", len(segs), len(m.Segs))
	}
	_ = time.Second
	_ = contract.CapRawSearch
}

// TestIndexLimitIsTheNewestPrefix: with Limit, the answer is exactly the
// first Limit sessions of the whole answer (newest first, each with its
// complete count and entries), and More bounds the rest from above; with
// no limit More is 0.
func TestIndexLimitIsTheNewestPrefix(t *testing.T) {
	res := genCorpus(t, 4<<20, 30)
	opts := indexOpts(t, sourcesFor(res.Layout))
	for _, q := range []string{"the", "é", "PASS", res.Needle} {
		all, err := Search(q, opts)
		if err != nil {
			t.Fatal(err)
		}
		if all.More != 0 {
			t.Errorf("%q: no limit, but More = %d", q, all.More)
		}
		for _, limit := range []int{1, 3, 7} {
			o := opts
			o.Limit = limit
			got, err := Search(q, o)
			if err != nil {
				t.Fatal(err)
			}
			want := all.Sessions
			if len(want) > limit {
				want = want[:limit]
			}
			if fmt.Sprint(got.Sessions) != fmt.Sprint(want) {
				t.Errorf("%q limit %d: got\n%v\nwant the first sessions of the whole answer\n%v", q, limit, got.Sessions, want)
			}
			if rest := len(all.Sessions) - len(want); got.More < rest {
				t.Errorf("%q limit %d: More = %d, but %d more sessions match", q, limit, got.More, rest)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIndexKeepsAnswers: the same query again over an unchanged index is
// answered from the answer kept beside it (no block read), identical as
// printed; an append retires it (the new event shows); the kept answers
// are bounded in number and hold no query text in their names.
func TestIndexKeepsAnswers(t *testing.T) {
	res := genCorpus(t, 2<<20, 12)
	opts := indexOpts(t, sourcesFor(res.Layout))
	first, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The first search built the index (nothing kept); the second keeps.
	second, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(opts.CacheDir, indexDirName, answersDir)
	names, _ := filepath.Glob(filepath.Join(dir, "a-*"))
	if len(names) != 1 {
		t.Fatalf("kept answers: %v, want one", names)
	}
	for _, n := range names {
		if strings.Contains(n, res.Needle) {
			t.Errorf("an answer's name holds the query: %s", n)
		}
	}
	// Damage every segment: a third search can only answer from what
	// was kept.
	segs, _ := filepath.Glob(filepath.Join(opts.CacheDir, indexDirName, segPrefix+"*"))
	saved := map[string][]byte{}
	for _, p := range segs {
		b, _ := os.ReadFile(p)
		saved[p] = b
		os.WriteFile(p, bytes.Repeat([]byte{0}, len(b)), 0o600)
	}
	third, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range saved {
		os.WriteFile(p, b, 0o600)
	}
	if third.Stats.Decoded != 0 {
		t.Errorf("the kept answer was not used: %+v", third.Stats)
	}
	for _, r := range []Result{second, third} {
		r.Stats = first.Stats
		if a, b := mustJSON(t, r), mustJSON(t, first); a != b {
			t.Errorf("a kept answer differs:\n%s\nwant\n%s", a, b)
		}
	}
	// An append retires it.
	var target corpus.File
	for _, f := range res.ByHarness(corpus.Pi) {
		if f.ForkOf == "" {
			target = f
			break
		}
	}
	line := fmt.Sprintf(`{"type":"message","id":"feedf00e","parentId":"%s","timestamp":"2026-12-02T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"late %s"}],"timestamp":1796208043000}}`+"\n", lastPiID(t, target.Path), res.Needle)
	appendFile(t, target.Path, line)
	after, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, was := countsOf(after)[target.Path], countsOf(first)[target.Path]; got != was+1 {
		t.Errorf("after the append %s has %d matches, want %d", target.Path, got, was+1)
	}
	// Bounded: many queries keep at most maxAnswers.
	for i := range maxAnswers + 5 {
		if _, err := Search(fmt.Sprintf("query %d", i), opts); err != nil {
			t.Fatal(err)
		}
		if _, err := Search(fmt.Sprintf("query %d", i), opts); err != nil {
			t.Fatal(err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "a-*")); len(names) > maxAnswers {
		t.Errorf("%d answers kept, the bound is %d", len(names), maxAnswers)
	}
}

// TestIndexBuildsWithinABudget: with a build budget smaller than the
// corpus, every search answers as a full decode does (the files past the
// budget answered as the raw engine answers them), each indexes at most
// about the budget more, and the index is complete after a few searches.
func TestIndexBuildsWithinABudget(t *testing.T) {
	res := genCorpus(t, 4<<20, 30)
	srcs := sourcesFor(res.Layout)
	opts := indexOpts(t, srcs)
	defer func(b int64) { buildBudget = b }(buildBudget)
	buildBudget = 1 << 20
	queries := []string{res.Needle, "the", "naïve café", "no such text 4471"}
	complete := false
	for round := 0; round < 12 && !complete; round++ {
		q := queries[round%len(queries)]
		got, err := Search(q, opts)
		if err != nil {
			t.Fatal(err)
		}
		if g, want := countsOf(got), bruteCounts(t, srcs, q); fmt.Sprint(g) != fmt.Sprint(want) {
			t.Fatalf("round %d, %q: counts differ from a full decode:\n got  %v\n want %v", round, q, g, want)
		}
		if round == 0 {
			// The first search left files to later ones.
			m := loadManifest(filepath.Join(opts.CacheDir, indexDirName))
			if len(m.Entries) >= len(res.Files) || got.Stats.Skipped+got.Stats.Decoded <= len(m.Entries) {
				t.Errorf("the first search indexed %d of %d files past a budget of %d bytes (%+v)", len(m.Entries), len(res.Files), buildBudget, got.Stats)
			}
		}
		complete = got.Stats.Cached == got.Stats.Files
	}
	if !complete {
		t.Errorf("the index is still incomplete after 12 searches")
	}
}

// TestBlockMatchesAsMatchesDoes: a block's verification (lowered text for
// an ASCII query; for another, folded windows around its ASCII part, or
// the whole folded events) counts exactly the events Matches accepts, over
// texts with the runes that fold to ASCII, invalid UTF-8, longer and
// shorter folds, and near misses before a match.
func TestBlockMatchesAsMatchesDoes(t *testing.T) {
	texts := []string{
		"plain naïve café here", "NAÏVE CAFÉ shouting", "naive cafe without accents",
		"ve caf ve caf naïve café after near misses", "Kelvin \u212A naïve café", "\xff\xfe naïve café \xc3",
		"ſtraße naïve CAFÉ", "ﬃ ligature naïve café", "naïve\ncafé split by a line", "ÅNGSTRÖM \u212Bngström",
		"tail ve caf", "x \u212A café", "y \u212A\u212Aé café", "K CAFÉ", "ΣΊΣΥΦΟΣ σίσυφος", "über Über ÜBER", "résumé naïve café ✓ — end",
	}
	var evs []history.Event
	for i, tx := range texts {
		evs = append(evs, history.Event{Seq: int64(i + 1), Kind: history.KindMessage, Role: history.RoleUser, Text: tx})
	}
	evs = append(evs, history.Event{Seq: 99, Kind: history.KindToolUse, Role: history.RoleTool, ToolName: "Naïve", ToolInput: "café tool"})
	b := newSegBuilder()
	b.addSession(evs)
	dir := t.TempDir()
	name, size, err := b.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := openSegment(dir, name, size)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.unmap()
	for _, query := range []string{"naïve café", "NAÏVE CAFÉ", "ve café", "straße", "ΣΊΣΥΦΟΣ", "über", "ångström", "\u212Angström", "Kelvin \u212A", "naïve café ✓", "é", "ſtr", "ﬃ ligature", "ive caf", "Naïve café tool", "\u212A café", "KKÉ CAFÉ", "ΣΊΣΥΦΟΣ σ",
		"CAFE without", "a", "kelvin", "K", "near MISSES", "x ", "tool"} {
		want := 0
		for _, ev := range evs {
			if Matches(ev, query) {
				want++
			}
		}
		q := newQueryPlan(query, 20)
		var mt matcher
		mt.init(query, 20)
		var br blockReader
		for d := range seg.blocks {
			if err := q.block(&br, &mt, seg, d); err != nil {
				t.Fatal(err)
			}
		}
		if mt.count != want {
			t.Errorf("%q (part %q): %d events match, Matches accepts %d", query, q.part, mt.count, want)
		}
	}
}

// TestIndexKeepsOtherScopes: one index serves searches over different
// sets of sources (other roots, a harness not reached this time). Each
// answers as a full decode of its own sources does, leaves the entries of
// the others alone without rewriting the manifest, and keeps its answers
// apart from theirs; only a search over a file's own source forgets it
// once it is gone, and a file listed by another source is taken over.
func TestIndexKeepsOtherScopes(t *testing.T) {
	filekeytest.EachProof(t, func(t *testing.T, _ bool) {
		a, b := genCorpus(t, 1<<20, 9), genCorpus(t, 1<<20, 9)
		srcsA, srcsB := sourcesFor(a.Layout), sourcesFor(b.Layout)
		noPi := []Source{srcsA[0], srcsA[2]} // Pi could not be reached
		both := append(append([]Source{}, srcsA...), srcsB...)
		cache := t.TempDir()
		dir := filepath.Join(cache, indexDirName)
		q := "undefined: stream"
		for _, srcs := range [][]Source{srcsA, srcsB} { // build
			if _, err := Search(q, Options{Sources: srcs, CacheDir: cache, Index: true}); err != nil {
				t.Fatal(err)
			}
		}
		all := len(a.Files) + len(b.Files)
		if m := loadManifest(dir); len(m.Entries) != all {
			t.Fatalf("the index holds %d files, want %d", len(m.Entries), all)
		}
		kept := func() int {
			names, _ := filepath.Glob(filepath.Join(dir, answersDir, "a-*"))
			return len(names)
		}
		for i, c := range []struct {
			name string
			srcs []Source
		}{
			{"the first roots", srcsA},
			{"the second roots", srcsB},
			{"both", both},
			{"a harness not reached", noPi},
		} {
			before, err := os.Stat(filepath.Join(dir, manifestName))
			if err != nil {
				t.Fatal(err)
			}
			for pass := range 2 {
				got, err := Search(q, Options{Sources: c.srcs, CacheDir: cache, Index: true})
				if err != nil {
					t.Fatal(err)
				}
				if g, w := countsOf(got), bruteCounts(t, c.srcs, q); fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("%s, pass %d: %v, a full decode finds %v", c.name, pass, g, w)
				}
				if got.Stats.Decoded != 0 {
					t.Errorf("%s, pass %d: %d files decoded, want all from the index", c.name, pass, got.Stats.Decoded)
				}
			}
			after, err := os.Stat(filepath.Join(dir, manifestName))
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("%s: the manifest was rewritten", c.name)
			}
			if m := loadManifest(dir); len(m.Entries) != all {
				t.Errorf("%s: the index holds %d files, want %d", c.name, len(m.Entries), all)
			}
			if n := kept(); n != i+1 {
				t.Errorf("%s: %d answers kept, want %d (one per set of sources)", c.name, n, i+1)
			}
		}
		// A file of the second roots is deleted: a search over the first
		// leaves its entry, one over its own roots drops it.
		gone := b.Files[len(b.Files)-1].Path
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		Search(q, Options{Sources: srcsA, CacheDir: cache, Index: true})
		if loadManifest(dir).Entries[gone] == nil {
			t.Errorf("a search over other roots dropped the entry of %s", gone)
		}
		Search(q, Options{Sources: srcsB, CacheDir: cache, Index: true})
		if loadManifest(dir).Entries[gone] != nil {
			t.Errorf("the entry of the deleted %s is still held", gone)
		}
		// The first roots listed under another scope: their entries are
		// taken over, not decoded again, and answers stay right.
		moved := append([]Source{}, srcsA...)
		for i := range moved {
			moved[i].Scope = "moved " + moved[i].Harness
		}
		got, err := Search(q, Options{Sources: moved, CacheDir: cache, Index: true})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := countsOf(got), bruteCounts(t, moved, q); fmt.Sprint(g) != fmt.Sprint(w) || got.Stats.Decoded != 0 {
			t.Errorf("moved: %v (%d decoded), a full decode finds %v", g, got.Stats.Decoded, w)
		}
		m := loadManifest(dir)
		for _, f := range a.Files {
			if e := m.Entries[f.Path]; e == nil || !strings.HasPrefix(e.Scope, "moved ") {
				t.Errorf("the entry of %s was not taken over: %+v", f.Path, e)
			}
		}
	})
}

// TestEmitHandsOverTheAnswer: with Options.Emit, a search hands over the
// same sessions, in the same order, as Result.Sessions lists without it,
// for every engine and limit, from the index, from a kept answer and from
// a damaged index; Result.Sessions is then empty, and an error from Emit
// stops the search and is its error.
func TestEmitHandsOverTheAnswer(t *testing.T) {
	res := genCorpus(t, 3<<20, 20)
	srcs := sourcesFor(res.Layout)
	cache := t.TempDir()
	emitted := func(q string, o Options) ([]SessionHits, Result) {
		t.Helper()
		var got []SessionHits
		o.Emit = func(sh SessionHits) error { got = append(got, sh); return nil }
		r, err := Search(q, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Sessions) != 0 {
			t.Errorf("%q: Result.Sessions holds %d sessions beside Emit", q, len(r.Sessions))
		}
		return got, r
	}
	damage := func() { // every segment zeroed in place
		segs, _ := filepath.Glob(filepath.Join(cache, indexDirName, segPrefix+"*"))
		for _, p := range segs {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Repeat([]byte{0}, len(b)), 0o600)
		}
	}
	for _, c := range []struct {
		name   string
		opts   Options
		damage bool
	}{
		{"raw engine", Options{Sources: srcs}, false},
		{"index, all", Options{Sources: srcs, CacheDir: cache, Index: true}, false},
		{"index, limit 3", Options{Sources: srcs, CacheDir: cache, Index: true, Limit: 3}, false},
		{"index, no kept answers", Options{Sources: srcs, CacheDir: cache, Index: true, NoAnswerCache: true}, false},
		{"index, damaged segments", Options{Sources: srcs, CacheDir: cache, Index: true, NoAnswerCache: true}, true},
	} {
		for _, q := range []string{"go test", "résumé naïve", res.Needle, "nowhere at all 7731"} {
			for pass := range 2 { // the second from what the first kept
				if c.damage && pass == 0 {
					damage()
				}
				want, err := Search(q, c.opts)
				if err != nil {
					t.Fatal(err)
				}
				if c.damage && pass == 0 {
					damage() // want repaired the index: again for Emit
				}
				got, r := emitted(q, c.opts)
				if c.damage && pass == 0 && r.Stats.Decoded == 0 {
					t.Errorf("%s, %q: nothing decoded from a damaged index", c.name, q)
				}
				if a, b := mustJSON(t, got), mustJSON(t, want.Sessions); a != b && !(len(got) == 0 && len(want.Sessions) == 0) {
					t.Errorf("%s, %q, pass %d: Emit was handed\n%s\nResult.Sessions lists\n%s", c.name, q, pass, a, b)
				}
				if r.More != want.More {
					t.Errorf("%s, %q, pass %d: more %d, want %d", c.name, q, pass, r.More, want.More)
				}
			}
		}
	}
	stop := errors.New("the pipe is closed")
	calls := 0
	_, err := Search("go test", Options{Sources: srcs, CacheDir: t.TempDir(), Index: true, Emit: func(SessionHits) error { calls++; return stop }})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Emit failed: the search went on (%d calls) or hid the error: %v", calls, err)
	}
}

// TestIndexCompacts: sessions that change again and again between
// searches leave at most compactDead of the index's blocks dead (the old
// copies compaction drops), small segments are merged, the index stays
// near the size a fresh build of the same files has, and every answer
// after the moves is a full decode's, from the index alone.
func TestIndexCompacts(t *testing.T) {
	res := genCorpus(t, 3<<20, 30)
	srcs := sourcesFor(res.Layout)
	opts := indexOpts(t, srcs)
	opts.Workers = 2
	dir := filepath.Join(opts.CacheDir, indexDirName)
	if _, err := Search("build", opts); err != nil {
		t.Fatal(err)
	}
	// blocks is every block of the index's segments, and those entries name.
	blocks := func() (total, live int, bytes int64) {
		m := loadManifest(dir)
		for name, size := range m.Segs {
			s, err := openSegment(dir, name, size)
			if err != nil {
				t.Fatalf("segment %s: %v", name, err)
			}
			total += int(s.blocks)
			bytes += size

			s.unmap()
		}
		for _, e := range m.Entries {
			live += int(e.Blocks)
		}
		return total, live, bytes
	}
	_, _, fresh := blocks()
	queries := []string{"go test", "résumé naïve", res.Needle, "exec_command {"}
	for round := range 10 {
		// A third of the files, drawn anew each round, change: a new
		// modification time is a new key.
		at := time.Now().Add(time.Duration(round+1) * time.Minute)
		draw := rand.New(rand.NewPCG(uint64(round), 7))
		for _, f := range res.Files {
			if draw.IntN(3) == 0 {
				if err := os.Chtimes(f.Path, at, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		first, err := Search("zqx round", opts)
		if err != nil {
			t.Fatal(err)
		}
		if first.Stats.Decoded == 0 {
			t.Fatalf("round %d: no changed file was decoded again: %+v", round, first.Stats)
		}
		total, live, size := blocks()
		if dead := total - live; float64(dead) > compactDead*float64(total) {
			t.Errorf("round %d: %d of %d blocks dead, at most %.0f%% may be", round, dead, total, compactDead*100)
		}
		// Each segment has a trigram table of its own, a large part of a
		// small one: over these few MB the segments left by each round
		// weigh more than the dead blocks (over 300 MB the index stayed
		// within 1.25x of a fresh build; without compaction this one
		// passes 2x by the fifth round).
		if float64(size) > 2*float64(fresh) {
			t.Errorf("round %d: the index holds %d bytes, a fresh build %d", round, size, fresh)
		}
		if n := len(loadManifest(dir).Segs); n > maxSmallSegments+opts.Workers+1 {
			t.Errorf("round %d: %d segments, small ones are merged past %d", round, n, maxSmallSegments)
		}
		for _, q := range queries {
			got, err := Search(q, opts)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := countsOf(got), bruteCounts(t, srcs, q); fmt.Sprint(g) != fmt.Sprint(w) || got.Stats.Decoded != 0 {
				t.Errorf("round %d, %q: %v (%d decoded), a full decode finds %v", round, q, g, got.Stats.Decoded, w)
			}
		}
	}
}

// TestIndexKeysRelativeRootsByAbsolutePath: the same files under relative
// roots, given from two working folders, are one set of index entries, so
// the second search decodes nothing; the sessions are named by absolute
// paths either way.
func TestIndexKeysRelativeRootsByAbsolutePath(t *testing.T) {
	res := genCorpus(t, 1<<20, 9)
	cache := t.TempDir()
	base := filepath.Dir(res.Layout.Claude)
	for _, wd := range []string{base, filepath.Dir(base)} {
		t.Chdir(wd)
		lay := res.Layout
		for _, p := range []*string{&lay.Claude, &lay.Pi, &lay.Codex} {
			rel, err := filepath.Rel(wd, *p)
			if err != nil {
				t.Fatal(err)
			}
			*p = rel
		}
		got, err := Search(res.Needle, Options{Sources: sourcesFor(lay), CacheDir: cache, Index: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Sessions) == 0 || got.Stats.Files != len(res.Files) {
			t.Fatalf("from %s: %d sessions, %+v", wd, len(got.Sessions), got.Stats)
		}
		for _, s := range got.Sessions {
			if !filepath.IsAbs(s.Session.Path) {
				t.Errorf("from %s: session %q is not named by its absolute path", wd, s.Session.Path)
			}
		}
		if wd != base && (got.Stats.Decoded != 0 || got.Stats.Cached != got.Stats.Files) {
			t.Errorf("from %s: the files indexed from %s were decoded again: %+v", wd, base, got.Stats)
		}
	}
}
