package rawread

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reader is one implementation of Read.
type reader func(path string, limit int) ([]byte, int64, time.Time, error)

// implementations is every read this build has: the portable twin always,
// the fast path where it is built (fast_test.go adds it).
var implementations = map[string]reader{"portable": readPortable}

// TestRead runs every case through every implementation, so the fast path
// and its portable twin are held to the same answers.
func TestRead(t *testing.T) {
	const text = "0123456789abcdef"
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) string // returns the path to read
		limit    int
		want     string
		wantSize int64
		wantErr  string // substring; "" when the read must succeed
		notExist bool   // the error must be fs.ErrNotExist
	}{
		{name: "whole file", setup: file(text), want: text, wantSize: 16},
		{name: "limit below the size", setup: file(text), limit: 5, want: "01234", wantSize: 16},
		{name: "limit above the size", setup: file(text), limit: 100, want: text, wantSize: 16},
		{name: "empty file", setup: file(""), want: "", wantSize: 0},
		{name: "a link to a file is followed", setup: func(t *testing.T, dir string) string {
			target := file(text)(t, dir)
			link := filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, want: text, wantSize: 16},
		{name: "missing file", setup: func(_ *testing.T, dir string) string { return filepath.Join(dir, "absent") }, notExist: true},
		{name: "folder refused", setup: func(_ *testing.T, dir string) string { return dir }, wantErr: "not a regular file"},
		{name: "FIFO refused without blocking", setup: fifo, wantErr: "not a regular file"},
	}
	for name, read := range implementations {
		for _, tc := range tests {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				path := tc.setup(t, t.TempDir())
				data, size, mtime, err := read(path, tc.limit)
				switch {
				case tc.notExist:
					if !errors.Is(err, fs.ErrNotExist) {
						t.Fatalf("err = %v, want fs.ErrNotExist", err)
					}
					return
				case tc.wantErr != "":
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
					}
					return
				case err != nil:
					t.Fatal(err)
				}
				if string(data) != tc.want || size != tc.wantSize {
					t.Errorf("read %q size %d, want %q size %d", data, size, tc.want, tc.wantSize)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if !mtime.Equal(fi.ModTime()) || mtime.Location() != time.UTC {
					t.Errorf("mtime %v, want %v in UTC", mtime, fi.ModTime())
				}
			})
		}
	}
}

// TestReadAll: the whole file up to the bound, a refusal past it, never a
// truncated file.
func TestReadAll(t *testing.T) {
	tests := []struct {
		name    string
		content string
		max     int
		tooBig  bool
	}{
		{name: "under the bound", content: "abc", max: 10},
		{name: "exactly the bound", content: "abcdefghij", max: 10},
		{name: "one byte over", content: "abcdefghijk", max: 10, tooBig: true},
		{name: "empty", content: "", max: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := file(tc.content)(t, t.TempDir())
			data, err := ReadAll(path, tc.max)
			var big *TooLargeError
			if tc.tooBig {
				if !errors.As(err, &big) || big.Size != int64(len(tc.content)) || big.Max != int64(tc.max) {
					t.Fatalf("err = %v, want a TooLargeError of %d over %d", err, len(tc.content), tc.max)
				}
				if data != nil {
					t.Errorf("a refused read returned %q", data)
				}
				return
			}
			if err != nil || string(data) != tc.content {
				t.Fatalf("ReadAll = %q, %v, want %q", data, err, tc.content)
			}
		})
	}
}

func file(content string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// BenchmarkRead reads 500 small files of 2 KiB (a boot block's notes) with
// each implementation: the on/off figure that decides whether the fast
// path stays (BENCHMARKS.md).
func BenchmarkRead(b *testing.B) {
	const files, size = 500, 2 << 10
	dir := b.TempDir()
	paths := make([]string, files)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("n%03d.md", i))
		if err := os.WriteFile(paths[i], []byte(strings.Repeat("x", size)), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"fast", "portable"} {
		read, ok := implementations[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range paths {
					if _, _, _, err := read(p, 0); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*files), "ns/file")
		})
	}
}
