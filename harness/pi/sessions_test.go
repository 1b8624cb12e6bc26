package pi

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestListSessions(t *testing.T) {
	root := t.TempDir()
	flat := t.TempDir()
	long := strings.Repeat("word ", 100)
	multi := `{"type":"session","version":3,"id":"s-multi","timestamp":"2026-12-03T08:00:00.000Z","cwd":"/w/multi"}
{"type":"message","id":"m1","parentId":null,"timestamp":"2026-12-03T08:00:01.000Z","message":{"role":"user","content":"first line\n\n   second\tline ` + long + `"}}
`
	// The prompt comes after more than headLimit bytes: the listing does not
	// read that far, so the title stays empty.
	bigCustom := `{"type":"custom","customType":"x","data":"` + strings.Repeat("y", headLimit) + `","id":"c1","parentId":null,"timestamp":"2026-12-04T08:00:00.500Z"}`
	far := `{"type":"session","version":3,"id":"s-far","timestamp":"2026-12-04T08:00:00.000Z","cwd":"/w/far"}
` + bigCustom + `
{"type":"message","id":"m1","parentId":"c1","timestamp":"2026-12-04T08:00:01.000Z","message":{"role":"user","content":"too far"}}
`
	writeFile(t, filepath.Join(root, "--w-proj--", "2026-12-02T10-00-00-000Z_s1.jsonl"), fixture(t, "v3_tools.jsonl"))
	writeFile(t, filepath.Join(root, "--w-old--", "2025-12-01T00-00-00-000Z_s-v1.jsonl"), fixture(t, "v1_linear.jsonl"))
	writeFile(t, filepath.Join(root, "--w-old--", "torn.jsonl"), fixture(t, "torn_last_line.jsonl"))
	writeFile(t, filepath.Join(root, "--w-x--", "not-a-session.jsonl"), `{"type":"message","id":"x"}`+"\n")
	writeFile(t, filepath.Join(root, "--w-x--", "notes.txt"), "not jsonl\n")
	writeFile(t, filepath.Join(root, "a", "b", "too-deep.jsonl"), fixture(t, "v2_hookmessage.jsonl"))
	writeFile(t, filepath.Join(flat, "multi.jsonl"), multi)
	writeFile(t, filepath.Join(flat, "far.jsonl"), far)

	got, err := listSessions([]string{root, flat, filepath.Join(root, "missing"), root})
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ ID, Cwd, Title, Started, Updated, File string }
	var rows []row
	for _, s := range got {
		if s.Harness != Name || !filepath.IsAbs(s.Path) {
			t.Errorf("session %s: harness %q path %q", s.ID, s.Harness, s.Path)
		}
		fi, err := os.Stat(s.Path)
		if err != nil || fi.Size() != s.Size {
			t.Errorf("session %s: size %d, file %v", s.ID, s.Size, err)
		}
		rows = append(rows, row{s.ID, s.Cwd, s.Title, s.Started.Format(time.RFC3339Nano), s.Updated.Format(time.RFC3339Nano), filepath.Base(s.Path)})
	}
	want := []row{
		{"s-far", "/w/far", "", "2026-12-04T08:00:00Z", "2026-12-04T08:00:01Z", "far.jsonl"},
		{"s-multi", "/w/multi", ("first line second line " + long)[:TitleMax] + "…", "2026-12-03T08:00:00Z", "2026-12-03T08:00:01Z", "multi.jsonl"},
		{"s1", "/w/proj", "Please read hello.txt", "2026-12-02T10:00:00Z", "2026-12-02T10:00:06Z", "2026-12-02T10-00-00-000Z_s1.jsonl"},
		// The torn final line is skipped: updated is the last complete one.
		{"s1", "/w/proj", "committed", "2026-12-02T10:00:00Z", "2026-12-02T10:00:01Z", "torn.jsonl"},
		{"s-v1", "/w/old", "old prompt", "2025-12-01T00:00:00Z", "2025-12-01T00:00:05Z", "2025-12-01T00-00-00-000Z_s-v1.jsonl"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("sessions:\n got %+v\nwant %+v", rows, want)
	}
	if n := len([]rune(rows[1].Title)); n != TitleMax+1 {
		t.Errorf("title is %d runes, want %d (bound plus the cut mark)", n, TitleMax+1)
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  hello\n\n world  ", 20, "hello world"},
		{"abcdef", 3, "abc…"},
		{"ab cd", 3, "ab…"},
		{"ab cd", 5, "ab cd"},
		{"héllo wörld", 7, "héllo w…"},
		{"", 5, ""},
	}
	for _, tc := range tests {
		if got := OneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// BenchmarkListSessions lists 500 generated sessions of about 200 KiB each
// (reported as sessions/op; MB/s counts whole files, of which only the head
// and tail are read).
func BenchmarkListSessions(b *testing.B) {
	root := b.TempDir()
	const n = 500
	var total int64
	for i := 0; i < n; i++ {
		path := filepath.Join(root, fmt.Sprintf("--w-p%d--", i%20), fmt.Sprintf("s%03d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		genSession(b, path, 200<<10)
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
