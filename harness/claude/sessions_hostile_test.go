package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/harness/harnesstest"
)

const recordedDir = "../../testdata/transcripts/claude"

func readRecorded(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recordedDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestListingSkipsWhatItCannotRead: one transcript or project folder that
// cannot be read hides only itself, never the other sessions (the listing
// answers, without an error). Unreadable is made two ways: chmod 000 (which
// does not deny root) and a path too long to open (which denies everyone).
func TestListingSkipsWhatItCannotRead(t *testing.T) {
	good := readRecorded(t, "tools/0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
	const goodID = "0b5e8a61-7c1d-4f3e-9a2b-000000000001"
	tests := []struct {
		name     string
		needUser bool // chmod denies only a user without CAP_DAC_OVERRIDE
		plant    func(t *testing.T, root string)
	}{
		{name: "transcript whose path is too long to open", plant: func(t *testing.T, root string) {
			harnesstest.MakeUnopenable(t, filepath.Join(root, "-p"), harnesstest.UnopenableName(".jsonl"), good)
		}},
		{name: "project folder whose path is too long to open", plant: func(t *testing.T, root string) {
			dir := harnesstest.MakeUnopenable(t, root, harnesstest.UnopenableName(""), nil)
			_ = dir // its transcript cannot be written by path either; the folder alone must not fail the listing
		}},
		{name: "transcript chmod 000", needUser: true, plant: func(t *testing.T, root string) {
			p := filepath.Join(root, "-p", "33333333-3333-4333-8333-333333333333.jsonl")
			writeFile(t, p, good, 0o000)
		}},
		{name: "project folder chmod 000", needUser: true, plant: func(t *testing.T, root string) {
			dir := filepath.Join(root, "-sudo")
			writeFile(t, filepath.Join(dir, "33333333-3333-4333-8333-333333333333.jsonl"), good, 0o600)
			if err := os.Chmod(dir, 0o000); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needUser && os.Geteuid() == 0 {
				t.Skip("root reads a chmod 000 file; the too-long-path cases make the same failure for root")
			}
			root := harnesstest.LongRoot(t)
			writeFile(t, filepath.Join(root, "-p", goodID+".jsonl"), good, 0o600)
			tc.plant(t, root)
			ss, err := listSessions(root)
			if err != nil {
				t.Fatalf("one unreadable entry failed the whole listing: %v", err)
			}
			if len(ss) != 1 || ss[0].ID != goodID {
				t.Fatalf("listed %+v, want only %s", ss, goodID)
			}
		})
	}
}

// TestDescribeRefusesWhatIsNotARegularFile: a transcript's name swapped,
// after the walk, for a FIFO (the listing must not wait on it), a folder, a
// dangling link or a link to a file elsewhere is left out, not read and not
// an error.
func TestDescribeRefusesWhatIsNotARegularFile(t *testing.T) {
	good := readRecorded(t, "tools/0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
	tests := []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"FIFO", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"dangling link", func(t *testing.T, p string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "gone.jsonl"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{"link to a transcript elsewhere", func(t *testing.T, p string) {
			out := filepath.Join(t.TempDir(), "elsewhere.jsonl")
			writeFile(t, out, good, 0o600)
			if err := os.Symlink(out, p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
			tc.plant(t, p)
			type result struct {
				ok  bool
				err error
			}
			done := make(chan result, 1)
			go func() {
				_, ok, err := Describe(p)
				done <- result{ok, err}
			}()
			select {
			case r := <-done:
				if r.ok || r.err != nil {
					t.Errorf("Describe = ok %v, %v; want the file left out without an error", r.ok, r.err)
				}
			case <-time.After(2 * time.Minute): // generous: the read is of nothing
				t.Fatal("Describe still waiting after 2 minutes (blocked opening a FIFO?)")
			}
		})
	}
}

// TestListingLeavesOutSessionsWithNothingToRead: an empty transcript and
// one with only metadata records (the first lines of a recorded session,
// before its first row) are not listed, so `latest` never picks one.
func TestListingLeavesOutSessionsWithNothingToRead(t *testing.T) {
	rec := readRecorded(t, "fork-compacted/0b5e8a61-7c1d-4f3e-9a2b-000000000008.jsonl")
	lines := bytes.SplitAfter(rec, []byte("\n"))
	root := t.TempDir()
	dir := filepath.Join(root, "-p")
	// A real session, written a minute before the others.
	writeFile(t, filepath.Join(dir, "0b5e8a61-7c1d-4f3e-9a2b-000000000008.jsonl"), rec, 0o600)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(filepath.Join(dir, "0b5e8a61-7c1d-4f3e-9a2b-000000000008.jsonl"), old, old)
	writeFile(t, filepath.Join(dir, "44444444-4444-4444-8444-444444444444.jsonl"), nil, 0o600)
	// Lines 1-2 are queue-operation records: no conversation row yet.
	writeFile(t, filepath.Join(dir, "55555555-5555-4555-8555-555555555555.jsonl"), bytes.Join(lines[:2], nil), 0o600)
	ss, err := listSessions(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].ID != "0b5e8a61-7c1d-4f3e-9a2b-000000000008" {
		var ids []string
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
		t.Fatalf("listed %v, want only the session with rows", ids)
	}
}

// TestTitles: a fork made after a compaction starts with the compaction's
// summary row, which is not its title; a prompt sent as blocks (text and an
// image) is.
func TestTitles(t *testing.T) {
	img := `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"text","text":"What is in\nthis picture?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},"uuid":"9136ba0f-a4ff-4512-a5ca-b041dda0698e","timestamp":"2026-12-02T12:40:07.716Z","cwd":"/w","sessionId":"66666666-6666-4666-8666-666666666666"}` + "\n"
	tests := []struct {
		name, file string
		content    []byte
		want       string
	}{
		{name: "fork after a compaction", file: "da446875-a789-4c99-b81e-a069cd0a41dc.jsonl",
			content: readRecorded(t, "fork-compacted/da446875-a789-4c99-b81e-a069cd0a41dc.jsonl"), want: "What did the note say?"},
		{name: "compacted session keeps its first prompt", file: "0b5e8a61-7c1d-4f3e-9a2b-000000000008.jsonl",
			content: readRecorded(t, "fork-compacted/0b5e8a61-7c1d-4f3e-9a2b-000000000008.jsonl"), want: "Read notes.txt and remember what it says"},
		{name: "prompt with an image", file: "66666666-6666-4666-8666-666666666666.jsonl", content: []byte(img), want: "What is in this picture?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.file)
			writeFile(t, p, tc.content, 0o600)
			s, ok, err := Describe(p)
			if err != nil || !ok {
				t.Fatalf("Describe: ok %v, %v", ok, err)
			}
			if s.Title != tc.want {
				t.Errorf("title %q, want %q", s.Title, tc.want)
			}
			if strings.Contains(s.Title, "continued from a previous") {
				t.Errorf("title taken from the compaction summary: %q", s.Title)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}
