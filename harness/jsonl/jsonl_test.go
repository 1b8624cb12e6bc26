package jsonl

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	type got struct {
		line       string
		terminated bool
	}
	long := strings.Repeat("x", 3*ReadBufferSize) // spans several read chunks
	tests := []struct {
		name    string
		in      string
		max     int
		want    []got
		wantErr error
	}{
		{name: "lines", in: "a\nbb\r\n", max: 10, want: []got{{"a", true}, {"bb", true}}},
		{name: "torn last line", in: "a\n{\"par", max: 10, want: []got{{"a", true}, {`{"par`, false}}},
		{name: "long line assembled", in: long + "\nz\n", max: len(long), want: []got{{long, true}, {"z", true}}},
		{name: "over the bound", in: "ok\n" + long + "\n", max: len(long) - 1, want: []got{{"ok", true}}, wantErr: &LineTooLongError{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lr := NewReaderMax(strings.NewReader(tc.in), tc.max)
			var out []got
			var err error
			for {
				var line []byte
				var term bool
				line, term, err = lr.Next()
				if err != nil {
					break
				}
				out = append(out, got{string(line), term})
			}
			if len(out) != len(tc.want) {
				t.Fatalf("got %d lines, want %d", len(out), len(tc.want))
			}
			for i := range out {
				if out[i] != tc.want[i] {
					t.Errorf("line %d = %.20q %v, want %.20q %v", i+1, out[i].line, out[i].terminated, tc.want[i].line, tc.want[i].terminated)
				}
			}
			var tooLong *LineTooLongError
			switch {
			case tc.wantErr == nil && !errors.Is(err, io.EOF):
				t.Fatalf("err = %v, want EOF", err)
			case tc.wantErr != nil && (!errors.As(err, &tooLong) || tooLong.Line != 2):
				t.Fatalf("err = %v, want line 2 too long", err)
			}
		})
	}
}
