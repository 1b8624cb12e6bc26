package bench

import (
	"testing"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

func sources(ci corpusInfo) []search.Source {
	l := ci.Layout
	return []search.Source{
		{Harness: claude.Name, Files: func() ([]history.Session, error) { return search.ClaudeFiles([]string{l.Claude}) }, Decoder: claude.Decoder{}},
		{Harness: pi.Name, Files: func() ([]history.Session, error) { return search.PiFiles([]string{l.Pi}) }, Decoder: pi.Decoder{}},
		{Harness: codex.Name, Files: func() ([]history.Session, error) { return search.CodexFiles([]string{l.Codex}) }, Decoder: codex.Decoder{Roots: []string{l.Codex}}},
	}
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
	srcs := sources(ci)
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
// their own listing (head and tail of each file read and parsed).
func BenchmarkListSessions(b *testing.B) {
	ci := benchCorpus(b)
	l := ci.Layout
	m := startCPU(b, 0)
	for b.Loop() {
		n := 0
		cs, err := claude.ListSessions(l.Claude)
		n += len(cs)
		ps, err2 := pi.ListSessions([]string{l.Pi})
		n += len(ps)
		xs, err3 := codex.ListSessions([]string{l.Codex})
		n += len(xs)
		if err != nil || err2 != nil || err3 != nil || n == 0 {
			b.Fatal(err, err2, err3, n)
		}
	}
	m.stop()
}
