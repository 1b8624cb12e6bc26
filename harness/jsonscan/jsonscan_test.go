package jsonscan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSkipAgreesWithEncodingJSON: Skip accepts exactly the single JSON
// values encoding/json accepts (the decoders' fast path relies on it, and
// falls back to encoding/json whenever the scanner gives up).
func TestSkipAgreesWithEncodingJSON(t *testing.T) {
	inputs := []string{
		`{"a":1,"b":[true,false,null],"c":"x\u00e9\ud83d\ude00"}`, `"plain"`, `-0.5e+10`, `[]`, `{}`,
		`{"a":1,}`, `[1,]`, `"\x"`, `01`, `{"a"}`, `"unterminated`, `tru`, `1.`, `"\ud800"`,
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	}
	for _, in := range inputs {
		s := &Scanner{B: []byte(in)}
		s.WS()
		got := s.Skip() && func() bool { s.WS(); return s.I == len(s.B) }()
		want := json.Valid([]byte(in))
		if got && !want {
			t.Errorf("Skip accepted %.40q, which encoding/json refuses", in)
		}
		if !got && want && !strings.HasPrefix(in, "[[[") {
			t.Errorf("Skip refused %.40q, which encoding/json accepts", in)
		}
	}
}

func TestTextUnescapes(t *testing.T) {
	tests := map[string]string{`"a\nb"`: "a\nb", `"\u00e9"`: "é", `"\ud83d\ude00"`: "😀", `"\/"`: "/"}
	for in, want := range tests {
		s := &Scanner{B: []byte(in)}
		got, ok := s.Text()
		var std string
		if err := json.Unmarshal([]byte(in), &std); err != nil || !ok || got != want || got != std {
			t.Errorf("Text(%s) = %q, %v; want %q (encoding/json: %q)", in, got, ok, want, std)
		}
	}
}

// TestTextAgreesWithEncodingJSON: Text decodes strings exactly as
// encoding/json does, across the cases the word-at-a-time scan and the
// run-copying unescape treat specially: specials at every offset of an
// eight-byte word, strings ending in the last word of the line, invalid
// UTF-8 beside escapes, lone and paired surrogates, and control bytes.
func TestTextAgreesWithEncodingJSON(t *testing.T) {
	inputs := []string{
		`"0123456\n89abcdef"`, `"01234567\\"`, `"0\"2345678"`, `"0123456789abcdef\t"`, `""`, `"a"`, `"abcdefg"`,
		`"abcdefgh"`, `"ab\u00e9cdefghijklmnop\\qrs"`, "\"caf\xc3\xa9 na\xc3\xafve \\n r\xc3\xa9sum\xc3\xa9\"",
		"\"bad \xff byte\\nafter\"", "\"bad \xc3 cut\\\\\xe2\x82\"", "\"0123456\xff\"", "\"\xf0\x9f\x98\x80 emoji \\u2713\"",
		`"\ud800 lone"`, `"\ud83d\ude00\ud83d"`, `"\udc00\ud800\udc00"`, "\"ctrl \x01 byte\"", "\"0123456789\x1f\"",
		`"unterminated`, `"bad \x escape"`, `"\u12"`, `"` + strings.Repeat(`line \"q\" \t tab `, 20) + `"`,
	}
	for _, in := range inputs {
		var std string
		err := json.Unmarshal([]byte(in), &std)
		tails := []string{""}
		if err == nil { // what follows a valid string must not change it
			tails = append(tails, "}", ",\"k\":1}")
		}
		for _, tail := range tails {
			line := in + tail
			s := &Scanner{B: []byte(line)}
			got, ok := s.Text()
			if ok != (err == nil) || got != std {
				t.Errorf("Text(%.40q) = %q, %v; encoding/json: %q, %v", line, got, ok, std, err)
			}
			if ok && s.I != len(in) {
				t.Errorf("Text(%.40q) stopped at %d, want %d", line, s.I, len(in))
			}
		}
	}
}

// TestPlainRunAgreesWithGo: the assembly run finder and the portable one
// agree on the run's length and on whether it holds a non-ASCII byte, for
// specials and high bytes at every offset of a block and in the tail.
func TestPlainRunAgreesWithGo(t *testing.T) {
	var inputs [][]byte
	for _, special := range []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, 'a'} {
		for n := 0; n <= 40; n++ {
			for at := 0; at < n; at++ {
				b := []byte(strings.Repeat("x", n))
				b[at] = special
				inputs = append(inputs, b)
				if at > 0 {
					c := append([]byte(nil), b...)
					c[at-1] = 0xc3 // a high byte before the special one
					inputs = append(inputs, c)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(100))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x60)) // printable, mostly plain
			if r.IntN(50) == 0 {
				b[i] = byte(r.IntN(256))
			}
		}
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		n, high := plainRun(b)
		wn, whigh := plainRunGo(b)
		if n != wn || high != whigh {
			t.Fatalf("plainRun(%q) = %d, %v; want %d, %v", b, n, high, wn, whigh)
		}
		for i := 0; i < n; i++ {
			if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
				t.Fatalf("plainRun(%q) = %d passes special byte %d", b, n, i)
			}
		}
		if n < len(b) && b[n] >= 0x20 && b[n] != '"' && b[n] != '\\' {
			t.Fatalf("plainRun(%q) = %d stops at plain byte %q", b, n, b[n])
		}
	}
}
