package notes

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/notesoup/notesoup/internal/rawread"
)

// Size limits, enforced with a refusal and never by truncation.
const (
	// MaxNoteBytes bounds one note. A note is something a model re-reads at
	// every boot; past 64 KiB it should be split into several notes.
	MaxNoteBytes = 64 << 10
	// MaxScopeBytes bounds all notes of one scope together, so a runaway
	// loop cannot fill the disk and every boot index stays readable.
	MaxScopeBytes = 4 << 20
	// MaxScopeNotes bounds how many notes one scope holds, for the same reason.
	MaxScopeNotes = 1000
	// FirstLineMax bounds the first line shown by notes_list and the boot index.
	FirstLineMax = 120
	// firstLineProbe is how much of a note List reads to find its first line.
	firstLineProbe = 1024
	// MaxReadAnswerBytes bounds the text of one notes_read answer (its
	// Render): a whole note of MaxNoteBytes, numbered, would not fit a tool
	// answer comfortably, so a longer selection is paged and the answer
	// says the offset to continue from.
	MaxReadAnswerBytes = 32 << 10
	// readFrameReserve is what Render adds around the numbered lines (the
	// header and the continuation footer), kept out of the page.
	readFrameReserve = 512
)

// The limits the code checks; tests lower them to exercise refusals
// without writing megabytes.
var (
	maxScopeBytes int64 = MaxScopeBytes
	maxScopeNotes int64 = MaxScopeNotes
)

// NoteInfo describes one note in a listing.
type NoteInfo struct {
	Name      string    `json:"name"`       // "api/auth.md" or "~/style.md"
	Size      int64     `json:"size"`       // bytes
	Modified  time.Time `json:"modified"`   // last change (file mtime)
	FirstLine string    `json:"first_line"` // first non-blank line, heading marks removed, clipped
}

// ListRequest is the input of notes_list.
type ListRequest struct {
	// Prefix, when set, keeps only names that start with it ("api/", "~/").
	Prefix string `json:"prefix,omitempty"`
}

// ListResult is the output of notes_list: notes sorted by name, project
// scope first, then global.
type ListResult struct {
	Project string     `json:"project"` // the project root the notes belong to
	Notes   []NoteInfo `json:"notes"`
}

// ReadRequest is the input of notes_read.
type ReadRequest struct {
	Name string `json:"name"`
	// From and To select lines, 1-based and inclusive; 0 means the first or
	// last line.
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
	// Offset continues a paged answer: the byte in the note to start at,
	// as a previous answer's NextOffset gave it. It replaces From; an
	// offset inside a character is moved back to that character's start.
	Offset int `json:"offset,omitempty"`
}

// ReadResult is the output of notes_read.
type ReadResult struct {
	Name     string    `json:"name"`
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
	Lines    int       `json:"lines"` // total lines in the note
	From     int       `json:"from"`  // first line returned (0 when the note is empty)
	To       int       `json:"to"`    // last line returned
	// Text is the selected lines, each prefixed by its number and a tab.
	Text string `json:"text"`
	// Content is the selected lines verbatim.
	Content string `json:"content"`
	// Offset is the byte of the note where Content starts (not a line
	// start when a page continues inside a long line).
	Offset int `json:"offset"`
	// NextOffset, when not 0, is where the next page starts: the
	// selection was longer than MaxReadAnswerBytes and was cut there.
	NextOffset int `json:"next_offset,omitempty"`
	// midLine is true when the page starts inside line From (a
	// continuation of a line longer than a page).
	midLine bool
}

// WriteRequest is the input of notes_write.
type WriteRequest struct {
	Name    string `json:"name"`
	Content string `json:"content"`
	// AllowEmpty lets empty (or blank) content replace an existing note.
	// Without it that is refused: it is far more often a lost input (an
	// empty pipe, a missing argument) than a wish to erase the note.
	AllowEmpty bool `json:"allow_empty,omitempty"`
}

