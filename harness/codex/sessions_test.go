package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestListSessions(t *testing.T) {
	got, err := listSessions(append(homeRoots("home"), filepath.Join(testdataDir, "no-such-dir")))
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Cwd, Title, Started, Updated string }
	var rows []row
	for _, s := range got {
		if s.Harness != Name || !filepath.IsAbs(s.Path) || !strings.HasSuffix(s.Path, "-"+s.ID+".jsonl") {
			t.Errorf("session %s: harness %q path %q", s.ID, s.Harness, s.Path)
		}
		fi, err := os.Stat(s.Path)
		if err != nil || fi.Size() != s.Size {
			t.Errorf("session %s: size %d, file %v", s.ID, s.Size, err)
		}
		rows = append(rows, row{s.ID, s.Cwd, s.Title, s.Started.Format(time.RFC3339Nano), s.Updated.Format(time.RFC3339Nano)})
	}
	want := []row{
		{parentID, "/w/fork", "parent prompt", "2026-12-02T10:41:15Z", "2026-12-02T10:50:00Z"},
		// The legacy fork's title skips the copied AGENTS.md context.
		{legacyFork, "/w/legacy", "Call the echo tool", "2026-12-02T10:47:00Z", "2026-12-02T10:47:01Z"},
		{orphanID, "/w/fork", "orphan fork prompt", "2026-12-02T10:46:00Z", "2026-12-02T10:46:04Z"},
		{grandID, "/w/fork", "grandchild prompt", "2026-12-02T10:45:00Z", "2026-12-02T10:45:01Z"},
		{childID, "/w/fork", "child prompt", "2026-12-02T10:43:54.282Z", "2026-12-02T10:43:56Z"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("sessions:\n got %+v\nwant %+v", rows, want)
	}
}

func TestListSessionsSkipsAndBounds(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	meta := `{"timestamp":"2026-12-05T00:00:00.000Z","type":"session_meta","payload":{"id":"t-big","timestamp":"2026-12-05T00:00:00.000Z","cwd":"/w/big"}}` + "\n"
	filler := `{"timestamp":"2026-12-05T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"` + strings.Repeat("z", headLimit) + `"}]}}` + "\n"
	prompt := `{"timestamp":"2026-12-05T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"beyond the head"}]}}` + "\n"
	write("2026/12/05/rollout-2026-12-05T00-00-00-t-big.jsonl", meta+filler+prompt+`{"timestamp":"2026-12-05T00:00:03.000Z","type":"event_msg","payload":{"type":"task_comp`)
	write("2026/12/05/rollout-2026-12-05T00-00-00-notmeta.jsonl", prompt)
	write("2026/12/05/other.jsonl", meta)
	write("2026/12/05/rollout-empty.jsonl", "")
	got, err := listSessions([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d sessions, want only the rollout with a session_meta: %+v", len(got), got)
	}
	s := got[0]
	// The prompt lies past headLimit: not read, so no title. The torn last
	// line is skipped for the updated time.
	if s.ID != "t-big" || s.Title != "" || s.Updated.Format(time.RFC3339) != "2026-12-05T00:00:02Z" {
		t.Errorf("session = %+v", s)
	}
}

func TestDefaultRoots(t *testing.T) {
	tests := []struct {
		name string
		env  string
		want []string
	}{
		{"default", "", []string{"/home/u/.codex/sessions", "/home/u/.codex/archived_sessions"}},
		{"CODEX_HOME", "/srv/codex/", []string{"/srv/codex/sessions", "/srv/codex/archived_sessions"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := home(func(k string) string {
				if k == envHome {
					return tc.env
				}
				return ""
			}, func() (string, error) { return "/home/u", nil })
			if err != nil {
				t.Fatal(err)
			}
			if got := rootsUnder(h); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("roots = %v, want %v", got, tc.want)
			}
		})
	}
	dir := t.TempDir()
	t.Setenv(envHome, dir)
	got, err := DefaultRoots()
	if err != nil {
		t.Fatal(err)
	}
	if want := rootsUnder(dir); !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultRoots = %v, want %v", got, want)
	}
}

func TestFindRollout(t *testing.T) {
	roots := homeRoots("home")
	for _, id := range []string{parentID, grandID} {
		p, err := findRollout(roots, id)
		if err != nil || !strings.HasSuffix(p, "-"+id+".jsonl") {
			t.Errorf("findRollout(%s) = %q, %v", id, p, err)
		}
	}
	for _, id := range []string{goneID, "", "../" + parentID} {
		if p, err := findRollout(roots, id); err == nil {
			t.Errorf("findRollout(%q) = %q, want not found", id, p)
		}
	}
}

func TestFindRolloutNear(t *testing.T) {
	roots := homeRoots("home")
	day := filepath.Join(testdataDir, "home", "sessions", "2026", "12", "02")
	outside := t.TempDir()
	// A decoy with the parent's id outside the roots is never used.
	decoy := filepath.Join(outside, "rollout-x-"+parentID+".jsonl")
	if err := os.WriteFile(decoy, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, id string
		want    string // base name, "" for not found
	}{
		{day, parentID, "rollout-2026-12-02T19-41-15-" + parentID + ".jsonl"},
		{day, grandID, "rollout-2026-12-02T19-45-00-" + grandID + ".jsonl"}, // in archived_sessions
		{outside, parentID, "rollout-2026-12-02T19-41-15-" + parentID + ".jsonl"},
		{day, goneID, ""},
		{day, "*", ""},
	}
	for _, tc := range tests {
		got, err := findRolloutNear(tc.dir, roots, tc.id)
		if filepath.Base(got) != tc.want && !(tc.want == "" && err != nil) {
			t.Errorf("findRolloutNear(%s, %s) = %q, %v; want %q", tc.dir, tc.id, got, err, tc.want)
		}
		if got != "" && !underAny(filepath.Dir(got), roots) {
			t.Errorf("found %s outside the roots", got)
		}
	}
}

// BenchmarkListSessions lists 500 generated rollouts of about 200 KiB each
// in date directories (MB/s counts whole files, of which only the head and
// tail are read).
func BenchmarkListSessions(b *testing.B) {
	root := b.TempDir()
	const n = 500
	var total int64
	for i := 0; i < n; i++ {
		path := filepath.Join(root, "2026", "12", fmt.Sprintf("%02d", i%28+1), fmt.Sprintf("rollout-2026-12-02T10-00-00-t%03d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		genRollout(b, path, 200<<10)
		fi, _ := os.Stat(path)
		total += fi.Size()
	}
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		got, err := listSessions([]string{root})
		if err != nil || len(got) != n {
			b.Fatalf("listed %d sessions, %v", len(got), err)
		}
	}
}
