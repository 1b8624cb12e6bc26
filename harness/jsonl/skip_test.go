package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLongLineIsSkipped: a line over the bound is reported once, with its
// number and whether it was terminated, and the reader goes on with the
// next line; Off counts the skipped bytes, so offsets after it stay true.
func TestLongLineIsSkipped(t *testing.T) {
	const max = 8
	tests := []struct {
		name, in string
		want     []string // lines, "!N" for a long line N (terminated), "?N" unterminated
	}{
		{"long line in the middle", "a\n0123456789abcdef\nb\n", []string{"a", "!2", "b"}},
		{"long line far over the buffer", "a\n" + strings.Repeat("x", 300) + "\nb", []string{"a", "!2", "b"}},
		{"two long lines", strings.Repeat("x", 20) + "\n" + strings.Repeat("y", 20) + "\nc\n", []string{"!1", "!2", "c"}},
		{"long unterminated last line", "a\n" + strings.Repeat("x", 40), []string{"a", "?2"}},
	}
	for _, tc := range tests {
		for _, src := range []struct {
			name string
			r    func() *Reader
		}{
			{"streamed", func() *Reader {
				return &Reader{src: iotest.HalfReader(strings.NewReader(tc.in)), buf: make([]byte, 4), max: max}
			}},
			{"in memory", func() *Reader {
				return &Reader{buf: []byte(tc.in), w: len(tc.in), eof: true, max: max}
			}},
		} {
			t.Run(tc.name+"/"+src.name, func(t *testing.T) {
				lr := src.r()
				var got []string
				for {
					line, _, err := lr.Next()
					if err == io.EOF {
						break
					}
					var long *LineTooLongError
					switch {
					case errors.As(err, &long):
						mark := "?"
						if long.Terminated {
							mark = "!"
						}
						got = append(got, mark+string(rune('0'+long.Line)))
						if long.Line != lr.Line {
							t.Errorf("error names line %d, reader is at %d", long.Line, lr.Line)
						}
					case err != nil:
						t.Fatal(err)
					default:
						got = append(got, string(line))
					}
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Errorf("got %v, want %v", got, tc.want)
				}
				if lr.Off != int64(len(tc.in)) {
					t.Errorf("Off %d, want %d", lr.Off, len(tc.in))
				}
			})
		}
	}
}
