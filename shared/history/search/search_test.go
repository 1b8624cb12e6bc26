package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/testkit/corpus"
)

// sourcesFor returns the three built-in harnesses' sources over a corpus
// layout, as the service builds them.
func sourcesFor(lay corpus.Layout) []Source {
	return []Source{
		builtinSource(claude.Plugin(), lay.Claude),
		builtinSource(pi.Plugin(), lay.Pi),
		builtinSource(codex.Plugin(), lay.Codex),
	}
}

// builtinSource is a built-in harness's source over one root.
func builtinSource(b *harness.Builtin, root string) Source {
	desc, err := b.Describe(context.Background())
	if err != nil {
		panic(err) // a built-in always describes itself
	}
	return FromHarness(context.Background(), b, desc, []string{root})
}

func genCorpus(t *testing.T, bytes int64, sessions int) corpus.Result {
	t.Helper()
	res, err := corpus.Generate(t.TempDir(), corpus.Options{Seed: 3, TotalBytes: bytes, Sessions: sessions})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// bruteCounts decodes every session and counts matches without prefilter
// or cache: the answer Search must reproduce.
func bruteCounts(t *testing.T, srcs []Source, query string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, src := range srcs {
		ss, err := src.Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			n := 0
			for ev, err := range history.Project(src.Decoder, s, history.DecodeOptions{}).Events {
				if err != nil {
					t.Fatalf("%s: %v", s.Path, err)
				}
				if Matches(ev, query) {
					n++
				}
			}
			if n > 0 {
				out[s.Path] = n
			}
		}
	}
	return out
}

func countsOf(r Result) map[string]int {
	out := map[string]int{}
	for _, s := range r.Sessions {
		out[s.Session.Path] = s.Count
	}
	return out
}

func TestSearchMatchesBruteForce(t *testing.T) {
	res := genCorpus(t, 6<<20, 45)
	srcs := sourcesFor(res.Layout)
	queries := []struct {
		q          string
		wantSkips  bool // the prefilter must prove some files match nothing
		wantResult bool
	}{
		{res.Needle, true, true},
		{strings.ToUpper(res.Needle), true, true}, // case-insensitive
		{"undefined: stream", false, true},        // across a separator
		{"PASS", false, true},                     // inside ANSI colour codes
		{"résumé naïve", false, true},             // non-ASCII: decoded everywhere
		{"docs__search", false, true},             // Codex MCP name, namespace joined by "__"
		{"exec_command {", false, true},           // tool name and input joined by a space
		{"no such text anywhere 8472", true, false},
	}
	for _, tc := range queries {
		t.Run(tc.q, func(t *testing.T) {
			want := bruteCounts(t, srcs, tc.q)
			got, err := Search(tc.q, Options{Sources: srcs})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Errors) > 0 {
				t.Fatalf("errors: %v", got.Errors)
			}
			if g := countsOf(got); fmt.Sprint(g) != fmt.Sprint(want) {
				t.Errorf("counts differ from a full decode:\n got  %v\n want %v", g, want)
			}
			if tc.wantResult != (len(want) > 0) {
				t.Errorf("brute force found %d sessions, want results: %v", len(want), tc.wantResult)
			}
			if tc.wantSkips && got.Stats.Skipped == 0 {
				t.Errorf("the prefilter skipped nothing: %+v", got.Stats)
			}
			if got.Stats.Files != len(res.Files) {
				t.Errorf("searched %d files, the corpus has %d", got.Stats.Files, len(res.Files))
			}
		})
	}
}

