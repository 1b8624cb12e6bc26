package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fixture is a harness root with transcripts and a vault.
type fixture struct {
	t    *testing.T
	root string
	v    *Vault
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := Open(filepath.Join(base, "home", "vault"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, root: root, v: v}
}

func (f *fixture) path(rel string) string { return filepath.Join(f.root, rel) }

func (f *fixture) write(rel, data string) {
	f.t.Helper()
	p := f.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) appendTo(rel, data string) {
	f.t.Helper()
	fh, err := os.OpenFile(f.path(rel), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(data); err != nil {
		f.t.Fatal(err)
	}
}

// files lists every regular file under the root as the "h" harness's.
func (f *fixture) files() []File {
	var out []File
	filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, File{Harness: "h", ID: strings.TrimSuffix(d.Name(), ".jsonl"), Root: f.root, Path: p})
		}
		return nil
	})
	return out
}

func (f *fixture) sync() SyncStats {
	f.t.Helper()
	st, err := f.v.Sync(context.Background(), f.files(), SyncOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	if len(st.Errors) > 0 {
		f.t.Fatalf("sync errors: %v", st.Errors)
	}
	return st
}

// entry returns the vault's entry for rel.
func (f *fixture) entry(rel string) Entry {
	f.t.Helper()
	es, err := f.v.Entries()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, e := range es {
		if e.Path() == f.path(rel) {
			return e
		}
	}
	f.t.Fatalf("no vault entry for %s among %d", rel, len(es))
	return Entry{}
}

// kept returns the vault's copy of rel.
func (f *fixture) kept(rel string) string {
	f.t.Helper()
	b, err := f.v.Bytes(f.entry(rel))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// setMTime moves a file's modification time, so a rewrite of the same
// size within one clock tick is still seen as a change.
func (f *fixture) setMTime(rel string, d time.Duration) {
	f.t.Helper()
	tm := time.Now().Add(d)
	if err := os.Chtimes(f.path(rel), tm, tm); err != nil {
		f.t.Fatal(err)
	}
}

func TestSyncKinds(t *testing.T) {
	big := strings.Repeat("x", 10<<10)
	tests := []struct {
		name   string
		before string                  // the file at the first sync
		change func(f *fixture)        // then this
		want   func(st SyncStats) bool // what the second sync says
		read   int64                   // bytes the second sync read
		gens   int                     // older generations kept
	}{
		{name: "unchanged", before: "a\nb\n", change: func(*fixture) {},
			want: func(st SyncStats) bool { return st.Unchanged == 1 && st.Commits == 0 }},
		{name: "appended small", before: "a\nb\n", change: func(f *fixture) { f.appendTo("s.jsonl", "c\n") },
			want: func(st SyncStats) bool { return st.Grown == 1 }, read: 2},
		{name: "appended past the hashed tail", before: big, change: func(f *fixture) { f.appendTo("s.jsonl", big) },
			want: func(st SyncStats) bool { return st.Grown == 1 }, read: int64(len(big))},
		{name: "rewritten shorter", before: "a\nb\n", change: func(f *fixture) { f.write("s.jsonl", "a\n") },
			want: func(st SyncStats) bool { return st.Rewritten == 1 }, read: 2, gens: 1},
		{name: "rewritten longer with a changed head", before: big, change: func(f *fixture) { f.write("s.jsonl", "y"+big[1:]+"tail") },
			want: func(st SyncStats) bool { return st.Rewritten == 1 }, read: int64(len(big) + 4), gens: 1},
		{name: "rewritten in the middle, same size", before: big + big + big, change: func(f *fixture) {
			f.write("s.jsonl", big+"z"+big[1:]+big)
			f.setMTime("s.jsonl", time.Hour)
		}, want: func(st SyncStats) bool { return st.Rewritten == 1 }, read: int64(3 * len(big)), gens: 1},
		{name: "touched", before: "a\n", change: func(f *fixture) { f.setMTime("s.jsonl", time.Hour) },
			want: func(st SyncStats) bool { return st.Touched == 1 && st.BytesRead == 0 }},
		{name: "replaced by a longer file with the same bytes first", before: "a\nb\n", change: func(f *fixture) {
			os.Remove(f.path("s.jsonl"))
			f.write("s.jsonl", "a\nb\nc\n")
		}, want: func(st SyncStats) bool { return st.Grown == 1 }, read: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("s.jsonl", tc.before)
			if st := f.sync(); st.New != 1 || st.BytesRead != int64(len(tc.before)) || st.Commits != 1 {
				t.Fatalf("first sync: %+v", st)
			}
			tc.change(f)
			st := f.sync()
			if !tc.want(st) || st.BytesRead != tc.read {
				t.Fatalf("second sync: %+v (want %d bytes read)", st, tc.read)
			}
			want, _ := os.ReadFile(f.path("s.jsonl"))
			if got := f.kept("s.jsonl"); got != string(want) {
				t.Fatalf("kept %d bytes, want %d", len(got), len(want))
			}
			e := f.entry("s.jsonl")
			if len(e.Older) != tc.gens {
				t.Fatalf("older generations %v, want %d", e.Older, tc.gens)
			}
			for _, g := range e.Older {
				old := e
				old.Gen, old.Size, old.CLen = g.Gen, g.Size, g.CLen
				b, err := f.v.Bytes(old)
				if err != nil || string(b) != tc.before {
					t.Fatalf("older generation %d: %q, %v; want the first copy", g.Gen, b, err)
				}
			}
			// A third sync has nothing to do.
			if st := f.sync(); st.Unchanged != 1 || st.Commits != 0 {
				t.Fatalf("third sync: %+v", st)
			}
		})
	}
}

func TestSyncTornDataIsCutOff(t *testing.T) {
	f := newFixture(t)
	f.write("s.jsonl", "one\n")
	f.sync()
	e := f.entry("s.jsonl")
	// A sync killed after appending a frame but before its commit leaves
	// bytes past the committed length: readers ignore them, the next sync
	// cuts them off before it appends.
	data := f.v.dataFile(e, e.Gen)
	fh, err := os.OpenFile(data, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString("torn frame bytes")
	fh.Close()
	if got := f.kept("s.jsonl"); got != "one\n" {
		t.Fatalf("kept %q with torn bytes past the commit", got)
	}
	f.appendTo("s.jsonl", "two\n")
	if st := f.sync(); st.Grown != 1 {
		t.Fatalf("%+v", st)
	}
	if got := f.kept("s.jsonl"); got != "one\ntwo\n" {
		t.Fatalf("kept %q", got)
	}
}

func TestSyncInterruptedThenFinished(t *testing.T) {
	f := newFixture(t)
	for i := range 6 {
		f.write(fmt.Sprintf("p/s%d.jsonl", i), strings.Repeat(fmt.Sprintf("line %d\n", i), 100))
	}
	files := f.files()
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled after the third file: the first three were committed (a
	// commit after every file), the rest wait for the next sync.
	n := 0
	counting := make([]File, 0, len(files))
	for _, fl := range files {
		counting = append(counting, fl)
	}
	st, err := f.v.Sync(cancelAfter(ctx, cancel, &n, 3), counting, SyncOptions{CommitEvery: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want canceled", err)
	}
	if st.New != 3 {
		t.Fatalf("interrupted sync copied %d, want 3", st.New)
	}
	es, _ := f.v.Entries()
	if len(es) != 3 {
		t.Fatalf("committed %d entries, want 3", len(es))
	}
	st = f.sync()
	if st.Unchanged != 3 || st.New != 3 {
		t.Fatalf("finishing sync: %+v", st)
	}
	for _, fl := range files {
		rel, _ := filepath.Rel(f.root, fl.Path)
		want, _ := os.ReadFile(fl.Path)
		if f.kept(rel) != string(want) {
			t.Fatalf("%s kept wrong", rel)
		}
	}
}

// cancelAfter returns a context that is cancelled once its Err has been
// asked for more than after times: the sync asks once per file.
func cancelAfter(ctx context.Context, cancel context.CancelFunc, n *int, after int) context.Context {
	return &countingCtx{Context: ctx, cancel: cancel, n: n, after: after}
}

type countingCtx struct {
	context.Context
	cancel context.CancelFunc
	n      *int
	after  int
}

func (c *countingCtx) Err() error {
	*c.n++
	if *c.n > c.after {
		c.cancel()
	}
	return c.Context.Err()
}

func TestSyncConcurrent(t *testing.T) {
	f := newFixture(t)
	for i := range 20 {
		f.write(fmt.Sprintf("s%02d.jsonl", i), strings.Repeat("x", 1000+i))
	}
	files := f.files()
	var wg sync.WaitGroup
	stats := make([]SyncStats, 4)
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each sync opens the vault anew, as another process would.
			v, err := Open(f.v.Dir())
			if err != nil {
				errs[i] = err
				return
			}
			stats[i], errs[i] = v.Sync(context.Background(), files, SyncOptions{LockWait: time.Minute})
		}()
	}
	wg.Wait()
	copied := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		copied += stats[i].New
	}
	if copied != 20 {
		t.Fatalf("four concurrent syncs copied %d files in all, want each of 20 once", copied)
	}
	for _, fl := range files {
		want, _ := os.ReadFile(fl.Path)
		if f.kept(filepath.Base(fl.Path)) != string(want) {
			t.Fatalf("%s kept wrong", fl.Path)
		}
	}
}

func TestSyncRefuses(t *testing.T) {
	f := newFixture(t)
	f.write("real.jsonl", "secret\n")
	outside := filepath.Join(t.TempDir(), "outside.jsonl")
	os.WriteFile(outside, []byte("x\n"), 0o600)
	os.WriteFile(filepath.Join(f.root, "..", "escape.jsonl"), []byte("x\n"), 0o600)
	if err := os.Symlink(f.path("real.jsonl"), f.path("link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(f.path("fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Harness: "h", ID: "link", Root: f.root, Path: f.path("link.jsonl")},
		{Harness: "h", ID: "fifo", Root: f.root, Path: f.path("fifo.jsonl")},
		{Harness: "h", ID: "out", Root: f.root, Path: outside},
		{Harness: "h", ID: "dots", Root: f.root, Path: f.root + "/../escape.jsonl"},
		{Harness: "h", ID: "missing", Root: f.root, Path: f.path("missing.jsonl")},
		{Harness: "h", ID: "real", Root: f.root, Path: f.path("real.jsonl")},
	}
	st, err := f.v.Sync(context.Background(), files, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.New != 1 || st.Gone != 1 || len(st.Errors) != 4 {
		t.Fatalf("%+v", st)
	}
	es, _ := f.v.Entries()
	if len(es) != 1 || es[0].ID != "real" {
		t.Fatalf("entries %+v", es)
	}
}

func TestPrivate(t *testing.T) {
	f := newFixture(t)
	if err := os.Chmod(f.v.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := Open(f.v.Dir())
	if err != nil {
		t.Fatal(err)
	}
	f.v = v
	f.write("p/s.jsonl", "token\n")
	f.sync()
	if _, err := f.v.Materialize(f.entry("p/s.jsonl")); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(f.v.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if n < 6 {
		t.Fatalf("walked %d names", n)
	}
}

func TestMaterialize(t *testing.T) {
	f := newFixture(t)
	f.write("p/s.jsonl", "a\n")
	f.setMTime("p/s.jsonl", -48*time.Hour)
	f.sync()
	e := f.entry("p/s.jsonl")
	p, err := f.v.Materialize(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, f.v.CacheRoot("h", f.root)+string(filepath.Separator)) || !strings.HasSuffix(p, filepath.Join("p", "s.jsonl")) {
		t.Fatalf("materialized at %s", p)
	}
	got, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(got) != "a\n" || fi.ModTime().UnixNano() != e.MTime {
		t.Fatalf("materialized %q at %v, want the original's bytes and time", got, fi.ModTime())
	}
	// Grown since: materialized anew.
	f.appendTo("p/s.jsonl", "b\n")
	f.sync()
	p, _ = f.v.Materialize(f.entry("p/s.jsonl"))
	if got, _ := os.ReadFile(p); string(got) != "a\nb\n" {
		t.Fatalf("materialized %q after growth", got)
	}
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name    string
		there   string // what is at the target at restore time; "-" nothing
		dryRun  bool
		wantErr error
		written bool
		after   string // the target after; "-" nothing
	}{
		{name: "gone is written back", there: "-", written: true, after: "a\nb\n"},
		{name: "dry run writes nothing", there: "-", dryRun: true, after: "-"},
		{name: "same file is left", there: "a\nb\n", after: "a\nb\n"},
		{name: "different file is refused", there: "a\nB\n", wantErr: ErrDiffers, after: "a\nB\n"},
		{name: "shorter file is refused", there: "a\n", wantErr: ErrDiffers, after: "a\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.write("proj/s.jsonl", "a\nb\n")
			f.sync()
			e := f.entry("proj/s.jsonl")
			os.RemoveAll(f.path("proj"))
			if tc.there != "-" {
				f.write("proj/s.jsonl", tc.there)
			}
			p, err := f.v.Restore(e, tc.dryRun)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if p.Written != tc.written || p.Target != f.path("proj/s.jsonl") || p.Size != 4 {
				t.Fatalf("plan %+v", p)
			}
			got, err := os.ReadFile(f.path("proj/s.jsonl"))
			if tc.after == "-" {
				if err == nil {
					t.Fatalf("target written: %q", got)
				}
			} else if string(got) != tc.after {
				t.Fatalf("target holds %q, want %q", got, tc.after)
			}
			ents, _ := os.ReadDir(f.path("proj"))
			if tc.after != "-" && len(ents) != 1 {
				t.Fatalf("left in the folder: %v", ents)
			}
			if tc.written {
				fi, _ := os.Stat(f.path("proj/s.jsonl"))
				if fi.Mode().Perm() != 0o600 {
					t.Fatalf("restored with mode %v", fi.Mode().Perm())
				}
				// Restored byte-identical, the vault sees it unchanged
				// but for its time and inode.
				if st := f.sync(); st.Touched != 1 || st.BytesRead != 0 {
					t.Fatalf("sync after restore: %+v", st)
				}
			}
		})
	}
}

func TestDamagedManifestRefused(t *testing.T) {
	good := func(e Entry) string { return string(encodeManifest([]Entry{e})) }
	ok := Entry{Harness: "h", ID: "i", Root: "/r", Rel: "x", Gen: 1}
	tests := []struct{ name, manifest, want string }{
		{"json", `{"version":1,"entries":[]}`, "not a notesoup vault manifest"},
		{"newer format", "notesoup-vault 99\nend\t0\t00000000\n", "format"},
		{"cut short", good(ok)[:len(good(ok))-20], "cut short"},
		{"flipped byte", strings.Replace(good(ok), "\tx\t", "\ty\t", 1), "checksum"},
		{"escaping path", good(Entry{Harness: "h", Root: "/r", Rel: "../x", Gen: 1}), "path"},
		{"harness with a separator", good(Entry{Harness: "a/b", Root: "/r", Rel: "x", Gen: 1}), "harness"},
		{"relative root", good(Entry{Harness: "h", Root: "r", Rel: "x", Gen: 1}), "root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			os.WriteFile(filepath.Join(f.v.Dir(), manifestName), []byte(tc.manifest), 0o600)
			_, err := f.v.Entries()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestManifestRoundTrip: hostile names (tabs, newlines, percent signs)
// and every field survive, and cannot forge a line.
func TestManifestRoundTrip(t *testing.T) {
	in := []Entry{
		{Harness: "h", ID: "a\tb", Root: "/r\noot", Rel: "p%09/x\ny\r.jsonl", Gen: 3, Size: 10, CLen: 7, MTime: -1, Ino: 1 << 40,
			Head: "aa", Tail: "bb", State: "c+/=", Synced: 99, Older: []Generation{{1, 5, 4}, {2, 8, 6}}},
		{Harness: "g", ID: "", Root: "/", Rel: "z", Gen: 1},
	}
	data := encodeManifest(in)
	if n := strings.Count(string(data), "\n"); n != 4 {
		t.Fatalf("%d lines for 2 entries:\n%s", n, data)
	}
	out, err := decodeManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%+v", out) != fmt.Sprintf("%+v", in) {
		t.Fatalf("round trip:\n%+v\n%+v", out, in)
	}
}

func TestWriteToRefusesDamage(t *testing.T) {
	f := newFixture(t)
	f.write("s.jsonl", strings.Repeat("abc\n", 1000))
	f.sync()
	e := f.entry("s.jsonl")
	data := f.v.dataFile(e, e.Gen)
	b, _ := os.ReadFile(data)
	b[len(b)/2] ^= 0xff
	os.WriteFile(data, b, 0o600)
	var out bytes.Buffer
	if _, err := f.v.WriteTo(&out, e); err == nil {
		t.Fatal("a flipped byte in the data file went unnoticed")
	}
}
