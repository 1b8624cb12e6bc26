package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/contract"
)

// writeSession writes content as the session id under a fresh root and
// returns the root and the session as ListSessions would name it.
func writeSession(t *testing.T, id, content string) (string, contract.Session) {
	t.Helper()
	root := t.TempDir()
	path := filepath.Join(root, id+ext)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, contract.Session{Harness: Name, ID: id, Path: path}
}

// decodeAll decodes a session and collects its events.
func decodeAll(root string, s contract.Session) ([]contract.Event, contract.Summary, error) {
	var evs []contract.Event
	sum, err := Harness{}.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(e contract.Event) error {
		evs = append(evs, e)
		return nil
	})
	return evs, sum, err
}

// brief is what a test checks of an event.
type brief struct {
	seq  int64
	line int
	role contract.Role
	text string
}

func TestDecode(t *testing.T) {
	const (
		u1 = `{"role":"user","text":"add a --json flag","ts":"2026-01-02T15:04:05Z"}`
		a1 = `{"role":"assistant","text":"done","ts":"2026-01-02T15:04:09.5+01:00"}`
		u2 = `{"role":"user","text":"thanks"}`
	)
	tests := []struct {
		name       string
		content    string
		want       []brief
		refuseLine int    // the line a refusal names; 0: no refusal
		refuseSays string // a substring of the refusal's reason
	}{
		{name: "empty file", content: ""},
		{name: "messages in line order", content: u1 + "\n" + a1 + "\n" + u2 + "\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}, {2, 2, contract.RoleAssistant, "done"}, {3, 3, contract.RoleUser, "thanks"}}},
		{name: "blank lines take no seq", content: u1 + "\n\n  \r\n" + a1 + "\r\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}, {2, 4, contract.RoleAssistant, "done"}}},
		{name: "unknown fields are ignored", content: `{"id":7,"role":"user","meta":{"x":[1,2]},"text":"hi"}` + "\n",
			want: []brief{{1, 1, contract.RoleUser, "hi"}}},
		{name: "escapes are decoded", content: `{"role":"user","text":"tab\there \u00e9 \"q\""}` + "\n",
			want: []brief{{1, 1, contract.RoleUser, "tab\there é \"q\""}}},
		{name: "a complete last line without its newline counts", content: u1 + "\n" + a1,
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}, {2, 2, contract.RoleAssistant, "done"}}},
		{name: "a torn last line is left out", content: u1 + "\n" + `{"role":"assistant","text":"hal`,
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}}},
		{name: "a damaged line in the middle is refused", content: u1 + "\n" + `{"role":"assistant","text":"hal` + "\n" + u2 + "\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}}, refuseLine: 2, refuseSays: "not a JSON object"},
		{name: "a damaged last line with its newline is refused", content: u1 + "\n" + "garbage\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}}, refuseLine: 2, refuseSays: "not a JSON object"},
		{name: "a JSON value that is not an object is refused", content: "null\n", refuseLine: 1, refuseSays: "not a JSON object"},
		{name: "an unknown role is refused", content: `{"role":"system","text":"x"}` + "\n", refuseLine: 1, refuseSays: `role "system"`},
		{name: "a missing role is refused", content: `{"text":"x"}` + "\n", refuseLine: 1, refuseSays: `role ""`},
		{name: "a malformed ts is refused", content: u1 + "\n" + `{"role":"user","text":"x","ts":"yesterday"}` + "\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}}, refuseLine: 2, refuseSays: "RFC 3339"},
		{name: "a line over the bound is refused", content: u1 + "\n" + `{"role":"user","text":"` + strings.Repeat("a", maxLineBytes) + `"}` + "\n",
			want: []brief{{1, 1, contract.RoleUser, "add a --json flag"}}, refuseLine: 2, refuseSays: "longer than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, s := writeSession(t, "s1", tc.content)
			evs, sum, err := decodeAll(root, s)
			var got []brief
			for _, e := range evs {
				got = append(got, brief{e.Seq, e.Line, e.Role, e.Text})
				if e.Window != "jsonl:s1:1" || e.Kind != contract.KindMessage {
					t.Errorf("event %d: window %q kind %q, want jsonl:s1:1 message", e.Seq, e.Window, e.Kind)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			if sum.HeadWindow != "jsonl:s1:1" || !sum.HeadKnown || sum.HeadOrdinal != 1 || len(sum.Windows) != 1 {
				t.Errorf("summary %+v, want the one window jsonl:s1:1 as a known head", sum)
			}
			if tc.refuseLine == 0 {
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				return
			}
			var r *contract.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("err %v, want a *contract.Refusal", err)
			}
			if r.Path != s.Path || r.Line != tc.refuseLine || r.Harness != Name || !strings.Contains(r.Reason, tc.refuseSays) {
				t.Errorf("refusal %+v, want %s line %d saying %q", r, s.Path, tc.refuseLine, tc.refuseSays)
			}
		})
	}
}

func TestDecodeTimes(t *testing.T) {
	root, s := writeSession(t, "s1", `{"role":"user","text":"a","ts":"2026-01-02T15:04:09.5+01:00"}`+"\n"+`{"role":"assistant","text":"b"}`+"\n")
	evs, _, err := decodeAll(root, s)
	if err != nil || len(evs) != 2 {
		t.Fatalf("decode: %d events, %v", len(evs), err)
	}
	want := time.Date(2026, 1, 2, 14, 4, 9, 500_000_000, time.UTC)
	if !evs[0].Time.Equal(want) {
		t.Errorf("first event at %v, want %v", evs[0].Time, want)
	}
	if !evs[1].Time.IsZero() {
		t.Errorf("an event without ts has time %v, want zero", evs[1].Time)
	}
}

func TestDecodeStops(t *testing.T) {
	root, s := writeSession(t, "s1", strings.Repeat(`{"role":"user","text":"x"}`+"\n", 5))
	n := 0
	_, err := Harness{}.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(contract.Event) error {
		n++
		if n == 2 {
			return contract.ErrStopped
		}
		return nil
	})
	if !errors.Is(err, contract.ErrStopped) || n != 2 {
		t.Errorf("after stopping at 2: %d events, err %v; want 2 and ErrStopped", n, err)
	}
}

