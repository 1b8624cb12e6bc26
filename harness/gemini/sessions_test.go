package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestSessionFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	full := "3540d8fe-1111-4222-8333-944455556666"
	main := chat(`{"sessionId":"`+full+`","projectHash":"h","startTime":"2026-12-01T10:00:00.000Z"}`,
		`{"$set":{"messages":[{"id":"c","type":"user","content":[{"text":"<session_context>x</session_context>"}]}]}}`,
		user("u1", `fix   the\nbuild`), `{"$set":{"lastUpdated":"2026-12-01T11:00:00.000Z"}}`)
	write("proj/.project_root", "/home/u/proj\n")
	write("proj/chats/session-2026-12-01T10-00-3540d8fe.jsonl", main)
	write("proj/chats/"+full+"/sub-agent-1.jsonl", chat(`{"sessionId":"sub-agent-1","projectHash":"h","kind":"subagent"}`, user("s1", "subtask")))
	write("proj/chats/session-2026-12-01T10-00-notachat.jsonl", "garbage\n")
	write("proj/logs.jsonl", chat(meta))                                      // not in chats/
	write("proj/tool-outputs/session-x/session-a-12345678.jsonl", chat(meta)) // not in chats/
	write("proj/chats/checkpoint.json", "{}")                                 // not a chat name
	write("proj/chats/bad id!.jsonl", chat(meta))                             // not an id
	if err := os.Symlink(filepath.Join(root, "proj/chats/session-2026-12-01T10-00-3540d8fe.jsonl"), filepath.Join(root, "proj/chats/session-2026-12-01T10-01-99999999.jsonl")); err != nil {
		t.Skip("no symbolic links here:", err)
	}

	ss, err := SessionFiles([]string{root}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ss {
		rel, _ := filepath.Rel(root, s.Path)
		got = append(got, s.ID+" "+rel)
	}
	sort.Strings(got)
	want := []string{"3540d8fe proj/chats/session-2026-12-01T10-00-3540d8fe.jsonl",
		"notachat proj/chats/session-2026-12-01T10-00-notachat.jsonl",
		"sub-agent-1 proj/chats/" + full + "/sub-agent-1.jsonl"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("SessionFiles:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A selector's whole id narrows to the files named for its start.
	if ss, _ := SessionFiles([]string{root}, full); len(ss) != 1 || ss[0].ID != "3540d8fe" {
		t.Fatalf("SessionFiles(%s) = %+v", full, ss)
	}

	s, ok, err := Describe(filepath.Join(root, "proj/chats/session-2026-12-01T10-00-3540d8fe.jsonl"))
	if !ok || err != nil || s.ID != full || s.Cwd != "/home/u/proj" || s.Title != "fix the build" ||
		!s.Started.Equal(parseTime("2026-12-01T10:00:00.000Z")) || !s.Updated.Equal(parseTime("2026-12-01T11:00:00.000Z")) {
		t.Fatalf("Describe = %+v, %v, %v", s, ok, err)
	}
	if s, ok, _ := Describe(filepath.Join(root, "proj/chats/"+full+"/sub-agent-1.jsonl")); !ok || s.ID != "sub-agent-1" || s.Title != "subtask" || s.Cwd != "/home/u/proj" {
		t.Fatalf("Describe subagent = %+v, %v", s, ok)
	}
	for _, bad := range []string{"proj/chats/session-2026-12-01T10-00-notachat.jsonl", "proj/chats/session-2026-12-01T10-01-99999999.jsonl"} {
		if s, ok, _ := Describe(filepath.Join(root, bad)); ok {
			t.Errorf("Describe(%s) = %+v; want it left out", bad, s)
		}
	}
}

func TestHome(t *testing.T) {
	noHome := func() (string, error) { return "", errors.New("no home") }
	for _, tc := range []struct {
		env  string
		user func() (string, error)
		want string
		err  bool
	}{
		{"/x/cli-home", noHome, "/x/cli-home/.gemini", false},
		{"", func() (string, error) { return "/home/u", nil }, "/home/u/.gemini", false},
		{"", noHome, "", true},
	} {
		got, err := home(func(string) string { return tc.env }, tc.user)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("home(%q) = %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}
