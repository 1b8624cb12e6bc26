package notes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// newSpace returns a space over a fresh home and a fresh git project.
func newSpace(t *testing.T) *Space {
	t.Helper()
	home := t.TempDir()
	proj := t.TempDir()
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := Open(home).Space(proj)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func mustWrite(t *testing.T, sp *Space, name, content string) {
	t.Helper()
	if _, err := sp.Write(WriteRequest{Name: name, Content: content}); err != nil {
		t.Fatalf("write %s: %v", name, err)
	}
}

func wantCode(t *testing.T, err error, code Code, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want %s refusal containing %q", code, substr)
	}
	if CodeOf(err) != code {
		t.Fatalf("code = %q (%v), want %q", CodeOf(err), err, code)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %q does not contain %q", err, substr)
	}
}

func TestSpaceResolution(t *testing.T) {
	home := t.TempDir()
	st := Open(home)
	proj := t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sub := filepath.Join(proj, "a", "b")
	os.MkdirAll(sub, 0o755)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(proj, link); err != nil {
		t.Fatal(err)
	}
	worktree := filepath.Join(t.TempDir(), "wt")
	os.MkdirAll(worktree, 0o755)
	os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	plain := t.TempDir()

	base, err := st.Space(proj)
	if err != nil {
		t.Fatal(err)
	}
	realProj, _ := filepath.EvalSymlinks(proj)
	if base.Root() != realProj {
		t.Errorf("root = %q, want %q", base.Root(), realProj)
	}
	if !strings.HasPrefix(base.ProjectDir(), filepath.Join(home, "projects")+string(filepath.Separator)) {
		t.Errorf("project dir %q not under home/projects", base.ProjectDir())
	}
	if base.GlobalDir() != filepath.Join(home, "global") {
		t.Errorf("global dir = %q", base.GlobalDir())
	}
	tests := []struct {
		name, cwd, wantRoot string
	}{
		{"subfolder of the git root", sub, realProj},
		{"trailing slash", proj + "/", realProj},
		{"symlink to the project", link, realProj},
		{"worktree with a .git file", worktree, mustReal(t, worktree)},
		{"no git: the folder itself", plain, mustReal(t, plain)},
	}
	for _, tt := range tests {
		sp, err := st.Space(tt.cwd)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if sp.Root() != tt.wantRoot {
			t.Errorf("%s: root = %q, want %q", tt.name, sp.Root(), tt.wantRoot)
		}
		if (tt.wantRoot == realProj) != (sp.ProjectDir() == base.ProjectDir()) {
			t.Errorf("%s: project dir %q vs base %q", tt.name, sp.ProjectDir(), base.ProjectDir())
		}
	}
	if _, err := (&Store{}).Space(proj); CodeOf(err) != CodeInvalidRequest {
		t.Errorf("Space without a home: err = %v, want invalid_request", err)
	}
	for _, bad := range []string{"", filepath.Join(plain, "missing")} {
		if _, err := st.Space(bad); CodeOf(err) != CodeInvalidRequest {
			t.Errorf("Space(%q) err = %v, want invalid_request", bad, err)
		}
	}
	// A note written from one spelling of the project is read from another.
	mustWrite(t, base, "x.md", "shared\n")
	viaLink, _ := st.Space(link)
	if r, err := viaLink.Read(ReadRequest{Name: "x.md"}); err != nil || r.Content != "shared\n" {
		t.Errorf("read via link = %+v, %v", r, err)
	}
}

