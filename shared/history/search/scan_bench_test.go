package search

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/testkit/corpus"
)

// benchData is a transcript-like buffer: the first generated Pi session of
// a small corpus, repeated to 32 MiB.
func benchData(b *testing.B) []byte {
	b.Helper()
	res := genCorpusB(b)
	paths, _ := filepath.Glob(filepath.Join(res, "*", "*.jsonl"))
	var one []byte
	for _, p := range paths {
		if d, err := os.ReadFile(p); err == nil && len(d) > len(one) {
			one = d
		}
	}
	return bytes.Repeat(one, (32<<20)/len(one)+1)
}

// BenchmarkScanParts measures the raw scan's parts over transcript bytes in
// chunks, as a worker sees them: the copy a read makes, the search for one
// atom that never occurs (memchr on its rarest byte in both cases, the
// portable way, beside the vector kernel), the escape check, and the whole
// scanner.
func BenchmarkScanParts(b *testing.B) {
	data := benchData(b)
	buf := make([]byte, chunkBytes)
	chunks := func(f func(c []byte, pos int64)) {
		for off := 0; off < len(data); off += chunkBytes {
			f(buf[:copy(buf, data[off:min(len(data), off+chunkBytes)])], int64(off))
		}
	}
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			chunks(func([]byte, int64) {})
		}
	})
	const absent = "corpuz" // not in the data: searched to the end
	p := newPlan(absent, nil)
	b.Run("memchr", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		q := pairQuery{c1: 'p', m1: 0x20, c2: 'p', m2: 0x20}
		for b.Loop() {
			chunks(func(c []byte, _ int64) {
				for from := 0; ; {
					i := indexPairGeneric(c[from:], &q)
					if i < 0 {
						break
					}
					from += i + 1
				}
			})
		}
	})
	b.Run("pair", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			chunks(func(c []byte, _ int64) {
				if indexAtom(c, absent, &p.probes[0]) >= 0 {
					b.Fatal("found the absent atom")
				}
			})
		}
	})
	b.Run("escapes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			chunks(func(c []byte, _ int64) { hasAlnumEscape(c) })
		}
	})
	b.Run("scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sc := newScanner(newPlan("corpus-needle-1", nil))
			chunks(func(c []byte, pos int64) { sc.feed(c, pos) })
		}
	})
}

func genCorpusB(b *testing.B) string {
	dir := b.TempDir()
	if _, err := corpus.Generate(dir, corpus.Options{Seed: 5, TotalBytes: 4 << 20, Sessions: 6, Harnesses: []string{corpus.Pi}}); err != nil {
		b.Fatal(err)
	}
	return corpus.NewLayout(dir).Pi
}
