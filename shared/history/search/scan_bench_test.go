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

func BenchmarkScanParts(b *testing.B) {
	data := benchData(b)
	fold := make([]byte, chunkBytes)
	b.Run("fold", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for off := 0; off < len(data); off += chunkBytes {
				end := min(len(data), off+chunkBytes)
				foldLower(fold[:end-off], data[off:end])
			}
		}
	})
	b.Run("index", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			bytes.Index(data, []byte("corpus"))
		}
	})
	b.Run("escapes", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			hasAlnumEscape(data)
		}
	})
	b.Run("scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sc := newScanner(newPlan("corpus-needle-1"))
			for off := 0; off < len(data); off += chunkBytes {
				sc.feedRaw(data[off:min(len(data), off+chunkBytes)], &fold)
			}
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
