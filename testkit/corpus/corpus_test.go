package corpus

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
)

// TestGenerateDecodes checks that every generated session decodes without a
// refusal in its harness's decoder, with the shapes the corpus promises:
// paired tool calls, compactions advancing windows, forks, and exactly the
// planted needles on the active branches.
func TestGenerateDecodes(t *testing.T) {
	dir := t.TempDir()
	res, err := Generate(dir, Options{Seed: 7, TotalBytes: 12 << 20, Sessions: 90})
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes < 11<<20 || res.Bytes > 16<<20 {
		t.Errorf("corpus is %d bytes, asked for about %d", res.Bytes, 12<<20)
	}
	decoders := map[string]history.Decoder{
		Claude: claude.Decoder{},
		Pi:     pi.Decoder{},
		Codex:  codex.Decoder{Roots: []string{res.Layout.Codex}},
	}
	type tally struct{ sessions, forks, multiWindow, paired, needles, wantNeedles int }
	got := map[string]*tally{}
	for _, f := range res.Files {
		tl := got[f.Harness]
		if tl == nil {
			tl = &tally{}
			got[f.Harness] = tl
		}
		tl.sessions++
		if f.ForkOf != "" {
			tl.forks++
		}
		tl.wantNeedles += f.Needle
		sess := history.Session{Harness: f.Harness, ID: f.ID, Path: f.Path}
		sum, err := decoders[f.Harness].Decode(sess, history.DecodeOptions{}, func(ev history.Event) error {
			if ev.Kind == history.KindToolUse && ev.PairSeq > 0 {
				tl.paired++
			}
			if strings.Contains(ev.Text, res.Needle) {
				tl.needles++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s session %s (%s): %v", f.Harness, f.ID, f.Path, err)
		}
		for _, n := range sum.Notes {
			if n.Kind == history.NoteRefusal || n.Kind == history.NoteGap {
				t.Errorf("%s session %s: unexpected note %s: %s", f.Harness, f.ID, n.Kind, n.Message)
			}
		}
		if len(sum.Windows) > 1 {
			tl.multiWindow++
		}
	}
	for _, h := range []string{Claude, Pi, Codex} {
		tl := got[h]
		if tl == nil || tl.sessions < 25 {
			t.Fatalf("%s: %+v sessions, want about 30", h, tl)
		}
		if tl.paired == 0 || tl.multiWindow == 0 {
			t.Errorf("%s: no paired calls or no compacted session: %+v", h, *tl)
		}
		if tl.wantNeedles == 0 || tl.needles != tl.wantNeedles {
			t.Errorf("%s: %d needle events decoded, the generator planted %d", h, tl.needles, tl.wantNeedles)
		}
	}
	forks := got[Claude].forks + got[Pi].forks + got[Codex].forks
	if forks == 0 {
		t.Errorf("no forks in %d sessions", len(res.Files))
	}
}

// TestGenerateDeterministic checks that a seed always gives the same bytes
// and another seed different ones.
func TestGenerateDeterministic(t *testing.T) {
	read := func(seed uint64) []byte {
		dir := t.TempDir()
		res, err := Generate(dir, Options{Seed: seed, TotalBytes: 1 << 20, Sessions: 12})
		if err != nil {
			t.Fatal(err)
		}
		var all []byte
		for _, f := range res.Files {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(f.Path, dir)
			all = append(append(all, rel...), b...)
		}
		return all
	}
	a, b, c := read(1), read(1), read(2)
	if !bytes.Equal(a, b) {
		t.Error("the same seed produced different corpora")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds produced the same corpus")
	}
}

func TestGenerateRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{TotalBytes: 0}, {TotalBytes: 1 << 20, Harnesses: []string{"vim"}}} {
		if _, err := Generate(t.TempDir(), o); err == nil {
			t.Errorf("Generate(%+v) succeeded", o)
		}
	}
}