// WriteResult is the output of notes_write.
type WriteResult struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	Lines   int    `json:"lines"`
	Created bool   `json:"created"` // false when an existing note was replaced
}

// EditRequest is the input of notes_edit.
type EditRequest struct {
	Name    string `json:"name"`
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

// EditResult is the output of notes_edit.
type EditResult struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	Line int    `json:"line"` // line where the replaced text started
}

// DeleteRequest is the input of notes_delete.
type DeleteRequest struct {
	Name string `json:"name"`
}

// DeleteResult is the output of notes_delete.
type DeleteResult struct {
	Name string `json:"name"`
	Size int64  `json:"size"` // size of the deleted note
}

// List returns the notes of both scopes, optionally under a prefix.
func (sp *Space) List(req ListRequest) (ListResult, error) {
	wantProject, wantGlobal, rel, err := parsePrefix(req.Prefix)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Project: sp.root, Notes: []NoteInfo{}}
	for _, sc := range []struct {
		want bool
		sc   *scope
	}{{wantProject, sp.project}, {wantGlobal, sp.global}} {
		if !sc.want {
			continue
		}
		start := len(res.Notes)
		files, _, err := sc.sc.readNotes(func(n Name) bool { return strings.HasPrefix(n.Rel, rel) }, firstLineProbe, 0, nil)
		if err != nil {
			return ListResult{}, err
		}
		for _, f := range files {
			res.Notes = append(res.Notes, NoteInfo{Name: f.name.String(), Size: f.size, Modified: f.mtime, FirstLine: FirstLine(string(f.data))})
		}
		sortInfos(res.Notes[start:])
	}
	return res, nil
}

// walk calls fn for every note of the scope. Dot files and
// folders (the lock, temporary files, .git) and files not ending in .md are
// not notes and are skipped.
func (sc *scope) walk(fn func(n Name, path string, d fs.DirEntry) error) error {
	return sc.walkTemps(fn, nil)
}

// walkTemps is walk that also reports the temporary files it meets to
// onTemp (when not nil).
func (sc *scope) walkTemps(fn func(n Name, path string, d fs.DirEntry) error, onTemp func(path string)) error {
	root, err := sc.realDir()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ioErr("notes folder "+sc.dir, err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil // a note or folder removed during the walk is simply not listed
		}
		if path == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			if onTemp != nil && strings.HasPrefix(d.Name(), tempPrefix) {
				onTemp(path)
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), NoteExt) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil
		}
		n := Name{Global: sc.global, Rel: filepath.ToSlash(rel)}
		// A file another tool made under a name no note can have (an NFD
		// or look-alike name, a Windows device name) could be listed but
		// never read, written or deleted by that name: it is not a note.
		if p, err := ParseName(n.String()); err != nil || p != n {
			return nil
		}
		return fn(n, path, d)
	})
	if err != nil {
		var ne *Error
		if errors.As(err, &ne) {
			return ne
		}
		return ioErr("list "+sc.dir, err)
	}
	return nil
}

// FirstLine returns the first non-blank line of text with Markdown heading
// marks removed, clipped to FirstLineMax bytes (marked with "…").
func FirstLine(text string) string {
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			return Clip(line, FirstLineMax)
		}
	}
	return ""
}

// Clip shortens s to at most max bytes on a rune boundary, ending it with
// "…" when anything was cut.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ell = "…"
	cut := max - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}

