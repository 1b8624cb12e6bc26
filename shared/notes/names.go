package notes

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Name limits. They keep names readable in an index line and portable across
// filesystems (most cap one path element at 255 bytes).
const (
	// MaxNameBytes bounds a whole note name (without the "~/" prefix).
	MaxNameBytes = 200
	// MaxDepth bounds how many path elements a name has ("a/b/c.md" is 3).
	// Deeper trees are hard to browse in an index; three or four levels are plenty.
	MaxDepth = 6
	// MaxElementBytes bounds one path element.
	MaxElementBytes = 100
	// NoteExt is the extension every note has: notes are Markdown files.
	NoteExt = ".md"
	// GlobalPrefix marks a name in the global (per-person) scope.
	GlobalPrefix = "~/"
)

// unportable lists characters Windows or macOS filesystems refuse or
// mangle; notes get synced and checked out elsewhere, so names avoid them.
const unportable = `<>:"|?*`

const nameExample = "a good name looks like api/auth.md (project) or ~/style.md (global)"

// Name is a validated note name.
type Name struct {
	// Global is true for the person's global scope ("~/style.md").
	Global bool
	// Rel is the slash-separated path inside the scope, e.g. "api/auth.md".
	Rel string
}

// String returns the name as tools show it: "api/auth.md" or "~/style.md".
func (n Name) String() string {
	if n.Global {
		return GlobalPrefix + n.Rel
	}
	return n.Rel
}

// ParseName validates a note name and says which scope it lives in. A name is
// a relative, slash-separated path ending in ".md"; a "~/" prefix puts it in
// the global scope. Refusals say what was wrong and what a good name looks like.
//
// A name is normalized to Unicode NFC first, so "café.md" typed with a
// combining accent (NFD, as macOS keyboards and file dialogs produce it) and
// with a precomposed "é" are the same note. Characters that make two names
// look alike without being alike (zero-width and bidi formatting
// characters, line separators, non-ASCII spaces) are refused instead, as
// are names Windows reserves (CON, NUL, COM1, …) and elements ending in a
// dot, which Windows strips: a synced notes folder would merge or lose them.
func ParseName(s string) (Name, error) {
	if s == "" {
		return Name{}, refuse(CodeInvalidName, "note name is empty; %s", nameExample)
	}
	if utf8.ValidString(s) {
		s = norm.NFC.String(s)
	}
	var n Name
	rel := s
	if strings.HasPrefix(s, GlobalPrefix) {
		n.Global = true
		rel = s[len(GlobalPrefix):]
	} else if strings.HasPrefix(s, "~") {
		return Name{}, refuse(CodeInvalidName, "note name %q: only \"~/\" may start a name (it means the global scope); %s", s, nameExample)
	}
	if rel == "" {
		return Name{}, refuse(CodeInvalidName, "note name %q has no file name after \"~/\"; %s", s, nameExample)
	}
	if err := checkPath(s, rel, false); err != nil {
		return Name{}, err
	}
	if !strings.HasSuffix(rel, NoteExt) || len(rel) == len(NoteExt) || strings.HasSuffix(rel, "/"+NoteExt) {
		return Name{}, refuse(CodeInvalidName, "note name %q must end in %q after a file name (notes are Markdown files); %s", s, NoteExt, nameExample)
	}
	n.Rel = rel
	return n, nil
}

