package bench

import (
	"context"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

// rootedPlugin is a built-in harness and its root in the corpus.
type rootedPlugin struct {
	b    *harness.Builtin
	root string
}

// plugins are the built-in harnesses over the corpus's roots, called
// in-process as notesoup search calls them.
func plugins(ci corpusInfo) []rootedPlugin {
	l := ci.Layout
	return []rootedPlugin{{claude.Plugin(), l.Claude}, {pi.Plugin(), l.Pi}, {codex.Plugin(), l.Codex}}
}

// sources are the search's sources of the built-in harnesses, built from
// their descriptions as the service builds them.
func sources(tb testing.TB, ci corpusInfo) []search.Source {
	var out []search.Source
	for _, p := range plugins(ci) {
		desc, err := p.b.Describe(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, search.FromHarness(context.Background(), p.b, desc, []string{p.root}))
	}
	return out
}

func corpusBytes(ci corpusInfo) int64 {
	var n int64
	for _, fs := range ci.Files {
		for _, f := range fs {
			n += f.Bytes
		}
	}
	return n
}

// BenchmarkSearch runs the needle query over the whole corpus: cold (an
// empty answer cache each time: every file scanned, candidates decoded) and
// warm (every file unchanged: stat and tail hash only).
func BenchmarkSearch(b *testing.B) {
	ci := benchCorpus(b)
	srcs := sources(b, ci)
	total := corpusBytes(ci)
	b.Run("cold", func(b *testing.B) {
		b.SetBytes(total)
		m := startCPU(b, total)
		for b.Loop() {
			r, err := search.Search(ci.Needle, search.Options{Sources: srcs, CacheDir: b.TempDir()})
			if err != nil || len(r.Sessions) == 0 {
				b.Fatalf("%v %d sessions", err, len(r.Sessions))
			}
		}
		m.stop()
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		if _, err := search.Search(ci.Needle, search.Options{Sources: srcs, CacheDir: dir}); err != nil {
			b.Fatal(err)
		}
		m := startCPU(b, 0)
		for b.Loop() {
			r, err := search.Search(ci.Needle, search.Options{Sources: srcs, CacheDir: dir})
			if err != nil || r.Stats.Cached != r.Stats.Files {
				b.Fatalf("%v %+v", err, r.Stats)
			}
		}
		m.stop()
	})
}

// BenchmarkListSessions lists every session of the three harnesses with
// their own listing (head and tail of each file read and parsed; no
// description cache).
func BenchmarkListSessions(b *testing.B) {
	ci := benchCorpus(b)
	ps := plugins(ci)
	m := startCPU(b, 0)
	for b.Loop() {
		n := 0
		for _, p := range ps {
			err := p.b.ListSessions(context.Background(), contract.SessionFilter{Roots: []string{p.root}}, func(history.Session) error { n++; return nil })
			if err != nil {
				b.Fatal(err)
			}
		}
		if n == 0 {
			b.Fatal("no sessions listed")
		}
	}
	m.stop()
}