func mustReal(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWriteAndRead(t *testing.T) {
	sp := newSpace(t)
	res, err := sp.Write(WriteRequest{Name: "api/auth.md", Content: "# Auth\nline 2\nline 3\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Size != 21 || res.Lines != 3 || res.Name != "api/auth.md" {
		t.Errorf("write result = %+v", res)
	}
	res, err = sp.Write(WriteRequest{Name: "api/auth.md", Content: "# Auth\nline 2\nline 3\nline 4"})
	if err != nil || res.Created || res.Lines != 4 {
		t.Errorf("replace result = %+v, %v", res, err)
	}
	mustWrite(t, sp, "~/style.md", "tabs\n")
	mustWrite(t, sp, "empty.md", "")

	tests := []struct {
		name         string
		req          ReadRequest
		from, to     int
		text         string
		content      string
		code         Code
		errSubstring string
	}{
		{name: "whole", req: ReadRequest{Name: "api/auth.md"}, from: 1, to: 4,
			text: "1\t# Auth\n2\tline 2\n3\tline 3\n4\tline 4\n", content: "# Auth\nline 2\nline 3\nline 4"},
		{name: "range", req: ReadRequest{Name: "api/auth.md", From: 2, To: 3}, from: 2, to: 3,
			text: "2\tline 2\n3\tline 3\n", content: "line 2\nline 3\n"},
		{name: "from only", req: ReadRequest{Name: "api/auth.md", From: 4}, from: 4, to: 4,
			text: "4\tline 4\n", content: "line 4"},
		{name: "to past end is clamped", req: ReadRequest{Name: "api/auth.md", To: 99}, from: 1, to: 4,
			text: "1\t# Auth\n2\tline 2\n3\tline 3\n4\tline 4\n", content: "# Auth\nline 2\nline 3\nline 4"},
		{name: "global", req: ReadRequest{Name: "~/style.md"}, from: 1, to: 1, text: "1\ttabs\n", content: "tabs\n"},
		{name: "empty note", req: ReadRequest{Name: "empty.md"}},
		{name: "from past end", req: ReadRequest{Name: "api/auth.md", From: 5}, code: CodeInvalidRequest, errSubstring: "has 4 lines"},
		{name: "from after to", req: ReadRequest{Name: "api/auth.md", From: 3, To: 2}, code: CodeInvalidRequest, errSubstring: "from <= to"},
		{name: "negative", req: ReadRequest{Name: "api/auth.md", From: -1}, code: CodeInvalidRequest, errSubstring: "1-based"},
		{name: "missing", req: ReadRequest{Name: "api/nope.md"}, code: CodeNotFound, errSubstring: "notes_list"},
		{name: "bad name", req: ReadRequest{Name: "../x.md"}, code: CodeInvalidName, errSubstring: ".."},
		{name: "folder", req: ReadRequest{Name: "api"}, code: CodeInvalidName, errSubstring: ".md"},
		{name: "empty note with range", req: ReadRequest{Name: "empty.md", From: 2}, code: CodeInvalidRequest, errSubstring: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sp.Read(tt.req)
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.errSubstring)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.From != tt.from || r.To != tt.to || r.Text != tt.text || r.Content != tt.content {
				t.Errorf("got from=%d to=%d text=%q content=%q", r.From, r.To, r.Text, r.Content)
			}
			if r.Size != int64(len(mustFile(t, sp, tt.req.Name))) {
				t.Errorf("size = %d", r.Size)
			}
		})
	}
	// Line numbers are padded to the widest shown number.
	var b strings.Builder
	for i := 1; i <= 12; i++ {
		b.WriteString("x\n")
	}
	mustWrite(t, sp, "twelve.md", b.String())
	r, _ := sp.Read(ReadRequest{Name: "twelve.md", From: 9, To: 10})
	if r.Text != " 9\tx\n10\tx\n" {
		t.Errorf("padded text = %q", r.Text)
	}
	// A temporary file left by a killed writer is swept by the next write.
	orphan := filepath.Join(sp.ProjectDir(), "api", ".tmp-12345")
	os.WriteFile(orphan, []byte("half a note"), 0o600)
	mustWrite(t, sp, "other.md", "x\n")
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("orphaned temporary file not swept: %v", err)
	}
	// No temporary files are left behind.
	filepath.WalkDir(sp.ProjectDir(), func(p string, d os.DirEntry, err error) error {
		if strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func mustFile(t *testing.T, sp *Space, name string) []byte {
	n, _ := ParseName(name)
	p, err := sp.scopeOf(n).path(n)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteRefusals(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "a.md", "a\n")
	mustWrite(t, sp, "dir/b.md", "b\n")
	tests := []struct {
		name, note, content string
		code                Code
		substr              string
	}{
		{"too large", "big.md", strings.Repeat("x", MaxNoteBytes+1), CodeTooLarge, "split it"},
		{"invalid utf-8", "bad.md", "caf\xe9", CodeInvalidRequest, "UTF-8"},
		{"nul byte", "nulbyte.md", "a\x00b", CodeInvalidRequest, "NUL"},
		{"nested under a note", "a.md/c.md", "c", CodeInvalidName, "is a note, not a folder"},
		{"a folder", "dir", "x", CodeInvalidName, ".md"},
		{"absolute", "/tmp/x.md", "x", CodeInvalidName, "absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sp.Write(WriteRequest{Name: tt.note, Content: tt.content})
			wantCode(t, err, tt.code, tt.substr)
		})
	}
	// A folder named like a note cannot be read or replaced as one.
	mustWrite(t, sp, "d.md/x.md", "x")
	_, err := sp.Write(WriteRequest{Name: "d.md", Content: "y"})
	wantCode(t, err, CodeInvalidName, "is a folder")
	// The exact limit is accepted: refusals are about "over", never truncation.
	if r, err := sp.Write(WriteRequest{Name: "max.md", Content: strings.Repeat("x", MaxNoteBytes)}); err != nil || r.Size != MaxNoteBytes {
		t.Errorf("write at the limit = %+v, %v", r, err)
	}
}

func TestScopeLimits(t *testing.T) {
	sp := newSpace(t)
	defer func(b, n int64) { maxScopeBytes, maxScopeNotes = b, n }(maxScopeBytes, maxScopeNotes)
	maxScopeBytes, maxScopeNotes = 100, 3

	mustWrite(t, sp, "a.md", strings.Repeat("a", 40))
	mustWrite(t, sp, "b.md", strings.Repeat("b", 40))
	_, err := sp.Write(WriteRequest{Name: "c.md", Content: strings.Repeat("c", 21)})
	wantCode(t, err, CodeScopeFull, "over the 100-byte limit")
	mustWrite(t, sp, "c.md", strings.Repeat("c", 20)) // exactly 100
	// Replacing a note counts its new size, not old plus new.
	mustWrite(t, sp, "a.md", strings.Repeat("A", 40))
	_, err = sp.Edit(EditRequest{Name: "a.md", OldText: strings.Repeat("A", 40), NewText: strings.Repeat("A", 41)})
	wantCode(t, err, CodeScopeFull, "per scope")
	// Shrinking edits are always allowed.
	if _, err := sp.Edit(EditRequest{Name: "a.md", OldText: strings.Repeat("A", 40), NewText: "A"}); err != nil {
		t.Fatal(err)
	}
	_, err = sp.Write(WriteRequest{Name: "d.md", Content: ""})
	wantCode(t, err, CodeScopeFull, "number 3")
	// The global scope has its own budget.
	mustWrite(t, sp, "~/g.md", strings.Repeat("g", 90))
	// A refused write leaves the store unchanged.
	l, _ := sp.List(ListRequest{})
	if len(l.Notes) != 4 {
		t.Errorf("after refusals, %d notes: %+v", len(l.Notes), l.Notes)
	}
}

func TestEdit(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "e.md", "alpha\nbeta\ngamma beta\nbeta\n")
	mustWrite(t, sp, "u.md", "one\ntwo\nthree\n")
	tests := []struct {
		name          string
		req           EditRequest
		code          Code
		substr        string
		want          string
		wantLine      int
		wantNoteAfter string
	}{
		{name: "unique", req: EditRequest{Name: "u.md", OldText: "two\n", NewText: "2\n"}, wantLine: 2, wantNoteAfter: "one\n2\nthree\n"},
		{name: "delete text", req: EditRequest{Name: "u.md", OldText: "one\n", NewText: ""}, wantLine: 1, wantNoteAfter: "2\nthree\n"},
		{name: "multi-line", req: EditRequest{Name: "u.md", OldText: "2\nthree", NewText: "x x"}, wantLine: 1, wantNoteAfter: "x x\n"},
		{name: "ambiguous on one line", req: EditRequest{Name: "u.md", OldText: "x", NewText: "y"}, code: CodeAmbiguous, substr: "occurs 2 times in u.md (at line 1)"},
		{name: "ambiguous", req: EditRequest{Name: "e.md", OldText: "beta", NewText: "B"}, code: CodeAmbiguous, substr: "occurs 3 times in e.md (at lines 2, 3, 4)"},
		{name: "no match", req: EditRequest{Name: "e.md", OldText: "delta", NewText: "D"}, code: CodeNoMatch, substr: "occurs 0 times in e.md; read"},
		{name: "near miss", req: EditRequest{Name: "e.md", OldText: "  alpha\nBETA", NewText: "D"}, code: CodeNoMatch, substr: "its first line is at line 1:"},
		{name: "empty old", req: EditRequest{Name: "e.md", OldText: "", NewText: "D"}, code: CodeInvalidRequest, substr: "old_text is empty"},
		{name: "same text", req: EditRequest{Name: "e.md", OldText: "alpha", NewText: "alpha"}, code: CodeInvalidRequest, substr: "nothing would change"},
		{name: "missing note", req: EditRequest{Name: "nope.md", OldText: "a", NewText: "b"}, code: CodeNotFound, substr: "notes_write"},
		{name: "bad name", req: EditRequest{Name: "a/../b.md", OldText: "a", NewText: "b"}, code: CodeInvalidName, substr: ".."},
		{name: "invalid new text", req: EditRequest{Name: "e.md", OldText: "alpha", NewText: "\xff"}, code: CodeInvalidRequest, substr: "UTF-8"},
		{name: "grows past note limit", req: EditRequest{Name: "e.md", OldText: "alpha", NewText: strings.Repeat("x", MaxNoteBytes)}, code: CodeTooLarge, substr: "per note"},
		{name: "unique with context", req: EditRequest{Name: "e.md", OldText: "gamma beta", NewText: "gamma B"}, wantLine: 3, wantNoteAfter: "alpha\nbeta\ngamma B\nbeta\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sp.Edit(tt.req)
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.substr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Line != tt.wantLine {
				t.Errorf("line = %d, want %d", r.Line, tt.wantLine)
			}
			if got := string(mustFile(t, sp, tt.req.Name)); got != tt.wantNoteAfter {
				t.Errorf("note = %q, want %q", got, tt.wantNoteAfter)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "api/v1/auth.md", "auth\n")
	mustWrite(t, sp, "api/keep.md", "keep\n")
	r, err := sp.Delete(DeleteRequest{Name: "api/v1/auth.md"})
	if err != nil || r.Size != 5 || r.Name != "api/v1/auth.md" {
		t.Fatalf("delete = %+v, %v", r, err)
	}
	if _, err := os.Stat(filepath.Join(sp.ProjectDir(), "api", "v1")); !os.IsNotExist(err) {
		t.Errorf("empty folder api/v1 left behind: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sp.ProjectDir(), "api", "keep.md")); err != nil {
		t.Errorf("sibling note gone: %v", err)
	}
	_, err = sp.Delete(DeleteRequest{Name: "api/v1/auth.md"})
	wantCode(t, err, CodeNotFound, "notes_list")
	_, err = sp.Delete(DeleteRequest{Name: "~/never.md"}) // global scope folder does not exist
	wantCode(t, err, CodeNotFound, "notes_list")
	_, err = sp.Delete(DeleteRequest{Name: "/x.md"})
	wantCode(t, err, CodeInvalidName, "absolute")
	if _, err := sp.Read(ReadRequest{Name: "api/v1/auth.md"}); CodeOf(err) != CodeNotFound {
		t.Errorf("read after delete: %v", err)
	}
}

func TestList(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "api/auth.md", "\n\n## Auth tokens  \nmore\n")
	mustWrite(t, sp, "api-notes.md", "dash\n")
	mustWrite(t, sp, "index.md", "# Index\n")
	mustWrite(t, sp, "~/style.md", "Tabs, not spaces.\n")
	mustWrite(t, sp, "long.md", strings.Repeat("é", 100)+"\n")
	// Files that are not notes are not listed.
	os.WriteFile(filepath.Join(sp.ProjectDir(), "readme.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(sp.ProjectDir(), ".tmp-123"), []byte("x"), 0o600)
	os.MkdirAll(filepath.Join(sp.ProjectDir(), ".git"), 0o700)
	os.WriteFile(filepath.Join(sp.ProjectDir(), ".git", "HEAD.md"), []byte("x"), 0o600)

	names := func(r ListResult) []string {
		var out []string
		for _, n := range r.Notes {
			out = append(out, n.Name)
		}
		return out
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"api-notes.md", "api/auth.md", "index.md", "long.md", "~/style.md"}},
		{"api/", []string{"api/auth.md"}},
		{"api", []string{"api-notes.md", "api/auth.md"}},
		{"~/", []string{"~/style.md"}},
		{"~", []string{"~/style.md"}},
		{"zzz", nil},
	}
	for _, tt := range tests {
		r, err := sp.List(ListRequest{Prefix: tt.prefix})
		if err != nil {
			t.Fatalf("list %q: %v", tt.prefix, err)
		}
		if got := names(r); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("list %q = %v, want %v", tt.prefix, got, tt.want)
		}
	}
	r, _ := sp.List(ListRequest{})
	byName := map[string]NoteInfo{}
	for _, n := range r.Notes {
		byName[n.Name] = n
	}
	if got := byName["api/auth.md"]; got.FirstLine != "Auth tokens" || got.Size != 24 || got.Modified.IsZero() {
		t.Errorf("api/auth.md info = %+v", got)
	}
	if got := byName["long.md"].FirstLine; len(got) > FirstLineMax || !strings.HasSuffix(got, "…") {
		t.Errorf("long first line = %q (%d bytes)", got, len(got))
	}
	if r.Project != sp.Root() {
		t.Errorf("project = %q", r.Project)
	}
	_, err := sp.List(ListRequest{Prefix: "../"})
	wantCode(t, err, CodeInvalidName, "..")
	// An empty store lists nothing, not an error.
	empty := newSpace(t)
	if r, err := empty.List(ListRequest{}); err != nil || len(r.Notes) != 0 {
		t.Errorf("empty list = %+v, %v", r, err)
	}
}

func TestLinks(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "real/inside.md", "inside\n")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret\n"), 0o600)
	os.Symlink(outside, filepath.Join(sp.ProjectDir(), "out"))
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(sp.ProjectDir(), "leak.md"))
	os.Symlink(filepath.Join(sp.ProjectDir(), "real"), filepath.Join(sp.ProjectDir(), "alias"))
	os.Symlink(filepath.Join(sp.ProjectDir(), "missing"), filepath.Join(sp.ProjectDir(), "broken"))

	for _, name := range []string{"out/secret.md", "leak.md", "out/new.md"} {
		_, err := sp.Read(ReadRequest{Name: name})
		wantCode(t, err, CodeInvalidName, "outside the notes folder")
		_, err = sp.Write(WriteRequest{Name: name, Content: "pwned"})
		wantCode(t, err, CodeInvalidName, "outside the notes folder")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(b) != "secret\n" {
		t.Errorf("file outside the scope changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.md")); !os.IsNotExist(err) {
		t.Errorf("note created outside the scope")
	}
	_, err := sp.Write(WriteRequest{Name: "broken/x.md", Content: "x"})
	wantCode(t, err, CodeInvalidName, "broken link")
	// A link that stays inside the scope is followed.
	r, err := sp.Read(ReadRequest{Name: "alias/inside.md"})
	if err != nil || r.Content != "inside\n" {
		t.Errorf("read through inner link = %+v, %v", r, err)
	}
}

