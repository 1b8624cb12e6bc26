package service_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/internal/livetest"
	"github.com/notesoup/notesoup/shared/history"
)

// TestClaudeDecodeWhileAppended decodes real Claude Code transcripts through
// the service's plugin host (the claude plugin as a process) while the rest
// of each is appended line by line, with torn last lines: see
// internal/livetest.
func TestClaudeDecodeWhileAppended(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(), "testdata", "transcripts", "claude", "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded Claude transcripts: %v", err)
	}
	root := t.TempDir()
	s := newService(t, map[string]string{"claude": root})
	hz, err := s.Harnesses().Harness(context.Background(), "claude")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f)[:8], func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			if len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1]
			}
			project := filepath.Join(root, "-tmp-"+filepath.Base(filepath.Dir(f)))
			dst := filepath.Join(project, filepath.Base(f))
			if err := os.MkdirAll(project, 0o755); err != nil {
				t.Fatal(err)
			}
			start := len(lines) / 3
			if err := os.WriteFile(dst, bytes.Join(lines[:start], nil), 0o644); err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
			n := livetest.RunAt(t, dst, lines[start:], func(path string) ([]history.Event, error) {
				var evs []history.Event
				_, err := hz.Decode(context.Background(), contract.DecodeRequest{
					Session: history.Session{Harness: "claude", ID: id, Path: path}, Roots: []string{root},
				}, func(ev history.Event) error {
					evs = append(evs, ev)
					return nil
				})
				return evs, err
			})
			t.Logf("%d decodes while appending", n)
		})
	}
}
