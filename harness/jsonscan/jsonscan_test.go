package jsonscan

import (
	"encoding/json"
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