// TestPrefilterNeverHidesAMatch draws queries from the text of real
// recordings and generated sessions and checks that the raw scan keeps
// every file that holds one: the prefilter may let through, never hide.
func TestPrefilterNeverHidesAMatch(t *testing.T) {
	res := genCorpus(t, 2<<20, 15)
	type file struct {
		src  Source
		sess history.Session
	}
	var files []file
	srcs := sourcesFor(res.Layout)
	for _, src := range srcs {
		ss, _ := src.Files()
		for _, s := range ss {
			files = append(files, file{src, s})
		}
	}
	// The real recordings of every harness, each case its own root (a
	// fork's parent is beside it).
	// Absolute, as the sources make every root and so every listed path.
	real, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "transcripts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*harness.Builtin{claude.Plugin(), pi.Plugin(), codex.Plugin()} {
		cases, _ := filepath.Glob(filepath.Join(real, b.Name, "*"))
		n := 0
		for _, dir := range cases {
			if strings.Contains(dir, "errors") {
				continue // recordings of refusals decode to an error
			}
			// A Claude root holds project folders: the case's parent is
			// the root, the case its one project.
			root := dir
			if b.Name == claude.Name {
				root = filepath.Dir(dir)
			}
			src := builtinSource(b, root)
			ss, _ := src.Files()
			for _, s := range ss {
				if filepath.Dir(s.Path) == dir {
					files = append(files, file{src, s})
					n++
				}
			}
		}
		if n == 0 {
			t.Fatalf("no %s recordings under %s", b.Name, real)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, f := range files {
		var texts []string
		for ev, err := range history.Project(f.src.Decoder, f.sess, history.DecodeOptions{}).Events {
			if err != nil {
				break
			}
			if !history.Listable(ev) {
				continue
			}
			s := ev.Text
			if ev.Kind == history.KindToolUse {
				s = ev.ToolName + " " + ev.ToolInput
			}
			texts = append(texts, s)
		}
		raw, err := os.ReadFile(f.sess.Path)
		if err != nil {
			t.Fatal(err)
		}
		inherits := f.src.Inherits != nil && len(f.src.Inherits(firstLineOf(raw))) > 0
		for k := 0; k < 40 && len(texts) > 0; k++ {
			s := texts[rng.IntN(len(texts))]
			if len(s) < 2 {
				continue
			}
			i := rng.IntN(len(s) - 1)
			n := 2 + rng.IntN(24)
			q := s[i:min(len(s), i+n)]
			if strings.ContainsAny(q, "\r\n") {
				continue
			}
			p := newPlan(q, f.src.SynthesizedWords)
			if !p.ok || inherits {
				continue
			}
			sc := newScanner(p)
			sc.feed(raw, 0)
			if !sc.candidate() {
				t.Errorf("%s: query %q matches a decoded event but the raw scan ruled the file out", f.sess.Path, q)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("only %d queries checked", checked)
	}
}

func firstLineOf(b []byte) []byte {
	if i := strings.IndexByte(string(b[:min(len(b), 1<<16)]), '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// TestCacheNeverStale appends an event to a transcript between two queries
// and sees it, rewrites a file keeping its size and modification time and
// sees that too, and serves unchanged files from the cache.
func TestCacheNeverStale(t *testing.T) {
	res := genCorpus(t, 2<<20, 12)
	srcs := sourcesFor(res.Layout)
	cache := t.TempDir()
	opts := Options{Sources: srcs, CacheDir: cache}
	first, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Stats.Cached != 0 || len(first.Sessions) == 0 {
		t.Fatalf("cold search: %+v, %d sessions", first.Stats, len(first.Sessions))
	}
	warm, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if warm.Stats.Cached != warm.Stats.Files || fmt.Sprint(countsOf(warm)) != fmt.Sprint(countsOf(first)) {
		t.Fatalf("warm search not served from the cache or different: %+v %v vs %v", warm.Stats, countsOf(warm), countsOf(first))
	}

	// Append a Pi user message naming the needle to a session without it.
	var target corpus.File
	for _, f := range res.ByHarness(corpus.Pi) {
		if f.Needle == 0 && f.ForkOf == "" {
			target = f
			break
		}
	}
	if target.Path == "" {
		t.Fatal("no Pi session without the needle")
	}
	lastID := lastPiID(t, target.Path)
	line := fmt.Sprintf(`{"type":"message","id":"feedf00d","parentId":"%s","timestamp":"2026-12-02T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"late mention of %s"}],"timestamp":1796208043000}}`+"\n", lastID, res.Needle)
	appendFile(t, target.Path, line)
	after, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := countsOf(after)[target.Path]; got != 1 {
		t.Fatalf("after appending a matching event the session has %d matches, want 1 (stats %+v)", got, after.Stats)
	}
	if after.Stats.Cached != after.Stats.Files-1 {
		t.Errorf("only the changed file should be searched again: %+v", after.Stats)
	}

	// Rewrite the tail in place: same size, same mtime, different bytes.
	fi, err := os.Stat(target.Path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(target.Path)
	if err != nil {
		t.Fatal(err)
	}
	b2 := []byte(strings.Replace(string(b), "late mention of "+res.Needle, "late mention of "+strings.Repeat("x", len(res.Needle)), 1))
	if len(b2) != len(b) {
		t.Fatal("rewrite changed the size")
	}
	if err := os.WriteFile(target.Path, b2, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(target.Path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	rewritten, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := countsOf(rewritten)[target.Path]; got != 0 {
		t.Errorf("after rewriting the tail (same size and mtime) the cache still says %d matches", got)
	}

	// A removed file disappears from the answers.
	var gone string
	for p := range countsOf(rewritten) {
		gone = p
		break
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	final, err := Search(res.Needle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := countsOf(final)[gone]; ok {
		t.Errorf("a removed file is still answered")
	}
}

// TestCacheForkFollowsParent checks that a Codex fork's answer, which
// includes rows inherited from its parent's file, is recomputed when the
// parent changes even though the fork's own file did not.
func TestCacheForkFollowsParent(t *testing.T) {
	res, err := corpus.Generate(t.TempDir(), corpus.Options{Seed: 11, TotalBytes: 4 << 20, Sessions: 60, Harnesses: []string{corpus.Codex}})
	if err != nil {
		t.Fatal(err)
	}
	var fork corpus.File
	for _, f := range res.Files {
		if f.ForkOf != "" {
			fork = f
			break
		}
	}
	if fork.Path == "" {
		t.Fatal("the corpus has no Codex fork")
	}
	var parent string
	for _, f := range res.Files {
		if f.ID == fork.ForkOf {
			parent = f.Path
		}
	}
	srcs := sourcesFor(res.Layout)[2:]
	opts := Options{Sources: srcs, CacheDir: t.TempDir()}
	const q = "zz-inherited-marker"
	if r, err := Search(q, opts); err != nil || len(r.Sessions) != 0 {
		t.Fatalf("before: %v %v", r.Sessions, err)
	}
	// Put the marker into the parent's first user message, inside the
	// prefix the fork inherits (same length, so offsets stay valid).
	b, err := os.ReadFile(parent)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), `"role":"user","content":[{"type":"input_text","text":"`)
	if i < 0 {
		t.Fatal("no user message in the parent")
	}
	at := i + len(`"role":"user","content":[{"type":"input_text","text":"`)
	copy(b[at:], q)
	if err := os.WriteFile(parent, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Search(q, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := countsOf(r)
	if c[parent] != 1 || c[fork.Path] != 1 {
		t.Errorf("after changing the parent: parent %d, fork %d matches; want 1 and 1 (%v) %+v", c[parent], c[fork.Path], r.Errors, r.Stats)
	}
}

func TestSearchRefusesBadQueries(t *testing.T) {
	for _, q := range []string{"", "two\nlines"} {
		if _, err := Search(q, Options{}); err == nil {
			t.Errorf("Search(%q) succeeded", q)
		}
	}
	if _, err := Search("x", Options{PerSession: history.MaxListLimit + 1}); err == nil {
		t.Error("an oversized PerSession was accepted")
	}
}

func TestScannerFoldsCase(t *testing.T) {
	cases := []struct {
		hay, q string
		want   bool
	}{
		{"hello World", "world", true},
		{"WORLDworld", "WoRlD", true},
		{"abc", "abcd", false},
		{"xxNEEDLExx-1", "needle-1", true},
		{"needl", "needle", false},
		{`say \u0041bc`, "zzz", true}, // an escaped letter: cannot rule out
		{"ÉTÉ", "ete", false},
	}
	for _, c := range cases {
		sc := newScanner(newPlan(c.q, nil))
		sc.feed([]byte(c.hay), 0)
		if got := sc.candidate(); got != c.want {
			t.Errorf("scan %q for %q: candidate %v, want %v", c.hay, c.q, got, c.want)
		}
	}
}

func TestPlan(t *testing.T) {
	words := []string{"ran", "request", "failed"}
	cases := []struct {
		q     string
		words []string
		atoms []string
		ok    bool
	}{
		{"corpus-needle-1", nil, []string{"corpus", "needle", "1"}, true},
		{"Request failed", words, nil, false},                        // only synthesized words
		{"Request failed", nil, []string{"request", "failed"}, true}, // a harness that writes neither
		{"failed to ran", words, []string{"to"}, true},               // "ran" and "failed" prove nothing
		{"é", nil, nil, false},
		{"--", nil, nil, false},
		{"go test ./...", nil, []string{"test", "go"}, true},
		{"abc abcd", nil, []string{"abcd"}, true},
	}
	for _, c := range cases {
		p := newPlan(c.q, c.words)
		if p.ok != c.ok || fmt.Sprint(p.atoms) != fmt.Sprint(c.atoms) {
			t.Errorf("newPlan(%q) = %v %v, want %v %v", c.q, p.atoms, p.ok, c.atoms, c.ok)
		}
	}
	if !hasAlnumEscape([]byte(`x\u0041y`)) || hasAlnumEscape([]byte(`x\u001by`)) {
		t.Error("hasAlnumEscape misjudges \\u0041 or \\u001b")
	}
}

func lastPiID(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	const k = `"id":"`
	i := strings.Index(last, k)
	if i < 0 {
		t.Fatalf("no id in %s", last)
	}
	rest := last[i+len(k):]
	return rest[:strings.IndexByte(rest, '"')]
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	// Make sure the modification time moves even on a coarse clock; the
	// tail hash would catch it anyway.
	now := time.Now().Add(time.Second)
	os.Chtimes(path, now, now)
}
