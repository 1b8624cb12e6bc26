package helper_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
)

const escSID = "22222222-2222-4222-8222-222222222222"

// escapeHeavy is text JSON escaping blows up: quotes, backslashes, control
// characters (six bytes each once escaped) and <>& (six bytes each with
// HTML escaping), with a word to search for.
func escapeHeavy(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "needle %d ", i)
	for b.Len() < n {
		b.WriteString("\"\\\x01\x02<>&\x1f\t")
	}
	return b.String()
}

// writeEscapeTranscript writes a Claude Code transcript of n user prompts
// of escape-heavy text (the last one long) under root and returns root.
func writeEscapeTranscript(t *testing.T, n int) string {
	t.Helper()
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
			size = 60 << 10 // one long address, for history.read
		}
		uuid := fmt.Sprintf("u%d", i)
		rec := map[string]any{"parentUuid": parent, "isSidechain": false, "type": "user", "uuid": uuid,
			"timestamp": fmt.Sprintf("2026-03-01T10:%02d:%02d.000Z", i/60%60, i%60), "sessionId": escSID, "cwd": "/work/proj",
			"version": "2.1.332", "message": map[string]any{"role": "user", "content": escapeHeavy(i, size)}}
		line, err := json.Marshal(rec)
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
	return root
}

// TestHistoryAnswerWithinBound: the helper's whole answer line (text and
// data both, JSON-escaped) stays within history.MaxResponseBytes; it used
// to carry the 32 KiB text and its data twice, 63 to 68 KB.
func TestHistoryAnswerWithinBound(t *testing.T) {
	const n = 120
	root := writeEscapeTranscript(t, n)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache")) // the built-ins' session cache
	svc, err := service.New(&builtins.Local{}, service.WithHome(filepath.Join(home, ".notesoup")),
		service.WithRoots("claude", root), service.WithRoots("pi", t.TempDir()), service.WithRoots("codex", t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	sel := "claude:" + escSID
	tests := []struct {
		name, args  string
		wantEntries bool
	}{
		{name: "newest page", args: `{"session":"` + sel + `","limit":200}`, wantEntries: true},
		{name: "oldest page", args: `{"session":"` + sel + `","oldest":true,"limit":200}`, wantEntries: true},
		{name: "query", args: `{"session":"` + sel + `","query":"needle","limit":200}`, wantEntries: true},
		{name: "read a long address", args: `{"session":"` + sel + `","seq":` + fmt.Sprint(n) + `}`},
		{name: "read it on", args: `{"session":"` + sel + `","seq":` + fmt.Sprint(n) + `,"offset":9000}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op := "history.list"
			if strings.Contains(tc.args, `"seq"`) {
				op = "history.read"
			}
			req := `{"v":1,"op":"` + op + `","args":` + tc.args + `}`
			var out bytes.Buffer
			if err := helper.Serve(context.Background(), svc, strings.NewReader(req), &out); err != nil {
				t.Fatal(err)
			}
			line := bytes.TrimSuffix(out.Bytes(), []byte("\n"))
			var r struct {
				OK     bool `json:"ok"`
				Result struct {
					Text string `json:"text"`
					Data struct {
						Entries []history.Entry `json:"entries"`
						Body    string          `json:"body"`
						Next    int             `json:"next"`
					} `json:"data"`
				} `json:"result"`
			}
			if err := json.Unmarshal(line, &r); err != nil || !r.OK {
				t.Fatalf("answer %.300s (%v)", line, err)
			}
			if len(line) > history.MaxResponseBytes {
				t.Fatalf("answer is %d bytes, over %d", len(line), history.MaxResponseBytes)
			}
			if tc.wantEntries && len(r.Result.Data.Entries) < 5 {
				t.Fatalf("page of %d entries: the bound shrank it to nothing useful", len(r.Result.Data.Entries))
			}
			if !tc.wantEntries && (r.Result.Data.Next == 0 || len(r.Result.Data.Body) < 2000) {
				t.Fatalf("read of %d body bytes, next %d: want a useful page and a next offset", len(r.Result.Data.Body), r.Result.Data.Next)
			}
			t.Logf("%s: %d bytes, %d entries, body %d bytes", tc.name, len(line), len(r.Result.Data.Entries), len(r.Result.Data.Body))
		})
	}
}

// TestNotesReadAnswerHoldsThePageOnce: a notes.read answer gives its page
// once, as text (at most notes' 32 KiB answer); the data carries what code
// needs beside it. It used to repeat the page numbered and verbatim in the
// data, so an escape-heavy page made a 150 KB answer line.
func TestNotesReadAnswerHoldsThePageOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	svc, err := service.New(&builtins.Local{}, service.WithHome(filepath.Join(home, ".notesoup")))
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	var note strings.Builder
	for i := 0; note.Len() < 60<<10; i++ {
		fmt.Fprintf(&note, "%s\n", strings.ReplaceAll(escapeHeavy(i, 60), "\x01\x02\x1f", "")) // no control bytes: a note is text
	}
	call := func(op string, args any) []byte {
		t.Helper()
		req, err := json.Marshal(map[string]any{"v": 1, "op": op, "caller": map[string]any{"cwd": proj}, "args": args})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := helper.Serve(context.Background(), svc, bytes.NewReader(req), &out); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
	}
	if line := call("notes.write", map[string]any{"name": "esc.md", "content": note.String()}); !bytes.Contains(line, []byte(`"ok":true`)) {
		t.Fatalf("write: %.300s", line)
	}
	for _, offset := range []int{0, 20000} {
		line := call("notes.read", map[string]any{"name": "esc.md", "offset": offset})
		var r struct {
			OK     bool `json:"ok"`
			Result struct {
				Text string                     `json:"text"`
				Data map[string]json.RawMessage `json:"data"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &r); err != nil || !r.OK {
			t.Fatalf("offset %d: answer %.300s (%v)", offset, line, err)
		}
		if len(r.Result.Text) > 32<<10 || len(r.Result.Text) < 8<<10 {
			t.Errorf("offset %d: page text of %d bytes, want a useful page within 32 KiB", offset, len(r.Result.Text))
		}
		for _, k := range []string{"text", "content"} {
			if _, ok := r.Result.Data[k]; ok {
				t.Errorf("offset %d: data repeats the page as %q", offset, k)
			}
		}
		for _, k := range []string{"name", "lines", "offset", "next_offset"} {
			if _, ok := r.Result.Data[k]; !ok && !(k == "next_offset" && offset > 0) {
				t.Errorf("offset %d: data lacks %q: %v", offset, k, r.Result.Data)
			}
		}
		enc, _ := json.Marshal(r.Result.Text)
		if len(line) > len(enc)+1024 {
			t.Errorf("offset %d: answer of %d bytes for a page of %d encoded bytes: the page is carried more than once", offset, len(line), len(enc))
		}
	}
}