// Read returns a note's text with line numbers, optionally a line range.
// An answer longer than MaxReadAnswerBytes is cut at a line end (inside a
// line only when one line alone is longer) and says where to continue.
func (sp *Space) Read(req ReadRequest) (ReadResult, error) {
	n, err := ParseName(req.Name)
	if err != nil {
		return ReadResult{}, err
	}
	if req.From < 0 || req.To < 0 || req.Offset < 0 {
		return ReadResult{}, refuse(CodeInvalidRequest, "from and to are 1-based line numbers and offset a byte offset; got from=%d to=%d offset=%d", req.From, req.To, req.Offset)
	}
	if req.To != 0 && req.From > req.To {
		return ReadResult{}, refuse(CodeInvalidRequest, "from=%d is after to=%d; give from <= to", req.From, req.To)
	}
	if req.Offset != 0 && req.From != 0 {
		return ReadResult{}, refuse(CodeInvalidRequest, "give from or offset, not both: offset continues a page where the previous answer said")
	}
	path, err := sp.scopeOf(n).path(n)
	if err != nil {
		return ReadResult{}, err
	}
	data, mtime, err := readNote(path, n)
	if err != nil {
		return ReadResult{}, err
	}
	lines := splitLines(string(data))
	res := ReadResult{Name: n.String(), Size: int64(len(data)), Modified: mtime, Lines: len(lines)}
	if len(lines) == 0 {
		if req.From > 1 || req.Offset > 0 {
			return ReadResult{}, refuse(CodeInvalidRequest, "note %s is empty; read it without from, to or offset", n)
		}
		return res, nil
	}
	// starts[i] is the byte where line i+1 starts; starts[len] the end.
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	from, to := req.From, req.To
	if from == 0 {
		from = 1
	}
	if to == 0 || to > len(lines) {
		to = len(lines)
	}
	if from > len(lines) {
		return ReadResult{}, refuse(CodeInvalidRequest, "note %s has %d lines; from=%d is past the end", n, len(lines), from)
	}
	start := starts[from-1]
	if req.Offset > 0 {
		if req.Offset >= len(data) {
			return ReadResult{}, refuse(CodeInvalidRequest, "offset %d is past the end of note %s (%d bytes); read it again without offset", req.Offset, n, len(data))
		}
		start = req.Offset
		for start > 0 && !utf8.RuneStart(data[start]) {
			start--
		}
		// The line holding start: the last line starting at or before it.
		from = sort.SearchInts(starts, start+1)
		if from > to {
			return ReadResult{}, refuse(CodeInvalidRequest, "offset %d is on line %d, after to=%d; give a larger to or none", req.Offset, from, to)
		}
	}
	end, next := pageEnd(data, starts, from, to, start, len(strconv.Itoa(to)))
	last := sort.SearchInts(starts, end) // the line holding the page's last byte
	res.From, res.To, res.Offset, res.NextOffset = from, last, start, next
	res.midLine = start != starts[from-1]
	res.Content = string(data[start:end])
	res.Text = numberLines(splitLines(res.Content), from, len(strconv.Itoa(to)))
	return res, nil
}

// pageEnd returns where the page that starts at byte start (on line from)
// ends: the end of line to when the numbered text fits the page, else the
// end of the last line that fits, or a cut inside the first line when even
// that line alone does not fit. next is where the rest starts, 0 when
// nothing was cut.
func pageEnd(data []byte, starts []int, from, to, start, width int) (end, next int) {
	budget := MaxReadAnswerBytes - readFrameReserve
	used := 0
	for l := from; l <= to; l++ {
		seg := starts[l] - max(start, starts[l-1])
		cost := width + 1 + seg // number, tab, text
		if data[starts[l]-1] != '\n' {
			cost++ // numberLines ends the last line
		}
		if used+cost <= budget {
			used += cost
			continue
		}
		if l > from {
			return starts[l-1], starts[l-1]
		}
		// One line longer than a page: cut it on a character boundary.
		cut := start + budget - width - 2
		for cut > start && !utf8.RuneStart(data[cut]) {
			cut--
		}
		return cut, cut
	}
	return starts[to], 0
}

// readNote reads a note, at most MaxNoteBytes of it: a note larger than
// that (written by another tool: an editor, a sync tool) is refused by
// name, size and path with the fix, and never read whole into memory.
func readNote(path string, n Name) ([]byte, time.Time, error) {
	data, size, mtime, err := rawread.Read(path, MaxNoteBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, refuse(CodeNotFound, "no note named %s; call "+ToolList+" to see the names", n)
	}
	if err != nil {
		return nil, time.Time{}, ioErr("read note "+n.String(), err)
	}
	if size > MaxNoteBytes || len(data) > MaxNoteBytes {
		return nil, time.Time{}, tooLarge(n, max(size, int64(len(data))), path)
	}
	return data, mtime, nil
}

