package claude

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

// FuzzClaudeDecode feeds arbitrary bytes to the decoder as a transcript and
// then lists and reads the projection. Nothing may panic; every refusal must
// be a *history.Refusal or a wrapped I/O error; every response must fit the
// budget; emitted seqs must increase.
func FuzzClaudeDecode(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "history", "claude", "*.jsonl"))
	rec, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "transcripts", "claude", "*", "*.jsonl"))
	for _, s := range append(seeds, rec...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"user","uuid":"a","parentUuid":"a","message":{"role":"user","content":"x"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), fixtureSID+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sess := history.Session{Harness: Name, ID: fixtureSID, Path: path}
		var prev int64
		var seqs []int64
		sum, err := Decoder{}.Decode(sess, history.DecodeOptions{}, func(ev history.Event) error {
			if ev.Seq <= prev {
				t.Fatalf("seq %d after %d", ev.Seq, prev)
			}
			prev = ev.Seq
			seqs = append(seqs, ev.Seq)
			return nil
		})
		if err != nil {
			var r *history.Refusal
			var pe *fs.PathError
			if !errors.As(err, &r) && !errors.As(err, &pe) {
				t.Fatalf("error %T (%v) is neither a refusal nor an I/O error", err, err)
			}
			return
		}
		if len(IncompleteHistoryNotice(sum)) > MaxNoticeBytes {
			t.Fatalf("notice over %d bytes", MaxNoticeBytes)
		}
		proj := history.Project(Decoder{}, sess, history.DecodeOptions{})
		ro := history.RenderOptions{Notice: func() string { return IncompleteHistoryNotice(proj.Summary()) }, NoticeReserve: MaxNoticeBytes}
		p, err := history.List(proj.Events, history.ListQuery{Query: "a"}, ro)
		if err != nil {
			t.Fatalf("list of a decodable transcript failed: %v", err)
		}
		if len(p.Text) > history.MaxResponseBytes {
			t.Fatalf("list response %d bytes", len(p.Text))
		}
		for _, s := range seqs {
			r, err := history.Read(proj.Events, history.ReadQuery{Seq: s}, ro)
			if err != nil {
				t.Fatalf("read #%d of a decodable transcript failed: %v", s, err)
			}
			if len(r.Text) > history.MaxResponseBytes {
				t.Fatalf("read response %d bytes", len(r.Text))
			}
		}
	})
}
