package service_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/shared/history"
)

// uuidLike finds the session id in a transcript's file name (all three
// harnesses end the name with a UUID-shaped id).
var uuidLike = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// realCatalog is a fake catalog of the real recorded transcripts: every
// .jsonl under testdata/transcripts and samples, as its harness lists it.
func realCatalog(t testing.TB) (history.StaticCatalog, []history.Session) {
	t.Helper()
	var all []history.Session
	for _, top := range []string{"testdata/transcripts", "samples"} {
		base := filepath.Join(repoRoot(), top)
		err := filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, _ := filepath.Rel(base, p)
			harness, _, _ := strings.Cut(rel, string(filepath.Separator))
			id := uuidLike.FindString(filepath.Base(p))
			if id == "" {
				return nil
			}
			all = append(all, history.Session{Harness: harness, ID: id, Path: p,
				Updated: time.Date(2026, 12, 2, 12, 0, len(all), 0, time.UTC)})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(all) < 10 {
		t.Fatalf("found only %d recorded transcripts", len(all))
	}
	cat := history.StaticCatalog{Names: builtins.Names(), List: func(harness string) ([]history.Session, error) {
		var out []history.Session
		for _, s := range all {
			if s.Harness == harness {
				out = append(out, s)
			}
		}
		return out, nil
	}}
	return cat, all
}

// FuzzResolve checks that no selector, however hostile, resolves to
// anything but a session of the catalog, that a selector shaped like a
// path is always refused, and that a resolved session matches what the
// selector named (its harness, and its id or an id prefix).
func FuzzResolve(f *testing.F) {
	cat, all := realCatalog(f)
	for _, s := range all {
		f.Add(s.ID)
		f.Add(s.Harness + ":" + s.ID[:8])
	}
	for _, s := range []string{"", "current", "latest", "claude:latest", "pi:", "codex:0", "0", "../../etc/passwd", "/etc/passwd",
		`C:\x`, "~/x", ".hidden", "x.jsonl", "claude:../x", "a\x00b", "claude:\x1b[2J", strings.Repeat("a", 5000), "bogus:1", " latest "} {
		f.Add(s)
	}
	paths := map[string]bool{}
	for _, s := range all {
		paths[s.Path] = true
	}
	current := &all[0]
	f.Fuzz(func(t *testing.T, sel string) {
		got, err := history.Resolve(cat, sel, current)
		trimmed := strings.TrimSpace(sel)
		pathLike := strings.ContainsAny(trimmed, `/\`) || strings.HasPrefix(trimmed, ".") || strings.HasPrefix(trimmed, "~") || strings.HasSuffix(trimmed, ".jsonl")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty refusal")
			}
			return
		}
		if pathLike {
			t.Fatalf("path-like selector %q resolved to %s", sel, got.Path)
		}
		if !paths[got.Path] {
			t.Fatalf("selector %q resolved to %q, which is not in the catalog", sel, got.Path)
		}
		if trimmed == "" || trimmed == history.SelectorCurrent {
			if got.Path != current.Path {
				t.Fatalf("%q resolved to %s, not the current session", sel, got.Path)
			}
			return
		}
		harness, id, hasHarness := strings.Cut(trimmed, ":")
		if !hasHarness {
			id = trimmed
		} else if got.Harness != harness {
			t.Fatalf("%q resolved to a %s session", sel, got.Harness)
		}
		if id != history.SelectorLatest && !strings.HasPrefix(got.ID, id) {
			t.Fatalf("%q resolved to id %q, which it does not name", sel, got.ID)
		}
	})
}