// tooLarge is the refusal for a note over MaxNoteBytes on disk: only
// another tool can have written it, so the fix is outside the notes tools.
func tooLarge(n Name, size int64, path string) *Error {
	return refuse(CodeTooLarge, "note %s is %d bytes (%s), over the %d-byte limit per note, so it is not read; split it into smaller notes or trim it with an editor (the file is %s), or delete it with "+ToolDelete, n, size, HumanSize(size), MaxNoteBytes, path)
}

// splitLines splits text into lines that keep their "\n"; a final newline
// does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func numberLines(lines []string, first, width int) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%*d\t%s", width, first+i, l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// checkContent refuses note text that is not UTF-8 Markdown or is too big.
func checkContent(n Name, what, content string) error {
	if len(content) > MaxNoteBytes {
		return refuse(CodeTooLarge, "note %s would be %d bytes, over the %d-byte limit per note; split it into several notes", n, len(content), MaxNoteBytes)
	}
	if !utf8.ValidString(content) {
		return refuse(CodeInvalidRequest, "%s for note %s is not valid UTF-8; notes are UTF-8 Markdown text", what, n)
	}
	if strings.IndexByte(content, 0) >= 0 {
		return refuse(CodeInvalidRequest, "%s for note %s contains a NUL byte; notes are UTF-8 Markdown text", what, n)
	}
	return nil
}

// checkRoom refuses a write that would take the scope over its limits, and
// sweeps temporary files left by killed writers on the way. It must run
// under the scope lock so that concurrent writers see each other's notes.
func (sc *scope) checkRoom(n Name, path string, newSize int64) error {
	var others []fs.DirEntry
	exists := false
	err := sc.walkTemps(func(m Name, p string, d fs.DirEntry) error {
		if m.Rel == n.Rel {
			exists = true
		} else {
			others = append(others, d)
		}
		return nil
	}, func(tmp string) {
		// Every writer holds the scope lock while its temporary file
		// exists, and we hold it now: any temporary file is left over
		// from a writer that was killed before its rename.
		os.Remove(tmp)
	})
	if err != nil {
		return err
	}
	count := int64(len(others))
	// Sizes cost a stat per note; skip them when even full-size notes
	// could not reach the limit, which is every write to a small scope.
	var total int64
	if count*MaxNoteBytes+newSize > maxScopeBytes {
		for _, d := range others {
			if fi, err := d.Info(); err == nil { // a note deleted since the walk takes no room
				total += fi.Size()
			}
		}
	}
	if total+newSize > maxScopeBytes {
		return refuse(CodeScopeFull, "the %s notes would total %d bytes, over the %d-byte limit per scope; delete or shorten notes first", sc.label(), total+newSize, maxScopeBytes)
	}
	if !exists && count+1 > maxScopeNotes {
		return refuse(CodeScopeFull, "the %s notes already number %d, the limit per scope; merge or delete notes first", sc.label(), count)
	}
	return nil
}

func (sc *scope) label() string {
	if sc.global {
		return "global"
	}
	return "project"
}

// Write creates or replaces a whole note.
func (sp *Space) Write(req WriteRequest) (WriteResult, error) {
	n, err := ParseName(req.Name)
	if err != nil {
		return WriteResult{}, err
	}
	if err := checkContent(n, "content", req.Content); err != nil {
		return WriteResult{}, err
	}
	sc := sp.scopeOf(n)
	unlock, err := sc.lock()
	if err != nil {
		return WriteResult{}, err
	}
	defer unlock()
	path, err := sc.path(n)
	if err != nil {
		return WriteResult{}, err
	}
	if err := sc.checkRoom(n, path, int64(len(req.Content))); err != nil {
		return WriteResult{}, err
	}
	fi, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	if !created && !req.AllowEmpty && strings.TrimSpace(req.Content) == "" && statErr == nil && fi.Size() > 0 {
		return WriteResult{}, refuse(CodeInvalidRequest, "content for note %s is empty, which would erase its %d bytes; to empty it on purpose pass allow_empty=true (CLI: --allow-empty), to remove it use "+ToolDelete, n, fi.Size())
	}
	if err := writeAtomic(path, []byte(req.Content)); err != nil {
		return WriteResult{}, ioErr("write note "+n.String(), err)
	}
	return WriteResult{Name: n.String(), Size: int64(len(req.Content)), Lines: len(splitLines(req.Content)), Created: created}, nil
}

