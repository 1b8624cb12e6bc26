package notes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseName(t *testing.T) {
	long := strings.Repeat("a", MaxElementBytes+1) + ".md"
	deep := strings.Repeat("d/", MaxDepth) + "n.md"
	tooLong := strings.Repeat("abcdefghi/", MaxNameBytes/10) + "x.md"
	tests := []struct {
		in      string
		global  bool
		rel     string
		wantErr string // substring of the refusal; "" means accepted
	}{
		{in: "api/auth.md", rel: "api/auth.md"},
		{in: "~/style.md", global: true, rel: "style.md"},
		{in: "~/lang/go.md", global: true, rel: "lang/go.md"},
		{in: "notes with spaces.md", rel: "notes with spaces.md"},
		{in: "ünïcode/日本.md", rel: "ünïcode/日本.md"},
		{in: strings.Repeat("d/", MaxDepth-1) + "n.md", rel: strings.Repeat("d/", MaxDepth-1) + "n.md"},
		{in: "", wantErr: "empty"},
		{in: "/etc/passwd.md", wantErr: "absolute path"},
		{in: "~/", wantErr: "no file name"},
		{in: "~/../x.md", wantErr: "contains \"..\""},
		{in: "../x.md", wantErr: "contains \"..\""},
		{in: "a/../../x.md", wantErr: "contains \"..\""},
		{in: "./x.md", wantErr: "contains \".\""},
		{in: "~user/x.md", wantErr: "only \"~/\""},
		{in: "a//b.md", wantErr: "empty path element"},
		{in: "a/b.md/", wantErr: "empty path element"},
		{in: ".hidden.md", wantErr: "reserved"},
		{in: "a/.git/x.md", wantErr: "reserved"},
		{in: "a\x00b.md", wantErr: "control character"},
		{in: "a\nb.md", wantErr: "control character"},
		{in: "a\x7fb.md", wantErr: "control character"},
		{in: "a\\b.md", wantErr: "separate folders with '/'"},
		{in: "bad\xffname.md", wantErr: "not valid UTF-8"},
		{in: "a:b.md", wantErr: "some filesystems forbid"},
		{in: "say \"hi\".md", wantErr: "some filesystems forbid"},
		{in: "a<b>.md", wantErr: "some filesystems forbid"},
		{in: "notes.txt", wantErr: "must end in \".md\""},
		{in: ".md", wantErr: "reserved"},
		{in: "a/.md", wantErr: "reserved"},
		{in: " lead.md", wantErr: "leading or trailing spaces"},
		{in: long, wantErr: "element of"},
		{in: deep, wantErr: "levels deep"},
		{in: tooLong, wantErr: "byte limit"},
		// Look-alike names (issue #17): invisible or separator characters
		// and Windows device names are refused, not stored as new notes.
		{in: "a\u200bb.md", wantErr: "invisible formatting character (U+200B)"},
		{in: "a\u200db.md", wantErr: "invisible formatting character (U+200D)"},
		{in: "\ufeffa.md", wantErr: "invisible formatting character (U+FEFF)"},
		{in: "evil\u202egnp.md", wantErr: "invisible formatting character (U+202E)"},
		{in: "a\u2066b\u2069.md", wantErr: "U+2066"},
		{in: "a\u2028b.md", wantErr: "line or paragraph separator"},
		{in: "a\u2029b.md", wantErr: "line or paragraph separator"},
		{in: "a\u00a0b.md", wantErr: "a space other than ' '"},
		{in: "a\u3000b.md", wantErr: "a space other than ' '"},
		{in: "a\u0085b.md", wantErr: "control character"},
		{in: "a\u009bb.md", wantErr: "control character"},
		{in: "CON.md", wantErr: "Windows reserves"},
		{in: "nul.md", wantErr: "Windows reserves"},
		{in: "Aux.tar.md", wantErr: "Windows reserves"},
		{in: "com1.md", wantErr: "Windows reserves"},
		{in: "lpt9.md", wantErr: "Windows reserves"},
		{in: "com\u00b9.md", wantErr: "Windows reserves"},
		{in: "prn/x.md", wantErr: "Windows reserves"},
		{in: "~/nul.md", wantErr: "Windows reserves"},
		{in: "dir./x.md", wantErr: "ending in '.'"},
		{in: "dir../x.md", wantErr: "ending in '.'"},
		{in: "x..md", rel: "x..md"},
		{in: "null.md", rel: "null.md"},
		{in: "console.md", rel: "console.md"},
		{in: "com10.md", rel: "com10.md"},
		{in: "con-notes/x.md", rel: "con-notes/x.md"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, err := ParseName(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("ParseName(%q) = %+v, want refusal containing %q", tt.in, n, tt.wantErr)
				}
				if CodeOf(err) != CodeInvalidName {
					t.Errorf("code = %q, want %q", CodeOf(err), CodeInvalidName)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q does not contain %q", err, tt.wantErr)
				}
				// Every name refusal must say what a good name looks like or how to shorten it.
				if !strings.Contains(err.Error(), "good name looks like") && !strings.Contains(err.Error(), "shorter") && !strings.Contains(err.Error(), "fewer folders") {
					t.Errorf("error %q does not show the fix", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseName(%q): %v", tt.in, err)
			}
			if n.Global != tt.global || n.Rel != tt.rel {
				t.Errorf("ParseName(%q) = %+v, want global=%v rel=%q", tt.in, n, tt.global, tt.rel)
			}
			if n.String() != tt.in {
				t.Errorf("String() = %q, want %q", n.String(), tt.in)
			}
		})
	}
}