func TestCallAndTools(t *testing.T) {
	sp := newSpace(t)
	tests := []struct {
		tool, args string
		code       Code
		substr     string
		render     string
	}{
		{tool: ToolWrite, args: `{"name":"a.md","content":"hello\nworld\n"}`, render: "Created a.md (12 B, 2 lines).\n"},
		{tool: ToolRead, args: `{"name":"a.md","from":2}`, render: "a.md (2 lines, showing 2-2)\n2\tworld\n"},
		{tool: ToolEdit, args: `{"name":"a.md","old_text":"world","new_text":"there"}`, render: "Edited a.md at line 2 (now 12 B).\n"},
		{tool: ToolList, args: ``, substr: "a.md\t12 B\t"},
		{tool: ToolList, args: `{"prefix":"~/"}`, render: "No notes.\n"},
		{tool: ToolDelete, args: `{"name":"a.md"}`, render: "Deleted a.md (12 B).\n"},
		{tool: ToolWrite, args: `{"name":"a.md"}`, code: CodeInvalidRequest, substr: `needs the argument "content"`},
		{tool: ToolWrite, args: `{"name":"a.md","content":"x","contents":"y"}`, code: CodeInvalidRequest, substr: "unknown field"},
		{tool: ToolRead, args: `{"name":"a.md","from":"2"}`, code: CodeInvalidRequest, substr: "notes_read arguments"},
		{tool: ToolRead, args: `[1]`, code: CodeInvalidRequest, substr: "JSON object"},
		{tool: "notes_move", args: `{}`, code: CodeInvalidRequest, substr: "unknown notes tool"},
	}
	for _, tt := range tests {
		res, err := sp.Call(tt.tool, json.RawMessage(tt.args))
		if tt.code != "" {
			wantCode(t, err, tt.code, tt.substr)
			continue
		}
		if err != nil {
			t.Fatalf("%s %s: %v", tt.tool, tt.args, err)
		}
		if tt.render != "" && res.Render() != tt.render {
			t.Errorf("%s render = %q, want %q", tt.tool, res.Render(), tt.render)
		}
		if !strings.Contains(res.Render(), tt.substr) {
			t.Errorf("%s render = %q, want it to contain %q", tt.tool, res.Render(), tt.substr)
		}
	}
}

