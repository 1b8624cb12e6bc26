package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkBuilder adds 32 KiB documents of word-like text (the shape of
// transcript text: a vocabulary of a few thousand words, identifiers,
// numbers) to one builder, as a segment of the search index does.
func BenchmarkBuilder(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 4000)
	for i := range words {
		n := 2 + rng.IntN(9)
		var sb strings.Builder
		for range n {
			sb.WriteByte(byte('a' + rng.IntN(26)))
		}
		words[i] = sb.String()
	}
	docs := make([][]byte, 64)
	for i := range docs {
		var sb strings.Builder
		for sb.Len() < 32<<10 {
			w := words[rng.IntN(len(words))]
			if rng.IntN(10) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			if rng.IntN(20) == 0 {
				w = fmt.Sprintf("%s_%d", w, rng.IntN(100000))
			}
			sb.WriteString(w)
			sb.WriteByte(' ')
		}
		docs[i] = []byte(sb.String())
	}
	b.SetBytes(int64(len(docs) * (32 << 10)))
	for b.Loop() {
		bl := NewBuilder()
		for _, d := range docs {
			bl.AddBytes(d)
		}
		_ = bl.Append(nil)
	}
}
