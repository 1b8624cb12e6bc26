package bench

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/shared/history/search"
)

// BenchmarkIndex measures the persistent index (search.Options.Index):
// build is the first search over an empty index folder (every file decoded,
// masked, compressed and indexed); the query cases are new queries over an
// index already built: rare (the planted needle), nowhere, common (a word in
// every session) with the CLI's default limit of 20 sessions and with no
// limit, and a non-ASCII word.
func BenchmarkIndex(b *testing.B) {
	ci := benchCorpus(b)
	srcs := sources(b, ci)
	total := corpusBytes(ci)
	b.Run("build", func(b *testing.B) {
		b.SetBytes(total)
		m := startCPU(b, total)
		var dir string
		for b.Loop() {
			dir = b.TempDir()
			r, err := search.Search(ci.Needle, search.Options{Sources: srcs, CacheDir: dir, Index: true})
			if err != nil || len(r.Sessions) == 0 {
				b.Fatalf("%v %d sessions", err, len(r.Sessions))
			}
		}
		m.stop()
		b.ReportMetric(float64(dirBytes(b, dir))/float64(total)*100, "index-%")
	})
	dir := b.TempDir()
	if _, err := search.Search(ci.Needle, search.Options{Sources: srcs, CacheDir: dir, Index: true}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, query string
		limit       int
	}{
		{"rare", ci.Needle, 20},
		{"nowhere", "zzq nowhere 9981", 20},
		{"common-limit20", "the", 20},
		{"common-all", "the", 0},
		{"nonascii-limit20", "café", 20},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := startCPU(b, 0)
			for b.Loop() {
				r, err := search.Search(c.query, search.Options{Sources: srcs, CacheDir: dir, Index: true, Limit: c.limit, NoAnswerCache: true})
				if err != nil || r.Stats.Decoded != 0 {
					b.Fatalf("%v %+v", err, r.Stats)
				}
			}
			m.stop()
		})
	}
}

// dirBytes is the size of the files under dir.
func dirBytes(tb testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