// Edit replaces the one exact occurrence of OldText with NewText. Zero or
// several occurrences are refused with the count and the lines they are on.
func (sp *Space) Edit(req EditRequest) (EditResult, error) {
	n, err := ParseName(req.Name)
	if err != nil {
		return EditResult{}, err
	}
	if req.OldText == "" {
		return EditResult{}, refuse(CodeInvalidRequest, "old_text is empty; copy the exact text to replace from "+ToolRead+" (without line numbers), or use "+ToolWrite+" to replace the whole note")
	}
	if req.OldText == req.NewText {
		return EditResult{}, refuse(CodeInvalidRequest, "new_text equals old_text; nothing would change")
	}
	if err := checkContent(n, "new_text", req.NewText); err != nil {
		return EditResult{}, err
	}
	sc := sp.scopeOf(n)
	unlock, err := sc.lock()
	if err != nil {
		return EditResult{}, err
	}
	defer unlock()
	path, err := sc.path(n)
	if err != nil {
		return EditResult{}, err
	}
	data, _, err := readNote(path, n)
	if err != nil {
		if CodeOf(err) == CodeNotFound {
			return EditResult{}, refuse(CodeNotFound, "no note named %s to edit; create it with "+ToolWrite+" or call "+ToolList+" to see the names", n)
		}
		return EditResult{}, err
	}
	old := []byte(req.OldText)
	idx := bytes.Index(data, old)
	if idx < 0 {
		return EditResult{}, refuse(CodeNoMatch, "old_text occurs 0 times in %s%s; read the note again and copy the text exactly (whitespace included, line numbers excluded)", n, nearMiss(data, req.OldText))
	}
	if c := bytes.Count(data, old); c > 1 {
		return EditResult{}, refuse(CodeAmbiguous, "old_text occurs %d times in %s (at %s); include more surrounding text so it matches once", c, n, matchLines(data, old))
	}
	out := make([]byte, 0, len(data)-len(old)+len(req.NewText))
	out = append(out, data[:idx]...)
	out = append(out, req.NewText...)
	out = append(out, data[idx+len(old):]...)
	if err := checkContent(n, "the edited note", string(out)); err != nil {
		return EditResult{}, err
	}
	if len(out) > len(data) {
		if err := sc.checkRoom(n, path, int64(len(out))); err != nil {
			return EditResult{}, err
		}
	}
	if err := writeAtomic(path, out); err != nil {
		return EditResult{}, ioErr("write note "+n.String(), err)
	}
	return EditResult{Name: n.String(), Size: int64(len(out)), Line: 1 + bytes.Count(data[:idx], []byte("\n"))}, nil
}

// nearMiss points at lines that hold old_text's first line, ignoring
// surrounding whitespace, when old_text as a whole does not match: the
// usual cause is a changed line below it or different indentation.
func nearMiss(data []byte, old string) string {
	const maxHints = 3 // a hint, not a search result
	first := ""
	for _, l := range strings.Split(old, "\n") {
		if first = strings.TrimSpace(l); first != "" {
			break
		}
	}
	if first == "" {
		return ""
	}
	var at []string
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, first) {
			if len(at) == maxHints {
				break
			}
			at = append(at, strconv.Itoa(i+1))
		}
	}
	switch len(at) {
	case 0:
		return ""
	case 1:
		return " (its first line is at line " + at[0] + ": compare the lines after it and the whitespace)"
	}
	return " (its first line is at lines " + strings.Join(at, ", ") + ": compare the lines after it and the whitespace)"
}

