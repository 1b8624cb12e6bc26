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

// TestRunAgreesWithGo: the assembly scan and the portable one agree on
// where a string's run stops and on whether it took an escape or a
// non-ASCII byte, for specials, escapes and high bytes at every offset of
// a block and in the tail.
func TestRunAgreesWithGo(t *testing.T) {
	var inputs [][]byte
	for _, ins := range []string{`"`, `\`, "\x00", "\x1f", " ", "\x7f", "\x80", "\xff", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\x`, `\`} {
		for n := 0; n <= 40; n++ {
			for at := 0; at <= n; at++ {
				x := strings.Repeat("x", n)
				b := []byte(x[:at] + ins + x[at:])
				inputs = append(inputs, b)
				if at > 0 {
					c := append([]byte(nil), b...)
					c[at-1] = 0xc3 // a high byte before it
					inputs = append(inputs, c)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(100))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x60)) // printable, mostly plain
			switch r.IntN(40) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1, 2:
				b[i] = '\\'
			}
		}
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		n, esc, high := run(b)
		wn, wesc, whigh := runGo(b)
		if n != wn || esc != wesc || high != whigh {
			t.Fatalf("run(%q) = %d, %v, %v; want %d, %v, %v", b, n, esc, high, wn, wesc, whigh)
		}
	}
}

// TestUnescapeRunAgreesWithGo: the assembly copy-and-translate and the
// portable one write the same bytes and stop at the same place, for
// escapes at every offset of a block and in the tail.
func TestUnescapeRunAgreesWithGo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{`\n`, `\"`, `\\`, `\/`, `\t`, `\u00e9`, `\x`, "é", "plain", "0123456789abcdef", `\`}
	for range 5000 {
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(strings.Repeat("x", r.IntN(20)))
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		src := []byte(sb.String())
		dst, want := make([]byte, len(src)), make([]byte, len(src))
		w, n, high := unescapeRun(dst, src)
		ww, wn, whigh := unescapeRunGo(want, src)
		if w != ww || n != wn || high != whigh || string(dst[:w]) != string(want[:ww]) {
			t.Fatalf("unescapeRun(%q) = %q, %d, %v; want %q, %d, %v", src, dst[:w], n, high, want[:ww], wn, whigh)
		}
	}
}

// TestTextRandomAgreesWithEncodingJSON: strings dense with every kind of
// escape decode exactly as encoding/json decodes them.
func TestTextRandomAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{`\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`, "é", "✓", "\xff", "plain text "}
	for range 5000 {
		var sb strings.Builder
		sb.WriteByte('"')
		for range r.IntN(16) {
			sb.WriteString(strings.Repeat("y", r.IntN(24)))
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		sb.WriteString(`"}`)
		line := sb.String()
		s := &Scanner{B: []byte(line)}
		got, ok := s.Text()
		var std string
		err := json.Unmarshal([]byte(line[:len(line)-1]), &std)
		if !ok || err != nil || got != std {
			t.Fatalf("Text(%q) = %q, %v; encoding/json: %q, %v", line, got, ok, std, err)
		}
	}
}

// TestTrustedAgrees: over bytes already validated, a Trusted scanner
// delimits, skips and decodes every string exactly as the checking one.
func TestTrustedAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`\n`, `\"`, `\\`, `\\\"`, `\/`, `\t`, `\u001b[0m`, `\ud83d\ude00`, `\ud800`, "é", "\xff", `"`, "plain "}
	for range 5000 {
		var sb strings.Builder
		sb.WriteString(`{"k\"ey":"`)
		for range r.IntN(16) {
			sb.WriteString(strings.Repeat("z", r.IntN(24)))
			if p := pieces[r.IntN(len(pieces))]; p != `"` {
				sb.WriteString(p)
			}
		}
		sb.WriteString(`","n":[1,"\\",{"a":"b\"c"}]}`)
		line := []byte(sb.String())
		if !json.Valid(line) {
			t.Fatalf("generated invalid %q", line)
		}
		for _, trusted := range []bool{false, true} {
			var got []string
			s := &Scanner{B: line, Trusted: trusted}
			ok := s.Object(func(key []byte) (bool, bool) {
				got = append(got, string(key))
				if string(key) == "n" {
					return s.Skip(), true
				}
				v, ok := s.Text()
				got = append(got, v)
				return ok, true
			})
			if !ok || s.I != len(line) {
				t.Fatalf("trusted=%v: scan of %q failed at %d", trusted, line, s.I)
			}
			var want map[string]any
			json.Unmarshal(line, &want)
			if len(got) != 3 || got[0] != `k\"ey` || got[1] != want[`k"ey`] {
				t.Fatalf("trusted=%v: %q read %q, want %q", trusted, line, got, want[`k"ey`])
			}
		}
	}
}

// TestTextLongAgrees: long strings, with escapes (surrogate pairs
// included) at every offset around block multiples, decode exactly as
// encoding/json decodes them, trusted or not.
func TestTextLongAgrees(t *testing.T) {
	const chunk = 2048 // a block multiple, as a decoder of long strings might cut them
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "é", "\xff", "x"}
	for shift := 0; shift < 14; shift++ {
		for _, piece := range pieces {
			var sb strings.Builder
			sb.WriteByte('"')
			for sb.Len() < 3*chunk {
				pad := chunk - 1 - (sb.Len()-1)%chunk - shift + 1
				if pad < 0 {
					pad = 0
				}
				sb.WriteString(strings.Repeat("y", pad)) // lands piece across a chunk boundary
				sb.WriteString(piece)
				sb.WriteString(pieces[r.IntN(len(pieces))])
			}
			sb.WriteString(`"`)
			line := sb.String()
			var std string
			if err := json.Unmarshal([]byte(line), &std); err != nil {
				t.Fatal(err)
			}
			for _, trusted := range []bool{false, true} {
				s := &Scanner{B: []byte(line), Trusted: trusted}
				if got, ok := s.Text(); !ok || got != std {
					t.Fatalf("trusted=%v shift %d piece %q: Text differs from encoding/json", trusted, shift, piece)
				}
			}
			if got := Unquote([]byte(line[1 : len(line)-1])); got != std {
				t.Fatalf("shift %d piece %q: Unquote differs from encoding/json", shift, piece)
			}
		}
	}
}

// TestObjectOfGivesUpOnFoldedKeys: an unknown key that encoding/json would
// match to a field case-insensitively makes the scan give up, whatever its
// length in bytes; other unknown keys do not.
func TestObjectOfGivesUpOnFoldedKeys(t *testing.T) {
	for _, tc := range []struct {
		key    string
		giveUp bool
	}{
		{"KIND", true}, {"Kind", true}, {"\u212aind", true}, {"kinds", false}, {"kin", false}, {"other", false}, {"ſum", true},
	} {
		s := &Scanner{B: []byte(`{"` + tc.key + `":1}`)}
		ok := s.ObjectOf([]string{"kind", "sum"}, func(key []byte) (bool, bool) { return s.Skip(), false })
		if ok == tc.giveUp {
			t.Errorf("key %q: scan ok = %v, want %v", tc.key, ok, !tc.giveUp)
		}
	}
}
