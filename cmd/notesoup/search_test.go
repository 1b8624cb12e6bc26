//go:build !light

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
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
	if !strings.Contains(text, "Find where we discussed "+res.Needle) || !strings.Contains(text, "more sessions; raise --limit") {
		t.Errorf("human output lacks the match or the more-sessions line:\n%s", text)
	}

	for _, bad := range [][]string{{}, {"--per-session", "0", "x"}, {"x", "--limit", "-1"}} {
		errb.Reset()
		if code := runSearch(bad, &out, &errb); code != 2 {
			t.Errorf("runSearch(%q) = %d, want 2 (%s)", bad, code, errb.String())
		}
	}
}

// TestSearchCommandMasksSecrets: notesoup search, human and --json, shows
// no secret of a transcript, the match near a snippet's edge included; a
// search for the secret finds nothing; the cache on disk holds none; and
// --json prints [] for no sessions. The human output used to mask after
// cutting a snippet and --json not at all.
func TestSearchCommandMasksSecrets(t *testing.T) {
	const (
		tok1 = "ghp_Zx9QwErTyUiOpAsDfGhJkLzXcVbNm1234567"
		tok2 = "ghp_Mn8PqRsTuVwXyZaBcDeFgHiJkLmNoP765432"
	)
	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "claude", "projects", "-tmp-notesoup-record-claude-tools-work", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := func(n int) string { return strings.Repeat("w", n) }
	// "greeting"'s snippet starts inside tok1 (50 runes of lead) and ends
	// inside tok2 (160 runes).
	prompt := "Print " + w(84) + " " + tok1 + " " + w(20) + " greeting " + w(74) + " " + tok2
	text := strings.ReplaceAll(string(data), "Print a greeting", prompt)
	if text == string(data) {
		t.Fatal("sample changed; the test's replacement no longer applies")
	}
	root := t.TempDir()
	dst := filepath.Join(root, "-tmp-work", "0b5e8a61-7c1d-4f3e-9a2b-000000000001.jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	empty, cache := t.TempDir(), t.TempDir()
	roots := []string{"--claude-root", root, "--pi-root", empty, "--codex-root", empty, "--cache-dir", cache}
	leak := func(out string) string {
		for _, tok := range []string{tok1, tok2} {
			hidden := tok[8:] // after "ghp_" and the 4 characters redact keeps
			for i := 0; i+8 <= len(hidden); i++ {
				if strings.Contains(out, hidden[i:i+8]) {
					return hidden[i : i+8]
				}
			}
		}
		return ""
	}
	cases := []struct {
		name  string
		args  []string
		want  string // the output holds it
		check string // and, read as JSON, this many sessions ("" for human output)
	}{
		{"human, edges inside tokens", []string{"greeting"}, "_Zx9Q[REDACTED github token] w", ""},
		{"json, edges inside tokens", []string{"greeting", "--json"}, `"snippet"`, "1"},
		{"json, the token's text", []string{tok1[12:32], "--json"}, `"sessions": []`, "0"},
		{"human, the whole token", []string{tok2}, "no session mentions", ""},
		{"json, no match at all", []string{"zz no such words", "--json"}, `"sessions": []`, "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			want := 0
			if tc.check == "0" || tc.want == "no session mentions" {
				want = 1 // found nothing, as grep says it
			}
			if code := runSearch(append(tc.args, roots...), &out, &errb); code != want {
				t.Fatalf("exit %d, want %d: %s", code, want, errb.String())
			}
			got := out.String() + errb.String()
			// The query is the caller's own text, echoed: judge the rest.
			rest := strings.ReplaceAll(strings.ReplaceAll(got, tc.args[0], ""), strings.ToUpper(tc.args[0]), "")
			if l := leak(rest); l != "" {
				t.Errorf("shows %q of a token:\n%s", l, got)
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, "null") {
				t.Errorf("want %q and no null:\n%s", tc.want, got)
			}
			if tc.check != "" {
				var r struct{ Sessions []json.RawMessage }
				if err := json.Unmarshal(out.Bytes(), &r); err != nil || fmt.Sprint(len(r.Sessions)) != tc.check {
					t.Errorf("%d sessions, want %s (%v)", len(r.Sessions), tc.check, err)
				}
			}
		})
	}
	// Every file of the cache, the index's segments under index/ too.
	files := 0
	err = filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if l := leak(string(b)); l != "" {
			t.Errorf("cache file %s holds %q of a token", path, l)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("no cache written: %v", err)
	}
}

// TestSearchOutWritesOneDocument: the --json document written session by
// session as the search hands them over is byte for byte the one
// writeJSON writes of the whole answer (the first --limit sessions, the
// total of all), escapes made inert included; text output counts what it
// does not show.
func TestSearchOutWritesOneDocument(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	sess := func(id, snip string) search.SessionHits {
		return search.SessionHits{
			Session: history.Session{Harness: "pi", ID: id, Path: "/h/" + id + ".jsonl", Updated: at, Size: 10},
			Count:   2,
			Entries: []history.Entry{{Seq: 3, Role: "user", Time: at, Snippet: snip}},
		}
	}
	all := []search.SessionHits{sess("a", "Oat milk"), sess("b", "oat MILK \u202e\u2028\x7f"), sess("c", "x <oat milk> & \"q\"")}
	for _, c := range []struct {
		name     string
		sessions []search.SessionHits
		o        searchOpts
		shown    []search.SessionHits
	}{
		{"none", nil, searchOpts{json: true, limit: 0}, nil},
		{"all", all, searchOpts{json: true, limit: 0}, all},
		{"a limit", all, searchOpts{json: true, limit: 2}, all[:2]},
		{"exact case", all, searchOpts{json: true, limit: 0, caseSensitive: true, per: 5}, exactCase(slices.Clone(all), "oat MILK", 5)},
	} {
		var got bytes.Buffer
		query := "oat MILK"
		so := &searchOut{w: &got, query: query, o: c.o}
		for _, sh := range c.sessions {
			if err := so.session(sh); err != nil {
				t.Fatal(err)
			}
		}
		res := search.Result{Query: query, Errors: []string{"pi: one file refused"}, Stats: search.Stats{Files: 3}, More: 1}
		if err := so.finish(res); err != nil {
			t.Fatal(err)
		}
		total := len(c.sessions)
		if c.o.caseSensitive {
			total = len(c.shown)
		}
		res.Sessions = append([]search.SessionHits{}, c.shown...)
		if res.Sessions == nil {
			res.Sessions = []search.SessionHits{}
		}
		var want bytes.Buffer
		if err := writeJSON(&want, searchJSON{res, total}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: streamed\n%s\nwhole\n%s", c.name, got.String(), want.String())
		}
		if !json.Valid(got.Bytes()) || bytes.ContainsRune(got.Bytes(), '\u202e') {
			t.Errorf("%s: not one valid, inert document:\n%s", c.name, got.String())
		}
		if so.total != total || so.shown != len(c.shown) {
			t.Errorf("%s: counted %d, showed %d; want %d, %d", c.name, so.total, so.shown, total, len(c.shown))
		}
	}
}
