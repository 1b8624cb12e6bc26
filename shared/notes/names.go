package notes

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
func ParseName(s string) (Name, error) {
	if s == "" {
		return Name{}, refuse(CodeInvalidName, "note name is empty; %s", nameExample)
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
	for _, e := range elems {
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
		}
	}
	return nil
}

// parsePrefix validates a notes_list prefix. It returns which scopes the
// prefix can match and the prefix inside those scopes.
func parsePrefix(s string) (project, global bool, rel string, err error) {
	if s == "" {
		return true, true, "", nil
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
