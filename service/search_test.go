package service_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/testkit/corpus"
)

// unreachable is the built-ins plus a harness that cannot be started.
type unreachable struct{ builtins.Local }

func (u *unreachable) Names() []string { return append(u.Local.Names(), "gone") }

func (u *unreachable) Harness(ctx context.Context, name string) (contract.Harness, error) {
	if name == "gone" {
		return nil, fmt.Errorf("harness %q: the plugin would not start", name)
	}
	return u.Local.Harness(ctx, name)
}

// TestSearchEveryHarness searches one corpus through the plugin host
// (every harness a subprocess, so no Inheritor: a fork's files are decoded)
// and in-process (forks found through Inherits), and finds the same
// sessions either way, a fork by the text it inherits included. A harness
// that cannot be reached is named, and the others are still searched.
func TestSearchEveryHarness(t *testing.T) {
	res, err := corpus.Generate(t.TempDir(), corpus.Options{Seed: 11, TotalBytes: 3 << 20, Sessions: 40})
	if err != nil {
		t.Fatal(err)
	}
	// A marker in the first user message of a Codex fork's parent, in the
	// part the fork inherits (same length: offsets stay valid).
	const marker = "zz-inherited-marker"
	var fork, parent corpus.File
	for _, f := range res.Files {
		if f.Harness == corpus.Codex && f.ForkOf != "" {
			fork = f
		}
	}
	for _, f := range res.Files {
		if fork.ForkOf != "" && f.ID == fork.ForkOf {
			parent = f
		}
	}
	if parent.Path == "" {
		t.Fatal("the corpus has no Codex fork with its parent")
	}
	b, err := os.ReadFile(parent.Path)
	if err != nil {
		t.Fatal(err)
	}
	const user = `"role":"user","content":[{"type":"input_text","text":"`
	at := strings.Index(string(b), user)
	if at < 0 {
		t.Fatal("no user message in the parent")
	}
	copy(b[at+len(user):], marker)
	if err := os.WriteFile(parent.Path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	l := res.Layout
	dirs := map[string]string{"claude": l.Claude, "pi": l.Pi, "codex": l.Codex}
	var opts []service.Option
	for h, d := range dirs {
		opts = append(opts, service.WithRoots(h, d))
	}
	local := func(h service.Harnesses) *service.Service {
		s, err := service.New(h, append(opts, service.WithHome(filepath.Join(t.TempDir(), "home")))...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	services := []struct {
		name string
		svc  *service.Service
	}{
		{"plugin host", newService(t, dirs)},
		{"in-process", local(&builtins.Local{})},
		{"one unreachable", local(&unreachable{})},
	}
	planted := 0
	for _, f := range res.Files {
		if f.Needle > 0 {
			planted++
		}
	}
	queries := []struct {
		q    string
		want func(map[string]int) error
	}{
		{res.Needle, func(got map[string]int) error {
			if len(got) != planted {
				return fmt.Errorf("%d sessions, the corpus planted the needle in %d", len(got), planted)
			}
			return nil
		}},
		{strings.ToUpper(marker), func(got map[string]int) error {
			if got[parent.Path] != 1 || got[fork.Path] != 1 {
				return fmt.Errorf("parent %d, fork %d matches; want 1 and 1", got[parent.Path], got[fork.Path])
			}
			return nil
		}},
	}
	for _, q := range queries {
		var first map[string]int
		for _, s := range services {
			r, err := s.svc.Search(context.Background(), q.q, service.SearchOptions{CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			wantErrs := 0
			if s.name == "one unreachable" {
				wantErrs = 1
			}
			if len(r.Errors) != wantErrs || wantErrs == 1 && !strings.Contains(r.Errors[0], "gone") {
				t.Errorf("%s, %q: errors %v", s.name, q.q, r.Errors)
			}
			if r.Stats.Files != len(res.Files) {
				t.Errorf("%s, %q: searched %d files of %d", s.name, q.q, r.Stats.Files, len(res.Files))
			}
			got := map[string]int{}
			harnesses := map[string]bool{}
			for _, h := range r.Sessions {
				got[h.Session.Path] = h.Count
				harnesses[h.Session.Harness] = true
			}
			if err := q.want(got); err != nil {
				t.Errorf("%s, %q: %v", s.name, q.q, err)
			}
			if first == nil {
				first = got
			} else if fmt.Sprint(got) != fmt.Sprint(first) {
				t.Errorf("%s, %q: %v, the plugin host found %v", s.name, q.q, got, first)
			}
			if q.q == res.Needle && len(harnesses) != 3 {
				t.Errorf("%s: matches in harnesses %v, want all three", s.name, harnesses)
			}
		}
	}
	if _, err := services[1].svc.Search(context.Background(), "two\nlines", service.SearchOptions{}); err == nil {
		t.Error("a query of two lines was accepted")
	}
}
