package jsonl

import (
	"errors"
	"fmt"
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

// TestFileLines: a File yields the same lines, numbers and offsets whether
// it is read whole or streamed, on every pass, and a pass stops at its
// limit (the second pass reads only the committed bytes).
func TestFileLines(t *testing.T) {
	long := strings.Repeat("y", 2*ReadBufferSize+17) // spans read chunks when streamed
	small := "a\nbb\r\n" + long + "\n{\"torn"
	big := small[:len(small)-len("{\"torn")] + strings.Repeat(strings.Repeat("z", 1023)+"\n", WholeBytes/1024) + "{\"torn"
	tests := []struct {
		name  string
		in    string
		limit int64
	}{
		{name: "whole", in: small, limit: int64(len(small))},
		{name: "whole, committed only", in: small, limit: int64(len(small) - len("{\"torn"))},
		{name: "streamed", in: big, limit: int64(len(big))},
		{name: "streamed, committed only", in: big, limit: int64(len(big) - len("{\"torn"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := readAll(t, NewReader(strings.NewReader(tc.in[:tc.limit])))
			f := NewFile(strings.NewReader(tc.in), int64(len(tc.in)))
			defer f.Release()
			for pass := 1; pass <= 2; pass++ {
				got := readAll(t, f.Lines(tc.limit))
				if len(got) != len(want) {
					t.Fatalf("pass %d: %d lines, want %d", pass, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("pass %d, line %d: %.30q, want %.30q", pass, i+1, got[i], want[i])
					}
				}
			}
		})
	}
}

// readAll renders each line with its number, offset and termination.
func readAll(t *testing.T, lr *Reader) []string {
	t.Helper()
	var out []string
	for {
		line, term, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d@%d %v %s", lr.Line, lr.Off, term, line))
	}
}

// TestSpareBuffers: spare keeps at most keepBuffers buffers, the largest it
// is given, and a decode takes the smallest that fits its file.
func TestSpareBuffers(t *testing.T) {
	spare.Lock()
	saved := spare.bufs
	spare.bufs = nil
	spare.Unlock()
	defer func() { spare.Lock(); spare.bufs = saved; spare.Unlock() }()
	// The fourth replaces the smallest; the last is over WholeBytes.
	for _, c := range []int{1 << 20, 4 << 20, 1 << 20, 2 << 20, 8 << 20} {
		putBuf(make([]byte, c))
	}
	caps := func() (out []int) {
		for _, b := range spare.bufs {
			out = append(out, cap(b))
		}
		return out
	}
	if got := fmt.Sprint(caps()); got != fmt.Sprint([]int{2 << 20, 4 << 20, 1 << 20}) {
		t.Fatalf("kept %v", got)
	}
	if b := getBuf(3 << 20); cap(b) != 4<<20 {
		t.Errorf("3 MiB took a buffer of %d", cap(b))
	}
	if b := getBuf(100); cap(b) != 1<<20 {
		t.Errorf("100 B took a buffer of %d", cap(b))
	}
	if b := getBuf(3 << 20); cap(b) != 4<<20 || len(spare.bufs) != 1 {
		t.Errorf("with none to fit, got %d (kept %d)", cap(b), len(spare.bufs))
	}
}
