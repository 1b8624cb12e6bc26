package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"unicode kept", "naïve 日本 🙂", "naïve 日本 🙂"},
		{"color CSI", "\x1b[31mred\x1b[0m", `\e[31mred\e[0m`},
		{"clear screen", "\x1b[2J\x1b[H", `\e[2J\e[H`},
		{"OSC title BEL", "\x1b]0;pwned\x07", `\e]0;pwned\x07`},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", `\e]8;;http://evil\e\click\e]8;;\e\`},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIC8=\x07", `\e]52;c;cm0gLXJmIC8=\x07`},
		{"DCS", "\x1bPq#0\x1b\\", `\ePq#0\e\`},
		{"carriage return overwrite", "rm -rf /\rls", `rm -rf /\x0dls`},
		{"backspace", "abc\b\b\bxyz", `abc\x08\x08\x08xyz`},
		{"NUL", "a\x00b", `a\x00b`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"C1 OSC", "\u009d0;x\u009c", `\u009d0;x\u009c`},
		{"bidi override", "if x \u202e } \u2066", `if x \u202e } \u2066`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"raw C1 byte", "a\x9bb", `a\x9bb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSanitize: the output never holds a control character a terminal
// acts on (other than newline and tab), is valid UTF-8, and sanitizing is
// stable on text that was already safe.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]8;;u\x07x", "a\rb", "\u009b", "\xff\xfe", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("output is not valid UTF-8: %q", out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || isBidi(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("output keeps control %U: %q", r, out)
			}
		}
		if Sanitize(out) != out {
			t.Fatalf("not stable: %q -> %q", out, Sanitize(out))
		}
		if clean(s) != (out == s) {
			t.Fatalf("clean(%q) = %v but output %q", s, clean(s), out)
		}
	})
}

func BenchmarkSanitizeClean(b *testing.B) {
	s := strings.Repeat("ordinary transcript text with ünïcode\n", 500)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Sanitize(s)
	}
}

// TestJSON: encoded JSON keeps its meaning (it decodes to the same value)
// and holds no raw DEL, C1 control, line separator or bidi override.
// encoding/json alone leaves U+009B and U+202E raw.
func TestJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello, naïve 日本", `"hello, naïve 日本"`},
		{"ESC and C0 (already escaped by encoding/json)", "\x1b]52;c;eA==\x07\r", `"\u001b]52;c;eA==\u0007\r"`},
		{"DEL", "a\x7fb", `"a\u007fb"`},
		{"C1 CSI", "a\u009b31mb", `"a\u009b31mb"`},
		{"C1 OSC", "\u009d0;x\u009c", `"\u009d0;x\u009c"`},
		{"bidi", "x\u202ey\u2066z\u200f", `"x\u202ey\u2066z\u200f"`},
		{"line separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := JSON(enc)
			if string(got) != tt.want {
				t.Errorf("JSON(%s) = %s, want %s", enc, got, tt.want)
			}
			var back string
			if err := json.Unmarshal(got, &back); err != nil || back != tt.in {
				t.Errorf("decodes to %q, %v; want %q", back, err, tt.in)
			}
		})
	}
}

// FuzzJSON: for any value, the safe JSON decodes to what the plain JSON
// does and holds no raw control, line separator or bidi override.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31m", "\u009b", "\u202e", "\u2028", "\x7f", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(enc)
		var a, b map[string]string
		if err := json.Unmarshal(enc, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &b); err != nil || len(a) != len(b) || a[s] != b[s] {
			t.Fatalf("JSON changed the value: %s -> %s (%v)", enc, got, err)
		}
		for _, r := range string(got) {
			if r < 0x20 || r >= 0x7f && r <= 0x9f || isBidi(r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("output keeps control %U: %q", r, got)
			}
		}
	})
}