// TestToolSchemasMatchRequests keeps each tool's schema and its request
// struct in step: every json field is a schema property and back.
func TestToolSchemasMatchRequests(t *testing.T) {
	reqs := map[string]any{ToolList: ListRequest{}, ToolRead: ReadRequest{}, ToolWrite: WriteRequest{}, ToolEdit: EditRequest{}, ToolDelete: DeleteRequest{}}
	defs := Tools()
	if len(defs) != len(reqs) {
		t.Fatalf("%d tools, want %d", len(defs), len(reqs))
	}
	for _, d := range defs {
		req, ok := reqs[d.Name]
		if !ok {
			t.Errorf("tool %q has no request type", d.Name)
			continue
		}
		var fields []string
		rt := reflect.TypeOf(req)
		for i := 0; i < rt.NumField(); i++ {
			fields = append(fields, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
		}
		props := d.InputSchema["properties"].(map[string]any)
		var keys []string
		for k := range props {
			keys = append(keys, k)
		}
		if !sameSet(fields, keys) {
			t.Errorf("%s: request fields %v, schema properties %v", d.Name, fields, keys)
		}
		for _, r := range d.Required() {
			if _, ok := props[r]; !ok {
				t.Errorf("%s: required %q is not a property", d.Name, r)
			}
		}
		if d.Description == "" || len(d.Description) > 160 {
			t.Errorf("%s: description is %d bytes; keep it short and present", d.Name, len(d.Description))
		}
		if d.ReadOnly && d.Destructive {
			t.Errorf("%s is both read-only and destructive", d.Name)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Errorf("%s does not marshal: %v", d.Name, err)
		}
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return len(a) == len(b)
}
