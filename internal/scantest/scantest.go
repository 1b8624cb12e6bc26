// Package scantest holds the differential checks of the fast JSON paths
// (harness/jsonscan and its users): whenever a fast path takes a line it
// must decode exactly what encoding/json decodes, and it must never take a
// line encoding/json rejects. Each decoder checks this on table cases, on
// every line the real CLIs recorded, and under fuzzing.
package scantest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

// Agrees asserts the contract for one line: scan's answer, when it takes
// the line, equals json.Unmarshal's into a T. It reports whether scan took
// the line.
func Agrees[T any](t testing.TB, line []byte, scan func([]byte) (T, bool)) bool {
	t.Helper()
	got, ok := scan(line)
	var want T
	err := json.Unmarshal(line, &want)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("scanner took %q, which json.Unmarshal rejects: %v", line, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scanner and json.Unmarshal differ on %q:\n scan %+v\n json %+v", line, got, want)
	}
	return true
}

// EachRecordedLine calls fn with every line of the transcripts the pinned
// CLIs recorded (testdata/transcripts) that match globs, relative to that
// folder, and returns how many lines there were. No match fails the test:
// a check over no lines proves nothing.
func EachRecordedLine(t testing.TB, fn func(line []byte), globs ...string) int {
	t.Helper()
	var paths []string
	for _, g := range globs {
		m, _ := filepath.Glob(filepath.Join(testbin.Root(), "testdata", "transcripts", g))
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatalf("no recorded transcripts match %v under testdata/transcripts", globs)
	}
	lines := 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<25)
		for sc.Scan() {
			fn(sc.Bytes())
			lines++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	return lines
}
