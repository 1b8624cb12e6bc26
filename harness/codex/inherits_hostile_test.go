package codex

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/history"
)

// TestForkParentOnlyRegularFilesInsideRoots plants, where a fork's parent
// rollout would be, things that are not a regular file inside the Codex
// roots: a link to a file outside them (its first byte must not leak into
// any message), a link to a copy of the real parent outside them (its rows
// must not be shown), a FIFO (the decode must not wait on it), a folder,
// and a date folder that is a link out of the roots. Each decode shows the
// fork's own rows with the gap notice, as for a missing parent. A regular
// copy of the parent in the same place is inherited, as the control.
func TestForkParentOnlyRegularFilesInsideRoots(t *testing.T) {
	src := filepath.Join(testdataDir, "home", "sessions", "2026", "12", "02")
	childName := "rollout-2026-12-02T19-43-54-" + childID + ".jsonl"
	parentName := "rollout-2026-12-02T19-41-15-" + parentID + ".jsonl"
	child, err := os.ReadFile(filepath.Join(src, childName))
	if err != nil {
		t.Fatal(err)
	}
	parent, err := os.ReadFile(filepath.Join(src, parentName))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "Zsecret bytes outside the roots\n"
	tests := []struct {
		name    string
		plant   func(t *testing.T, day, outside string) // day: the fork's date folder
		inherit bool
	}{
		{name: "regular copy (control)", inherit: true, plant: func(t *testing.T, day, _ string) {
			writeBytes(t, filepath.Join(day, parentName), parent)
		}},
		{name: "link to a file outside the roots", plant: func(t *testing.T, day, outside string) {
			writeBytes(t, filepath.Join(outside, "secret"), []byte(secret))
			link(t, filepath.Join(outside, "secret"), filepath.Join(day, parentName))
		}},
		{name: "link to the parent's copy outside the roots", plant: func(t *testing.T, day, outside string) {
			writeBytes(t, filepath.Join(outside, parentName), parent)
			link(t, filepath.Join(outside, parentName), filepath.Join(day, parentName))
		}},
		{name: "FIFO", plant: func(t *testing.T, day, _ string) {
			if err := syscall.Mkfifo(filepath.Join(day, parentName), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "folder", plant: func(t *testing.T, day, _ string) {
			if err := os.Mkdir(filepath.Join(day, parentName), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "date folder linked out of the roots", plant: func(t *testing.T, day, outside string) {
			writeBytes(t, filepath.Join(outside, "03", parentName), parent)
			link(t, filepath.Join(outside, "03"), filepath.Join(filepath.Dir(day), "03"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, outside := t.TempDir(), t.TempDir()
			day := filepath.Join(home, "sessions", "2026", "12", "02")
			if err := os.MkdirAll(day, 0o700); err != nil {
				t.Fatal(err)
			}
			writeBytes(t, filepath.Join(day, childName), child)
			tc.plant(t, day, outside)
			type result struct {
				events []history.Event
				sum    history.Summary
				err    error
			}
			done := make(chan result, 1)
			go func() {
				var r result
				r.sum, r.err = Decoder{Roots: rootsUnder(home)}.Decode(history.Session{Harness: Name, Path: filepath.Join(day, childName)}, history.DecodeOptions{},
					func(e history.Event) error { r.events = append(r.events, e); return nil })
				done <- r
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(2 * time.Minute): // generous: the decode reads a few KiB
				t.Fatal("the decode is still waiting after 2 minutes (blocked opening the parent?)")
			}
			if r.err != nil {
				t.Fatalf("decode: %v", r.err)
			}
			inherited := 0
			for _, e := range r.events {
				if e.Line == 0 {
					inherited++
				}
				if strings.Contains(e.Text, "secret") {
					t.Errorf("event %d shows the outside file: %q", e.Seq, e.Text)
				}
			}
			if tc.inherit {
				if inherited == 0 || r.sum.Notice != "" {
					t.Fatalf("control: %d inherited events, notice %q; want the parent's rows and no notice", inherited, r.sum.Notice)
				}
				return
			}
			if inherited != 0 {
				t.Errorf("%d events inherited from a parent that is not a regular file inside the roots", inherited)
			}
			if len(r.events) == 0 || !strings.Contains(r.sum.Notice, parentID) {
				t.Errorf("%d events, notice %q; want the fork's own rows and a gap naming %s", len(r.events), r.sum.Notice, parentID)
			}
			for _, n := range r.sum.Notes {
				if strings.Contains(n.Message, "'Z'") || strings.Contains(n.Message, "secret") {
					t.Errorf("note leaks the outside file: %q", n.Message)
				}
			}
		})
	}
}

func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}
