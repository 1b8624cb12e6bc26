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