// TestParseNameNFC: the NFC and NFD spellings of a name are one note, and
// a parsed name is already in its final form (parsing it again changes
// nothing).
func TestParseNameNFC(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"cafe\u0301.md", "caf\u00e9.md"},                        // NFD é -> NFC é
		{"~/re\u0301sume\u0301/a.md", "~/r\u00e9sum\u00e9/a.md"}, // global, in a folder
		{"\u212bngstrom.md", "\u00c5ngstrom.md"},                 // the Angstrom sign is Å
		{"caf\u00e9.md", "caf\u00e9.md"},                         // already NFC
	} {
		n, err := ParseName(tt.in)
		if err != nil {
			t.Fatalf("ParseName(%q): %v", tt.in, err)
		}
		if n.String() != tt.want {
			t.Errorf("ParseName(%q) = %q, want %q", tt.in, n, tt.want)
		}
		if again, err := ParseName(n.String()); err != nil || again != n {
			t.Errorf("ParseName(%q) again = %+v, %v", n, again, err)
		}
	}
	// Through the store: writing the NFD spelling replaces the NFC note
	// instead of creating a second one that looks the same.
	sp := newSpace(t)
	mustWrite(t, sp, "caf\u00e9.md", "one\n")
	res, err := sp.Write(WriteRequest{Name: "cafe\u0301.md", Content: "two\n"})
	if err != nil || res.Created || res.Name != "caf\u00e9.md" {
		t.Fatalf("NFD write = %+v, %v; want the NFC note replaced", res, err)
	}
	l, err := sp.List(ListRequest{})
	if err != nil || len(l.Notes) != 1 {
		t.Fatalf("list = %+v, %v; want one note", l, err)
	}
	if r, err := sp.Read(ReadRequest{Name: "cafe\u0301.md"}); err != nil || r.Content != "two\n" {
		t.Errorf("NFD read = %+v, %v", r, err)
	}
}

// TestWalkSkipsUnnameableFiles: files another tool left under names no
// note can have are not listed (they could never be read by that name).
func TestWalkSkipsUnnameableFiles(t *testing.T) {
	sp := newSpace(t)
	mustWrite(t, sp, "ok.md", "ok\n")
	for _, name := range []string{"cafe\u0301.md", "a\u200bb.md", "CON.md", "dir./x.md"} {
		p := filepath.Join(sp.ProjectDir(), filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := sp.List(ListRequest{})
	if err != nil || len(l.Notes) != 1 || l.Notes[0].Name != "ok.md" {
		t.Fatalf("list = %+v, %v; want only ok.md", l, err)
	}
}

func TestParsePrefix(t *testing.T) {
	tests := []struct {
		in                    string
		project, global, fail bool
		rel                   string
	}{
		{in: "", project: true, global: true},
		{in: "api/", project: true, rel: "api/"},
		{in: "api/au", project: true, rel: "api/au"},
		{in: "~/", global: true},
		{in: "~", global: true},
		{in: "~/lang/", global: true, rel: "lang/"},
		{in: "../", fail: true},
		{in: "/abs", fail: true},
		{in: "~x", fail: true},
		{in: "a\tb", fail: true},
		// A prefix's last element may be part of a name; whole elements
		// follow the name rules, and a prefix is compared in NFC.
		{in: "con", project: true, rel: "con"},
		{in: "notes.", project: true, rel: "notes."},
		{in: "con/", fail: true},
		{in: "dir./", fail: true},
		{in: "a\u200b", fail: true},
		{in: "cafe\u0301/", project: true, rel: "caf\u00e9/"},
	}
	for _, tt := range tests {
		p, g, rel, err := parsePrefix(tt.in)
		if tt.fail {
			if err == nil {
				t.Errorf("parsePrefix(%q) accepted, want refusal", tt.in)
			}
			continue
		}
		if err != nil || p != tt.project || g != tt.global || rel != tt.rel {
			t.Errorf("parsePrefix(%q) = %v %v %q %v, want %v %v %q", tt.in, p, g, rel, err, tt.project, tt.global, tt.rel)
		}
	}
}

func TestSlugAndKey(t *testing.T) {
	tests := []struct{ root, wantPrefix string }{
		{"/home/me/My Project", "my-project-"},
		{"/home/me/notesoup", "notesoup-"},
		{"/", "project-"},
		{"/x/日本", "project-"},
		{"/x/" + strings.Repeat("long", 30), strings.Repeat("long", 10) + "-"},
	}
	for _, tt := range tests {
		k := ProjectKey(tt.root)
		if !strings.HasPrefix(k, tt.wantPrefix) || len(k) != len(tt.wantPrefix)+hashHexChars {
			t.Errorf("ProjectKey(%q) = %q, want %q + %d hex chars", tt.root, k, tt.wantPrefix, hashHexChars)
		}
	}
	if ProjectKey("/a/x") == ProjectKey("/b/x") {
		t.Error("two projects with the same folder name share a key")
	}
}