// checkPath applies the rules shared by names and list prefixes to rel (the
// part after any "~/"); orig is what the caller typed, for messages. A prefix
// may end in "/" and may be empty.
func checkPath(orig, rel string, prefix bool) error {
	if !utf8.ValidString(orig) {
		return refuse(CodeInvalidName, "note name %q is not valid UTF-8; %s", orig, nameExample)
	}
	for i, r := range orig {
		if unicode.IsControl(r) {
			return refuse(CodeInvalidName, "note name %q has a control character (%U) at byte %d; use letters, digits, '-', '_', '.' and '/'; %s", orig, r, i, nameExample)
		}
		if what := lookalike(r); what != "" {
			return refuse(CodeInvalidName, "note name %q has %s (%U) at byte %d, which makes names that look the same differ; use letters, digits, '-', '_', '.', ' ' and '/'; %s", orig, what, r, i, nameExample)
		}
	}
	if strings.ContainsRune(orig, '\\') {
		return refuse(CodeInvalidName, "note name %q contains '\\'; separate folders with '/'; %s", orig, nameExample)
	}
	if i := strings.IndexAny(orig, unportable); i >= 0 {
		return refuse(CodeInvalidName, "note name %q contains %q, which some filesystems forbid (avoid any of %s); %s", orig, orig[i:i+1], unportable, nameExample)
	}
	if strings.HasPrefix(rel, "/") {
		return refuse(CodeInvalidName, "note name %q is an absolute path; names are relative to the notes folder; %s", orig, nameExample)
	}
	if len(rel) > MaxNameBytes {
		return refuse(CodeInvalidName, "note name %q is %d bytes, over the %d-byte limit; use a shorter name", orig, len(rel), MaxNameBytes)
	}
	// The last element of a prefix may be a partial name ("api/con" to
	// find "api/console.md"), so the rules about whole elements skip it.
	partial := prefix && !strings.HasSuffix(rel, "/")
	if prefix {
		rel = strings.TrimSuffix(rel, "/")
		if rel == "" {
			return nil
		}
	}
	elems := strings.Split(rel, "/")
	if len(elems) > MaxDepth {
		return refuse(CodeInvalidName, "note name %q is %d levels deep, over the limit of %d; use fewer folders", orig, len(elems), MaxDepth)
	}
	for i, e := range elems {
		whole := !partial || i < len(elems)-1
		switch {
		case e == "":
			return refuse(CodeInvalidName, "note name %q has an empty path element (\"//\" or a trailing \"/\"); %s", orig, nameExample)
		case e == "." || e == "..":
			return refuse(CodeInvalidName, "note name %q contains %q; names cannot leave or refer to folders relatively; %s", orig, e, nameExample)
		case strings.HasPrefix(e, "."):
			return refuse(CodeInvalidName, "note name %q has an element starting with '.' (%q), which is reserved for the store's own files; %s", orig, e, nameExample)
		case strings.TrimSpace(e) != e:
			return refuse(CodeInvalidName, "note name %q has an element with leading or trailing spaces (%q); %s", orig, e, nameExample)
		case len(e) > MaxElementBytes:
			return refuse(CodeInvalidName, "note name %q has an element of %d bytes, over the %d-byte limit; use a shorter name", orig, len(e), MaxElementBytes)
		case whole && strings.HasSuffix(e, "."):
			return refuse(CodeInvalidName, "note name %q has an element ending in '.' (%q), which Windows strips, so it would clash with %q; %s", orig, e, strings.TrimRight(e, "."), nameExample)
		case whole && windowsReserved(e):
			return refuse(CodeInvalidName, "note name %q has the element %q, a device name Windows reserves with any extension (CON, PRN, AUX, NUL, COM1-9, LPT1-9); %s", orig, e, nameExample)
		}
	}
	return nil
}

// lookalike names the kind of r when r is invisible or passes for another
// character: format characters (zero-width spaces and joiners, bidi
// controls such as U+202E, the byte-order mark, soft hyphens), line and
// paragraph separators, and spaces other than U+0020. It returns "" for
// every other character.
func lookalike(r rune) string {
	switch {
	case r < utf8.RuneSelf:
		return ""
	case unicode.Is(unicode.Cf, r):
		return "an invisible formatting character"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return "a line or paragraph separator"
	case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
		return "a space other than ' '"
	}
	return ""
}

// windowsReserved reports whether a path element is a device name Windows
// reserves: the part before the first dot, ignoring case and trailing
// spaces, is CON, PRN, AUX, NUL, COM0-9 or LPT0-9 (including the
// superscript digits ¹²³). "nul.md" is one; "null.md" and "con-notes.md" are not.
func windowsReserved(e string) bool {
	base, _, _ := strings.Cut(e, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// parsePrefix validates a notes_list prefix. It returns which scopes the
// prefix can match and the prefix inside those scopes.
func parsePrefix(s string) (project, global bool, rel string, err error) {
	if s == "" {
		return true, true, "", nil
	}
	if utf8.ValidString(s) {
		s = norm.NFC.String(s) // names are stored NFC (ParseName)
	}
	if strings.HasPrefix(s, GlobalPrefix) {
		rel = s[len(GlobalPrefix):]
		if err := checkPath(s, rel, true); err != nil {
			return false, false, "", err
		}
		return false, true, rel, nil
	}
	if s == "~" {
		return false, true, "", nil
	}
	if strings.HasPrefix(s, "~") {
		return false, false, "", refuse(CodeInvalidName, "prefix %q: only \"~/\" may start a name (it means the global scope); use a prefix like api/ or ~/", s)
	}
	if err := checkPath(s, s, true); err != nil {
		return false, false, "", err
	}
	return true, false, s, nil
}
