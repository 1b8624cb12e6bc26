package notes

import (
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// plant writes a file into the project scope as another tool would (an
// editor, a sync tool), bypassing the store's limits.
func plant(t *testing.T, sp *Space, rel string, size int64) string {
	t.Helper()
	mustWrite(t, sp, "seed.md", "x\n") // makes the scope folder
	p := sp.ProjectDir() + "/" + rel
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A sparse file: any size costs nothing on disk.
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// allocated returns how many bytes fn allocated on the heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestOversizeNoteNotRead: a note larger than MaxNoteBytes on disk (only
// another tool can write one) is refused by name, size and path with the
// fix, and reading it costs about MaxNoteBytes of memory, not its size.
// Before the fix a 1 GiB sparse note was read whole.
func TestOversizeNoteNotRead(t *testing.T) {
	sp := newSpace(t)
	const size = 1 << 30
	path := plant(t, sp, "huge.md", size)
	for _, op := range []struct {
		name string
		run  func() error
	}{
		{"read", func() error { _, err := sp.Read(ReadRequest{Name: "huge.md"}); return err }},
		{"read a range", func() error { _, err := sp.Read(ReadRequest{Name: "huge.md", From: 1, To: 1}); return err }},
		{"edit", func() error {
			_, err := sp.Edit(EditRequest{Name: "huge.md", OldText: "a", NewText: "b"})
			return err
		}},
		{"tool call", func() error {
			_, err := sp.Call(ToolRead, json.RawMessage(`{"name":"huge.md"}`))
			return err
		}},
	} {
		t.Run(op.name, func(t *testing.T) {
			var err error
			if got := allocated(func() { err = op.run() }); got > 4*MaxNoteBytes {
				t.Errorf("allocated %d bytes for a %d-byte note; want about %d", got, size, MaxNoteBytes)
			}
			wantCode(t, err, CodeTooLarge, "note huge.md is 1073741824 bytes")
			for _, want := range []string{"split it", "trim it with an editor", path, ToolDelete} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
	// It can still be deleted, and is listed with its real size.
	l, err := sp.List(ListRequest{Prefix: "huge"})
	if err != nil || len(l.Notes) != 1 || l.Notes[0].Size != size {
		t.Errorf("list = %+v, %v", l, err)
	}
	if r, err := sp.Delete(DeleteRequest{Name: "huge.md"}); err != nil || r.Size != size {
		t.Errorf("delete = %+v, %v", r, err)
	}
}

// TestReadPaged: an answer is at most MaxReadAnswerBytes; following the
// offsets it gives returns the selection exactly once, for notes of short
// lines, of one long line of multi-byte characters, and for a line range.
func TestReadPaged(t *testing.T) {
	sp := newSpace(t)
	var lines strings.Builder
	for i := 0; lines.Len() < MaxNoteBytes-40; i++ {
		lines.WriteString("line " + strconv.Itoa(i) + " of a long note, padded out\n")
	}
	oneLine := strings.Repeat("é", MaxNoteBytes/2-1) + "x" // no newline, 2-byte runes
	mustWrite(t, sp, "lines.md", lines.String())
	mustWrite(t, sp, "oneline.md", oneLine)
	mustWrite(t, sp, "small.md", "a\nb\n")

	tests := []struct {
		name     string
		req      ReadRequest
		want     string // the selection, all pages together
		base     int    // the selection's first byte in the note
		minPages int
	}{
		{"short lines", ReadRequest{Name: "lines.md"}, lines.String(), 0, 2},
		{"one long line", ReadRequest{Name: "oneline.md"}, oneLine, 0, 2},
		{"a range", ReadRequest{Name: "lines.md", From: 3, To: 1500}, strings.Join(splitLines(lines.String())[2:1500], ""),
			len(strings.Join(splitLines(lines.String())[:2], "")), 2},
		{"small", ReadRequest{Name: "small.md"}, "a\nb\n", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			req, base := tt.req, tt.base
			pages := 0
			for {
				pages++
				if pages > 10 {
					t.Fatalf("more than 10 pages")
				}
				r, err := sp.Read(req)
				if err != nil {
					t.Fatal(err)
				}
				if out := r.Render(); len(out) > MaxReadAnswerBytes {
					t.Fatalf("page %d renders %d bytes, over %d", pages, len(out), MaxReadAnswerBytes)
				}
				if !utf8.ValidString(r.Content) || !utf8.ValidString(r.Text) {
					t.Fatalf("page %d cut inside a character", pages)
				}
				if r.Offset != base+got.Len() {
					t.Fatalf("page %d offset %d does not continue the previous page", pages, r.Offset)
				}
				got.WriteString(r.Content)
				if r.NextOffset == 0 {
					break
				}
				if !strings.Contains(r.Render(), "continue with offset="+strconv.Itoa(r.NextOffset)) {
					t.Fatalf("cut page does not say where to continue: %q", r.Render()[len(r.Render())-200:])
				}
				req = ReadRequest{Name: tt.req.Name, To: tt.req.To, Offset: r.NextOffset}
			}
			if got.String() != tt.want {
				t.Errorf("pages join to %d bytes, want %d (the selection exactly once)", got.Len(), len(tt.want))
			}
			if pages < tt.minPages {
				t.Errorf("%d pages, want at least %d", pages, tt.minPages)
			}
		})
	}

	// The same through the tool's JSON arguments, as MCP and the helper call it.
	res, err := sp.Call(ToolRead, json.RawMessage(`{"name":"oneline.md"}`))
	if err != nil {
		t.Fatal(err)
	}
	next := res.(ReadResult).NextOffset
	res, err = sp.Call(ToolRead, json.RawMessage(`{"name":"oneline.md","offset":`+strconv.Itoa(next)+`}`))
	if err != nil || res.(ReadResult).Offset != next || !strings.Contains(res.Render(), "line 1 from byte "+strconv.Itoa(next)) {
		t.Errorf("second page through Call = %v, %v", res, err)
	}

	// An offset inside a character is moved back to its start.
	r, err := sp.Read(ReadRequest{Name: "oneline.md", Offset: 3})
	if err != nil || r.Offset != 2 || !strings.HasPrefix(r.Content, "é") {
		t.Errorf("offset inside a character: offset %d, %v", r.Offset, err)
	}
	for _, bad := range []struct {
		req    ReadRequest
		substr string
	}{
		{ReadRequest{Name: "small.md", Offset: 4}, "past the end"},
		{ReadRequest{Name: "small.md", Offset: -1}, "byte offset"},
		{ReadRequest{Name: "small.md", Offset: 1, From: 1}, "not both"},
		{ReadRequest{Name: "small.md", Offset: 2, To: 1}, "after to=1"},
	} {
		_, err := sp.Read(bad.req)
		wantCode(t, err, CodeInvalidRequest, bad.substr)
	}
}

// TestSnapshotBounded: what a boot reads is bounded whatever other tools
// put in the notes folders: a huge note is marked TooLarge and not read,
// notes past the byte bound keep only their first line (Partial), and
// notes past MaxScopeNotes per scope are counted, not read. Before the fix
// a 1 GiB sparse note was read whole at every boot.
func TestSnapshotBounded(t *testing.T) {
	defer func(b, n int64) { snapshotMaxBytes, maxScopeNotes = b, n }(snapshotMaxBytes, maxScopeNotes)
	sp := newSpace(t)
	plant(t, sp, "a-huge.md", 1<<30)
	body := "# Body\n" + strings.Repeat("x", 4000) + "\n"
	for _, n := range []string{"b1.md", "b2.md", "b3.md", "b4.md"} {
		mustWrite(t, sp, n, body)
	}
	mustWrite(t, sp, "~/g.md", "# Global\n")

	var snap Snapshot
	var err error
	if got := allocated(func() { snap, err = sp.Snapshot() }); got > 4*MaxNoteBytes+1<<20 {
		t.Errorf("snapshot allocated %d bytes beside a 1 GiB note", got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := snap.Notes[0]; n.Name != "a-huge.md" || !n.TooLarge || n.Size != 1<<30 || n.Content != "" {
		t.Errorf("huge note in the snapshot = %+v", n)
	}

	// A byte bound of two bodies and a count bound of 5 notes per scope.
	snapshotMaxBytes, maxScopeNotes = 2*int64(len(body)), 5
	snap, err = sp.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var partial, whole []string
	for _, n := range snap.Notes {
		switch {
		case n.TooLarge:
		case n.Partial:
			partial = append(partial, n.Name)
			if FirstLine(n.Content) != "Body" || int64(len(n.Content)) >= n.Size || n.Size != int64(len(body)) {
				t.Errorf("partial note %s: %d of %d bytes, first line %q", n.Name, len(n.Content), n.Size, FirstLine(n.Content))
			}
		default:
			whole = append(whole, n.Name)
			if int64(len(n.Content)) != n.Size {
				t.Errorf("note %s not whole: %d of %d bytes", n.Name, len(n.Content), n.Size)
			}
		}
	}
	// The huge note takes nothing of the bound; two bodies fit it, and
	// the small global note needs no more than its first-line probe.
	// (seed.md is the sixth project note: over the count bound.)
	if strings.Join(whole, " ") != "b1.md b2.md ~/g.md" || strings.Join(partial, " ") != "b3.md b4.md" || snap.Unread != 1 {
		t.Errorf("whole notes %v, partial notes %v, %d unread; want b1, b2 and ~/g.md whole, b3 and b4 partial, seed.md unread", whole, partial, snap.Unread)
	}
	maxScopeNotes = 3
	if snap, err = sp.Snapshot(); err != nil || len(snap.Notes) != 4 || snap.Unread != 3 {
		t.Errorf("with 3 notes per scope: %d notes, %d unread, %v; want 4 (3 project, 1 global) and 3", len(snap.Notes), snap.Unread, err)
	}
}

// TestWriteEmptyRefused: empty or blank content does not silently erase
// an existing note (an empty pipe did, before the fix); allow_empty does,
// and a new or already empty note takes empty content as before.
func TestWriteEmptyRefused(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "keep.md", "# Keep\nimportant\n")
	mustWrite(t, sp, "blank.md", "")
	tests := []struct {
		name    string
		args    string
		refused bool
		after   string // the note's text afterwards
	}{
		{"empty", `{"name":"keep.md","content":""}`, true, "# Keep\nimportant\n"},
		{"blank", `{"name":"keep.md","content":" \n\t\n"}`, true, "# Keep\nimportant\n"},
		{"allow_empty false", `{"name":"keep.md","content":"","allow_empty":false}`, true, "# Keep\nimportant\n"},
		{"new note", `{"name":"new.md","content":""}`, false, ""},
		{"already empty", `{"name":"blank.md","content":""}`, false, ""},
		{"allow_empty", `{"name":"keep.md","content":"","allow_empty":true}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args struct{ Name string }
			json.Unmarshal([]byte(tt.args), &args)
			_, err := sp.Call(ToolWrite, json.RawMessage(tt.args))
			if tt.refused {
				wantCode(t, err, CodeInvalidRequest, "would erase its 17 bytes")
				for _, want := range []string{"allow_empty=true", "--allow-empty", ToolDelete} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("refusal %q does not name %q", err, want)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := string(mustFile(t, sp, args.Name)); got != tt.after {
				t.Errorf("%s holds %q, want %q", args.Name, got, tt.after)
			}
		})
	}
}

// TestDeleteRefusesLinks: deleting by a name that is, or passes through, a
// symbolic link deletes nothing and says what the link is. Before the fix
// "alias.md" deleted the note it pointed to, and "dlink/a.md" removed
// the target folder's note and then the folder.
func TestDeleteRefusesLinks(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "api/auth.md", "# Auth\n")
	dir := sp.ProjectDir()
	for link, target := range map[string]string{
		"alias.md": "api/auth.md",        // relative file link
		"abs.md":   dir + "/api/auth.md", // absolute file link
		"dlink":    "api",                // folder link
		"gone.md":  "nowhere.md",         // broken link
		"loop.md":  "loop.md",            // a link to itself
	} {
		if err := os.Symlink(target, dir+"/"+link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"alias.md", `the note name "alias.md" is a symbolic link (to "api/auth.md")`},
		{"abs.md", `the note name "abs.md" is a symbolic link`},
		{"dlink/auth.md", `the folder "dlink" is a symbolic link (to "api")`},
		{"gone.md", `"gone.md" is a symbolic link (to "nowhere.md")`},
		{"loop.md", `"loop.md" is a symbolic link`},
	} {
		_, err := sp.Call(ToolDelete, json.RawMessage(`{"name":"`+tc.name+`"}`))
		wantCode(t, err, CodeInvalidName, tc.want)
		if !strings.Contains(err.Error(), "remove the link itself with rm") {
			t.Errorf("%s: refusal %q does not say the fix", tc.name, err)
		}
		if _, err := os.Lstat(dir + "/" + strings.Split(tc.name, "/")[0]); err != nil {
			t.Errorf("%s: the link itself is gone: %v", tc.name, err)
		}
	}
	if got := string(mustFile(t, sp, "api/auth.md")); got != "# Auth\n" {
		t.Fatalf("the linked note changed: %q", got)
	}
	// The note itself is deleted by its own name, and its folder pruned.
	if _, err := sp.Delete(DeleteRequest{Name: "api/auth.md"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + "/api"); !os.IsNotExist(err) {
		t.Errorf("empty folder api/ left: %v", err)
	}
}
