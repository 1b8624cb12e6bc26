package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
)

// fakeHarness keeps sessions as <root>/<id>.txt, one event per line. A
// first line "from <id>" makes the file a fork: it shows that session's
// events before its own. Its decoder writes render(line) as the text, so a
// test can make decoded text that is not in the file's bytes.
type fakeHarness struct {
	caps   []string
	words  []string
	render func(string) string
	// extra is listed besides the files under the roots.
	extra []string
}

// inheritingFake is fakeHarness with an Inheritor, as a harness called
// in-process has one.
type inheritingFake struct{ *fakeHarness }

// Inherits implements contract.Inheritor.
func (inheritingFake) Inherits(first []byte) []string {
	if id, ok := strings.CutPrefix(string(first), "from "); ok {
		return []string{id}
	}
	return nil
}

func (f *fakeHarness) Describe(context.Context) (contract.Description, error) {
	return contract.Description{Name: "fake", Capabilities: append([]string{contract.CapSessions, contract.CapDecode}, f.caps...), SynthesizedWords: f.words}, nil
}

func (f *fakeHarness) ListSessions(_ context.Context, flt contract.SessionFilter, fn func(contract.Session) error) error {
	for _, root := range flt.Roots {
		paths, _ := filepath.Glob(filepath.Join(root, "*.txt"))
		for _, p := range append(paths, f.extra...) {
			if err := fn(contract.Session{Harness: "fake", ID: strings.TrimSuffix(filepath.Base(p), ".txt"), Path: p}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeHarness) Decode(_ context.Context, req contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	var lines func(path string, depth int) ([]string, error)
	lines = func(path string, depth int) ([]string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ls := strings.Split(strings.TrimSpace(string(b)), "\n")
		if id, ok := strings.CutPrefix(ls[0], "from "); ok && depth < 8 {
			parent, err := lines(filepath.Join(filepath.Dir(path), id+".txt"), depth+1)
			if errors.Is(err, fs.ErrNotExist) {
				return ls[1:], nil // a missing parent is a gap, as Codex's
			}
			if err != nil {
				return nil, err
			}
			return append(parent, ls[1:]...), nil
		}
		return ls, nil
	}
	ls, err := lines(req.Session.Path, 0)
	if err != nil {
		return contract.Summary{}, err
	}
	for i, l := range ls {
		ev := contract.Event{Seq: int64(i + 1), Window: "fake:" + req.Session.ID + ":1", Kind: contract.KindMessage, Role: contract.RoleUser, Text: f.render(l), Line: i + 1}
		if err := emit(ev); err != nil {
			return contract.Summary{}, err
		}
	}
	return contract.Summary{Windows: []string{"fake:" + req.Session.ID + ":1"}}, nil
}

func (f *fakeHarness) Thresholds(context.Context, contract.ThresholdInput) (contract.NativePoint, error) {
	return contract.NativePoint{}, nil
}

func (f *fakeHarness) BootBinding(context.Context, string, int) (contract.Binding, error) {
	return contract.Binding{}, nil
}

// fakeSource writes files (id to content) under a new root and returns h's
// source over it.
func fakeSource(t *testing.T, h contract.Harness, files map[string]string) (Source, string) {
	t.Helper()
	root := t.TempDir()
	for id, content := range files {
		if err := os.WriteFile(filepath.Join(root, id+".txt"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	desc, err := h.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return FromHarness(context.Background(), h, desc, []string{root}), root
}

func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// counts maps each session id with matches to its count.
func idCounts(t *testing.T, r Result) map[string]int {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	out := map[string]int{}
	for _, s := range r.Sessions {
		out[s.Session.ID] = s.Count
	}
	return out
}

// TestRawSearchOnlyWhereTheHarnessSaysSo: a harness whose decoder writes
// text that is not in its files' bytes does not list raw_search, and its
// files are decoded, never ruled out by their bytes. The same harness
// claiming raw_search has the match ruled out, which is what makes the
// capability matter.
func TestRawSearchOnlyWhereTheHarnessSaysSo(t *testing.T) {
	files := map[string]string{"a": rot13("the hidden treasure"), "b": rot13("nothing here")}
	tests := []struct {
		caps             []string
		want             string
		skipped, decoded int
	}{
		{nil, "map[a:1]", 0, 2},
		{[]string{contract.CapRawSearch}, "map[]", 2, 0},
	}
	for _, tc := range tests {
		src, _ := fakeSource(t, &fakeHarness{caps: tc.caps, render: rot13}, files)
		r, err := Search("Treasure", Options{Sources: []Source{src}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(idCounts(t, r)); got != tc.want || r.Stats.Skipped != tc.skipped || r.Stats.Decoded != tc.decoded {
			t.Errorf("caps %v: %s, %+v; want %s, %d skipped, %d decoded", tc.caps, got, r.Stats, tc.want, tc.skipped, tc.decoded)
		}
	}
}

// TestSynthesizedWordsAreHonoured: a word the decoder writes itself is not
// required in a file's bytes, alone or beside words that are.
func TestSynthesizedWordsAreHonoured(t *testing.T) {
	files := map[string]string{"a": "ls -la", "b": "go test"}
	ran := func(l string) string { return "Ran `" + l + "`" }
	tests := []struct {
		words []string
		query string
		want  string
	}{
		{[]string{"ran"}, "ran", "map[a:1 b:1]"},
		{[]string{"ran"}, "RAN `ls", "map[a:1]"},
		{[]string{"Ran"}, "ran `go", "map[b:1]"}, // words are folded
		// Without the word the files lack it: ruled out from their bytes.
		{nil, "ran", "map[]"},
		{nil, "RAN `ls", "map[]"},
	}
	for _, tc := range tests {
		src, _ := fakeSource(t, &fakeHarness{caps: []string{contract.CapRawSearch}, words: tc.words, render: ran}, files)
		r, err := Search(tc.query, Options{Sources: []Source{src}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(idCounts(t, r)); got != tc.want {
			t.Errorf("words %v, query %q: %s, want %s (%+v)", tc.words, tc.query, got, tc.want, r.Stats)
		}
	}
}

// TestForksWithoutInheritor: a harness with forks reached without an
// Inheritor (through a plugin process) has its forks found by what they
// inherit, on every search, even when the parent changes under a warm
// cache; with an Inheritor the parent's bytes are scanned with the fork's
// and the cache follows the parent. Without forks the fork would be ruled
// out, which is what makes the capability matter.
func TestForksWithoutInheritor(t *testing.T) {
	files := map[string]string{"parent": "the zqxmarker line\nmore", "child": "from parent\nchild words", "other": "unrelated"}
	same := func(s string) string { return s }
	tests := []struct {
		name       string
		h          contract.Harness
		want       string
		wantCached int // on the second search, of 3 files
	}{
		{"no inheritor", &fakeHarness{caps: []string{contract.CapRawSearch, contract.CapForks}, render: same}, "map[child:1 parent:1]", 0},
		{"inheritor", inheritingFake{&fakeHarness{caps: []string{contract.CapRawSearch, contract.CapForks}, render: same}}, "map[child:1 parent:1]", 3},
		{"forks not listed", &fakeHarness{caps: []string{contract.CapRawSearch}, render: same}, "map[parent:1]", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, root := fakeSource(t, tc.h, files)
			opts := Options{Sources: []Source{src}, CacheDir: t.TempDir()}
			for i := 0; i < 2; i++ {
				r, err := Search("ZQXMARKER", opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(idCounts(t, r)); got != tc.want {
					t.Errorf("search %d: %s, want %s (%+v)", i+1, got, tc.want, r.Stats)
				}
				if i == 1 && r.Stats.Cached != tc.wantCached {
					t.Errorf("warm search: %d cached, want %d (%+v)", r.Stats.Cached, tc.wantCached, r.Stats)
				}
			}
			// The parent loses the marker (same size, same time): no
			// answer about it, or about the fork, may stay.
			p := filepath.Join(root, "parent.txt")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(files["parent"], "zqxmarker", "abcdefghi", 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, fi.ModTime(), fi.ModTime().Add(time.Nanosecond))
			r, err := Search("zqxmarker", opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(idCounts(t, r)); got != "map[]" {
				t.Errorf("after the parent changed: %s, want none", got)
			}
		})
	}
}

// TestFromHarnessKeepsToTheRoots: a file a harness lists outside its roots
// is not opened, and the search says so.
func TestFromHarnessKeepsToTheRoots(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(outside, []byte("zqxmarker"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &fakeHarness{caps: []string{contract.CapRawSearch}, render: func(s string) string { return s }}
	src, root := fakeSource(t, h, map[string]string{"a": "zqxmarker"})
	h.extra = []string{outside, filepath.Join(root, "..", filepath.Base(filepath.Dir(outside)), "x.txt")}
	r, err := Search("zqxmarker", Options{Sources: []Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Files != 1 || len(r.Sessions) != 1 || r.Sessions[0].Session.ID != "a" {
		t.Errorf("searched %d files, found %+v; want only a", r.Stats.Files, r.Sessions)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "2 listed file(s) outside the roots") {
		t.Errorf("errors %v, want one naming the 2 files outside", r.Errors)
	}
	if got := rootSet([]string{"/r/", "/s"}); !got.holds("/r") || !got.holds("/s/a") || got.holds("/sa") || got.holds("/r/../etc") || !got.holds("/r/a..b") {
		t.Errorf("rootSet %v misjudges a path", got)
	}
}

var _ history.Decoder = harnessDecoder{}

// callbacksOnly hides every method of a harness but the contract's, as a
// harness behind a plugin process looks.
type callbacksOnly struct{ contract.Harness }

// TestListingPathsAgree: a built-in's listing handed over as one slice
// (fileLister) is what its ListSessions with FilesOnly sends one session
// at a time.
func TestListingPathsAgree(t *testing.T) {
	res := genCorpus(t, 1<<20, 12)
	lay := res.Layout
	for _, c := range []struct {
		b    *harness.Builtin
		root string
	}{{claude.Plugin(), lay.Claude}, {pi.Plugin(), lay.Pi}, {codex.Plugin(), lay.Codex}} {
		desc, err := c.b.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fast, err := FromHarness(context.Background(), c.b, desc, []string{c.root}).Files()
		if err != nil {
			t.Fatal(err)
		}
		slow, err := FromHarness(context.Background(), callbacksOnly{c.b}, desc, []string{c.root}).Files()
		if err != nil {
			t.Fatal(err)
		}
		if len(fast) == 0 || fmt.Sprint(fast) != fmt.Sprint(slow) {
			t.Errorf("%s: one slice %v\ncallbacks %v", c.b.Name, fast, slow)
		}
	}
}
