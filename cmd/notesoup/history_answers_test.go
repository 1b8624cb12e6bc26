//go:build !light

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

const escSID = "33333333-3333-4333-8333-333333333333"

// escapeTranscript writes a Claude Code transcript of n prompts full of
// characters JSON escapes (quotes, backslashes, control characters, <>&),
// the last one 60 KiB long, and returns the root flags that select it.
func escapeTranscript(t *testing.T, n int) []string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	root := t.TempDir()
	dir := filepath.Join(root, "-work-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	parent := any(nil)
	for i := 1; i <= n; i++ {
		size := 400
		if i == n {
			size = 60 << 10
		}
		var text strings.Builder
		fmt.Fprintf(&text, "needle %d ", i)
		for text.Len() < size {
			text.WriteString("\"\\\x01\x02<>&\x1f\t")
		}
		uuid := fmt.Sprintf("u%d", i)
		line, err := json.Marshal(map[string]any{"parentUuid": parent, "isSidechain": false, "type": "user", "uuid": uuid,
			"timestamp": fmt.Sprintf("2026-03-01T10:%02d:%02d.000Z", i/60%60, i%60), "sessionId": escSID, "cwd": "/work/proj",
			"version": "2.1.332", "message": map[string]any{"role": "user", "content": text.String()}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		parent = uuid
	}
	if err := os.WriteFile(filepath.Join(dir, escSID+".jsonl"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	return []string{"--claude-root", root, "--pi-root", empty, "--codex-root", empty}
}

// TestHistoryJSONAnswersBounded: --json answers stay within 32 KiB though
// escaping multiplies the text (pages reached 40 KB and reads 189 KB), and
// the pages are still useful.
func TestHistoryJSONAnswersBounded(t *testing.T) {
	const n = 120
	roots := escapeTranscript(t, n)
	tests := []struct {
		name    string
		args    []string
		entries bool
	}{
		{"newest page", []string{"history", "list", "--json", "--limit", "200"}, true},
		{"oldest page", []string{"history", "list", "--json", "--oldest", "--limit", "200"}, true},
		{"query", []string{"history", "list", "--json", "--query", "needle", "--limit", "200"}, true},
		{"read a long address", []string{"history", "read", "--json", "--seq", fmt.Sprint(n)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append(tc.args, roots...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if len(out) > history.MaxResponseBytes {
				t.Fatalf("--json answer is %d bytes, over %d", len(out), history.MaxResponseBytes)
			}
			var r struct {
				Entries []json.RawMessage `json:"entries"`
				Body    string            `json:"body"`
				Next    int               `json:"next"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if tc.entries && len(r.Entries) < 10 {
				t.Fatalf("page of %d entries: the bound shrank it to nothing useful", len(r.Entries))
			}
			if !tc.entries && (len(r.Body) < 4000 || r.Next == 0) {
				t.Fatalf("read of %d bytes, next %d: want a useful page and a next offset", len(r.Body), r.Next)
			}
			t.Logf("%s: %d bytes", tc.name, len(out))
		})
	}
}

// TestHistoryCLIZeroCursorsAndEmptyJSON: --after 0 pages from the beginning
// (it used to give the newest page), --before 0 is refused, and an empty
// --json page or listing prints [] rather than null.
func TestHistoryCLIZeroCursorsAndEmptyJSON(t *testing.T) {
	roots := escapeTranscript(t, 12)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"after 0 is the first page", []string{"history", "list", "--after", "0", "--limit", "2"}, 0, "#1 claude:", ""},
		{"after 0 pages on", []string{"history", "list", "--after", "0", "--limit", "2"}, 0, "--after 2 --limit 2", ""},
		{"no cursor is the newest page", []string{"history", "list", "--limit", "2"}, 0, "#12 claude:", ""},
		{"before 0 refused", []string{"history", "list", "--before", "0"}, 2, "", "--before 0 names no page (no entry comes before seq 1); omit --before for the newest page, or give --after 0 or --oldest"},
		{"empty page is [], and found nothing", []string{"history", "list", "--json", "--query", "absent words"}, 1, `"entries": []`, ""},
		{"no sessions is []", []string{"history", "sessions", "--json", "--cwd", "/elsewhere"}, 0, "[]", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append(tc.args, roots...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Fatalf("stdout lacks %q: %s", tc.stdout, out)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("stderr lacks %q: %s", tc.stderr, errOut)
			}
			if strings.Contains(out, "null") {
				t.Fatalf("stdout has a null: %s", out)
			}
		})
	}
}