// matchLines lists the distinct lines where sub starts in data, at most
// maxMatchLines of them: "line 3" or "lines 3, 9, 14".
func matchLines(data, sub []byte) string {
	const maxMatchLines = 10 // enough to locate them; more is noise
	var out []string
	line, from, last := 1, 0, 0
	more := false
	for {
		i := bytes.Index(data[from:], sub)
		if i < 0 {
			break
		}
		line += bytes.Count(data[from:from+i], []byte("\n"))
		if line != last {
			if len(out) == maxMatchLines {
				more = true
				break
			}
			out = append(out, strconv.Itoa(line))
			last = line
		}
		// Step past the whole match: counts are of non-overlapping matches.
		line += bytes.Count(data[from+i:from+i+len(sub)], []byte("\n"))
		from += i + len(sub)
	}
	s := strings.Join(out, ", ")
	if more {
		s += ", …"
	}
	if len(out) == 1 && !more {
		return "line " + s
	}
	return "lines " + s
}

// Delete removes a note.
func (sp *Space) Delete(req DeleteRequest) (DeleteResult, error) {
	n, err := ParseName(req.Name)
	if err != nil {
		return DeleteResult{}, err
	}
	sc := sp.scopeOf(n)
	if _, err := os.Stat(sc.dir); errors.Is(err, fs.ErrNotExist) {
		return DeleteResult{}, refuse(CodeNotFound, "no note named %s to delete; call "+ToolList+" to see the names", n)
	}
	unlock, err := sc.lock()
	if err != nil {
		return DeleteResult{}, err
	}
	defer unlock()
	if err := sc.refuseLinks(n); err != nil {
		return DeleteResult{}, err
	}
	path, err := sc.path(n)
	if err != nil {
		return DeleteResult{}, err
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DeleteResult{}, refuse(CodeNotFound, "no note named %s to delete; call "+ToolList+" to see the names", n)
	}
	if err != nil {
		return DeleteResult{}, ioErr("delete note "+n.String(), err)
	}
	if err := os.Remove(path); err != nil {
		return DeleteResult{}, ioErr("delete note "+n.String(), err)
	}
	dir := filepath.Dir(path)
	if err := syncDir(dir); err != nil {
		return DeleteResult{}, ioErr("delete note "+n.String(), err)
	}
	if root, err := sc.realDir(); err == nil {
		removeEmptyParents(root, dir)
	}
	return DeleteResult{Name: n.String(), Size: fi.Size()}, nil
}

// refuseLinks refuses to delete through a symbolic link: a note is a
// regular file inside the notes folder, and a link in its place (or in
// place of one of its folders) was made by another tool. Following it
// would delete the note it points to (and prune that note's folder), not
// what the name says; removing the link itself is left to the person.
func (sc *scope) refuseLinks(n Name) error {
	root, err := sc.realDir()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing to delete; path reports it
	}
	if err != nil {
		return ioErr("notes folder "+sc.dir, err)
	}
	elems := strings.Split(n.Rel, "/")
	cur := root
	for i, e := range elems {
		cur = filepath.Join(cur, e)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // missing: path reports it
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		what := "folder"
		if i == len(elems)-1 {
			what = "note name"
		}
		target, _ := os.Readlink(cur)
		return refuse(CodeInvalidName, "cannot delete %s: the %s %q is a symbolic link (to %q), not a regular file or folder of the notes folder; deleting through it would remove what it points to; remove the link itself with rm (%s) if it is not wanted",
			n, what, strings.Join(elems[:i+1], "/"), target, cur)
	}
	return nil
}

// sortInfos orders one scope's notes by name in byte order. (WalkDir's
// order differs: it lists "api/x.md" before "api-x.md".)
func sortInfos(ns []NoteInfo) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
}