// TestDecodeOpensOnlyItsOwnFiles: a caller may pass any path; the plugin
// reads only regular <id>.jsonl files directly inside its roots.
func TestDecodeOpensOnlyItsOwnFiles(t *testing.T) {
	root, s := writeSession(t, "s1", `{"role":"user","text":"x"}`+"\n")
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(outside, []byte(`{"role":"user","text":"secret"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(root, "sub", "n.jsonl")
	if err := os.MkdirAll(filepath.Dir(nested), 0o700); err != nil || os.WriteFile(nested, []byte(`{"role":"user","text":"x"}`+"\n"), 0o600) != nil {
		t.Fatal("writing the nested file")
	}
	notes := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(notes, []byte(`{"role":"user","text":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "d.jsonl")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, says string }{
		{"outside the roots", outside, "not directly inside"},
		{"a link inside the roots", link, "not a regular file"},
		{"a subdirectory of a root", nested, "not directly inside"},
		{"a dot-dot path", root + "/../" + filepath.Base(root) + "/s1.jsonl", "clean"},
		{"a relative path", "s1.jsonl", "absolute"},
		{"another extension", notes, "not a session file"},
		{"a directory", dir, "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, _, err := decodeAll(root, contract.Session{Harness: Name, ID: s.ID, Path: tc.path})
			var r *contract.Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.says) || len(evs) != 0 {
				t.Errorf("%d events, err %v; want none and a refusal saying %q", len(evs), err, tc.says)
			}
		})
	}
	if evs, _, err := decodeAll(root, s); err != nil || len(evs) != 1 {
		t.Errorf("the session itself: %d events, %v; want 1", len(evs), err)
	}
}
