package notes

import (
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
