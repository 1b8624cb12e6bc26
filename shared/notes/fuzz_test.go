package notes

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzParseName checks the name rules' promise: an accepted name stays
// inside its scope folder, ends in .md, and carries no control characters.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{"api/auth.md", "~/style.md", "../x.md", "a/./b.md", "~/../../etc/passwd.md", "a\x00.md", "/abs.md", "a//b.md", ".git/x.md", "cafe\u0301.md", "a\u202eb.md", "CON.md", "dir./x.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseName(s)
		if err != nil {
			if CodeOf(err) != CodeInvalidName {
				t.Fatalf("ParseName(%q) refused with code %q", s, CodeOf(err))
			}
			return
		}
		root := "/scope"
		p := filepath.Join(root, filepath.FromSlash(n.Rel))
		if !within(root, p) || p == root {
			t.Fatalf("ParseName(%q) accepted a name outside the scope: %s", s, p)
		}
		if !strings.HasSuffix(n.Rel, NoteExt) || !utf8.ValidString(s) || len(n.Rel) > MaxNameBytes {
			t.Fatalf("ParseName(%q) accepted %+v", s, n)
		}
		if strings.IndexFunc(s, unicode.IsControl) >= 0 {
			t.Fatalf("ParseName(%q) accepted a control character", s)
		}
		for _, e := range strings.Split(n.Rel, "/") {
			if e == "" || strings.HasPrefix(e, ".") {
				t.Fatalf("ParseName(%q) accepted element %q", s, e)
			}
		}
		if n.String() != norm.NFC.String(s) {
			t.Fatalf("ParseName(%q).String() = %q, want its NFC form", s, n.String())
		}
		if again, err := ParseName(n.String()); err != nil || again != n {
			t.Fatalf("ParseName(%q) = %+v, but parsing that again gives %+v, %v", s, n, again, err)
		}
		for _, r := range n.Rel {
			if lookalike(r) != "" {
				t.Fatalf("ParseName(%q) accepted the look-alike character %U", s, r)
			}
		}
	})
}
