package copilot

import (
	"os"
	"path/filepath"
	"testing"
)

// write creates path (and its folder) holding data.
func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSessionFiles: only <root>/<id>/events.jsonl is a session, named for
// its folder; ids filter by prefix; other files, deeper files, links and
// folders whose names cannot be ids are left out.
func TestSessionFiles(t *testing.T) {
	root := t.TempDir()
	body := session(start, user("u1", "hi"))
	write(t, filepath.Join(root, "aaaa-1", eventsFile), body)
	write(t, filepath.Join(root, "aaaa-2", eventsFile), body)
	write(t, filepath.Join(root, "bbbb-1", eventsFile), body)
	write(t, filepath.Join(root, "bbbb-1", workspaceFile), "id: bbbb-1\n")
	write(t, filepath.Join(root, "cccc", "files", eventsFile), body)          // too deep
	write(t, filepath.Join(root, "dddd", "other.jsonl"), body)                // not the event log
	write(t, filepath.Join(root, ".session-operation-locks", eventsFile), "") // not an id
	write(t, filepath.Join(root, "bad id", eventsFile), body)                 // not an id
	if err := os.MkdirAll(filepath.Join(root, "eeee"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "aaaa-1", eventsFile), filepath.Join(root, "eeee", eventsFile)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"aaaa-1", "aaaa-2", "bbbb-1"}},
		{"aaaa", []string{"aaaa-1", "aaaa-2"}},
		{"bbbb-1", []string{"bbbb-1"}},
		{"zz", nil},
	} {
		ss, err := SessionFiles([]string{root, filepath.Join(root, "missing")}, tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range ss {
			if s.Harness != Name || s.Path != filepath.Join(root, s.ID, eventsFile) {
				t.Errorf("listed %+v", s)
			}
			got = append(got, s.ID)
		}
		if len(got) != len(tc.want) || (len(got) > 0 && filepath.Join(got...) != filepath.Join(tc.want...)) {
			t.Errorf("prefix %q: ids %v, want %v", tc.prefix, got, tc.want)
		}
	}
}

// TestDescribe: the title and folder come from workspace.yaml when it has
// them, else from session.start and the first prompt; a broken or linked
// workspace.yaml is not read; a file that is not a Copilot session is not
// described.
func TestDescribe(t *testing.T) {
	root := t.TempDir()
	body := session(start, ev("sys", "system.message", `{"content":"system prompt"}`), user("u1", "fix the\nbug"), said("a1", "ok"))
	tests := []struct {
		name, workspace, body string
		ok                    bool
		cwd, title            string
	}{
		{"workspace.yaml names it", "id: s\ncwd: /home/me/proj\nname: Fix the bug\nsummary_count: 0\n", body, true, "/home/me/proj", "Fix the bug"},
		{"no workspace.yaml", "", body, true, "/w", "fix the bug"},
		{"a workspace.yaml that is not YAML", "cwd: [unclosed\n", body, true, "/w", "fix the bug"},
		{"a relative cwd is not taken", "cwd: proj\nname: \n", body, true, "/w", "fix the bug"},
		{"not a Copilot session", "", "not json\n" + body, false, "", ""},
		{"an empty file", "", "", false, "", ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, "s-"+string(rune('a'+i)))
			write(t, filepath.Join(dir, eventsFile), tc.body)
			if tc.workspace != "" {
				write(t, filepath.Join(dir, workspaceFile), tc.workspace)
			}
			s, ok, err := Describe(filepath.Join(dir, eventsFile))
			if err != nil || ok != tc.ok {
				t.Fatalf("Describe: ok %v err %v, want ok %v", ok, err, tc.ok)
			}
			if !ok {
				return
			}
			if s.ID != filepath.Base(dir) || s.Cwd != tc.cwd || s.Title != tc.title || s.Started.IsZero() || s.Updated.Before(s.Started) {
				t.Errorf("Describe = %+v; want cwd %q title %q", s, tc.cwd, tc.title)
			}
		})
	}
	// A workspace.yaml that is a link (to a file outside the roots) is not
	// followed, and one over the bound is not read.
	for _, tc := range []struct{ name string }{{"link"}, {"big"}} {
		dir := filepath.Join(root, "x-"+tc.name)
		write(t, filepath.Join(dir, eventsFile), body)
		outside := filepath.Join(t.TempDir(), "secret.yaml")
		write(t, outside, "cwd: /etc\nname: secret\n")
		if tc.name == "link" {
			if err := os.Symlink(outside, filepath.Join(dir, workspaceFile)); err != nil {
				t.Fatal(err)
			}
		} else {
			write(t, filepath.Join(dir, workspaceFile), "name: huge\ncwd: /etc\n# "+string(make([]byte, workspaceLimit))+"\n")
		}
		s, ok, _ := Describe(filepath.Join(dir, eventsFile))
		if !ok || s.Title != "fix the bug" || s.Cwd != "/w" {
			t.Errorf("%s workspace.yaml: %+v", tc.name, s)
		}
	}
}

// TestHome: COPILOT_HOME, else ~/.copilot.
func TestHome(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	userHome := func() (string, error) { return "/home/me", nil }
	if h, _ := home(getenv, userHome); h != "/home/me/.copilot" {
		t.Errorf("home = %s", h)
	}
	env[envHome] = "/state/copilot/"
	if h, _ := home(getenv, userHome); h != "/state/copilot" {
		t.Errorf("home with %s = %s", envHome, h)
	}
}
