//go:build !light

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/testkit/corpus"
)

func TestSearchCommand(t *testing.T) {
	res, err := corpus.Generate(t.TempDir(), corpus.Options{Seed: 4, TotalBytes: 2 << 20, Sessions: 12})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Layout
	roots := []string{"--claude-root", l.Claude, "--pi-root", l.Pi, "--codex-root", l.Codex, "--cache-dir", t.TempDir()}
	want := 0
	for _, f := range res.Files {
		if f.Needle > 0 {
			want++
		}
	}

	var out, errb bytes.Buffer
	if code := runSearch(append([]string{strings.ToUpper(res.Needle), "--json", "--limit", "0"}, roots...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Sessions []struct {
			Session struct{ Harness, ID string }
			Count   int
		}
		TotalSessions int `json:"total_sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out.String())
	}
	if want == 0 || got.TotalSessions != want || len(got.Sessions) != want {
		t.Fatalf("%d sessions (%d listed), the corpus planted the needle in %d", got.TotalSessions, len(got.Sessions), want)
	}

	out.Reset()
	if code := runSearch(append([]string{res.Needle, "--limit", "1"}, roots...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "Find where we discussed "+res.Needle) || !strings.Contains(text, "more session(s)") {
		t.Errorf("human output lacks the match or the more-sessions line:\n%s", text)
	}

	for _, bad := range [][]string{{}, {"--per-session", "0", "x"}, {"a", "b"}} {
		errb.Reset()
		if code := runSearch(bad, &out, &errb); code != 2 {
			t.Errorf("runSearch(%q) = %d, want 2 (%s)", bad, code, errb.String())
		}
	}
}
