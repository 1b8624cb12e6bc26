package bench

import (
	"testing"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/testkit/corpus"
)

// decoderFor returns the in-process decoder of a harness over the corpus.
func decoderFor(ci corpusInfo, h string) history.Decoder {
	switch h {
	case corpus.Claude:
		return claude.Decoder{}
	case corpus.Pi:
		return pi.Decoder{}
	}
	return codex.Decoder{Roots: []string{ci.Layout.Codex}}
}

// BenchmarkDecode decodes every session of one harness per iteration; MB/s
// is over the files' bytes (a fork's inherited parent bytes not counted).
func BenchmarkDecode(b *testing.B) {
	ci := benchCorpus(b)
	for _, h := range []string{corpus.Claude, corpus.Pi, corpus.Codex} {
		b.Run(h, func(b *testing.B) {
			d := decoderFor(ci, h)
			var total int64
			for _, f := range ci.Files[h] {
				total += f.Bytes
			}
			b.SetBytes(total)
			events := 0
			m := startCPU(b, total)
			for b.Loop() {
				for _, f := range ci.Files[h] {
					_, err := d.Decode(history.Session{Harness: h, ID: f.ID, Path: f.Path}, history.DecodeOptions{},
						func(history.Event) error { events++; return nil })
					if err != nil {
						b.Fatalf("%s: %v", f.Path, err)
					}
				}
			}
			m.stop()
			if events == 0 {
				b.Fatal("no events decoded")
			}
		})
	}
}
