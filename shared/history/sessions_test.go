package history

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The harness names of the fixtures: history itself knows none.
const (
	HarnessClaude = "claude"
	HarnessPi     = "pi"
	HarnessCodex  = "codex"
)

// testHarnesses is the fixtures' harness order.
var testHarnesses = []string{HarnessClaude, HarnessPi, HarnessCodex}

type fakeCatalog map[string][]Session

func (f fakeCatalog) Harnesses() []string {
	names := append([]string(nil), testHarnesses...)
	for h := range f {
		if !slices.Contains(names, h) {
			names = append(names, h)
		}
	}
	return names
}

func (f fakeCatalog) Sessions(h string) ([]Session, error) {
	if h == "broken" {
		return nil, errors.New("boom")
	}
	return f[h], nil
}

func catalogFixture() fakeCatalog {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 10, m, 0, 0, time.UTC) }
	return fakeCatalog{
		HarnessClaude: {
			{Harness: HarnessClaude, ID: "aaaa1111", Cwd: "/work/proj", Title: "fix the Parser", Updated: at(5)},
			{Harness: HarnessClaude, ID: "aaaa2222", Cwd: "/work/proj/sub", Title: "write docs", Updated: at(1)},
			{Harness: HarnessClaude, ID: "bbbb", Cwd: "/work/other", Title: "other", Updated: at(2)},
		},
		HarnessPi: {
			{Harness: HarnessPi, ID: "bbbb0000", Cwd: "/work/proj", Title: "pi session", Updated: at(9)},
		},
		HarnessCodex: {
			{Harness: HarnessCodex, ID: "cccc", Cwd: "/elsewhere", Title: "codex thread", Updated: at(3)},
		},
	}
}

func TestResolve(t *testing.T) {
	cat := catalogFixture()
	cur := &Session{Harness: HarnessClaude, ID: "live"}
	tests := []struct {
		sel     string
		current *Session
		want    string // harness:id, or "" for an error
		errHas  []string
	}{
		{"", cur, "claude:live", nil},
		{"current", cur, "claude:live", nil},
		{"current", nil, "", []string{"no current session"}},
		{"latest", nil, "pi:bbbb0000", nil},
		{"claude:latest", nil, "claude:aaaa1111", nil},
		{"codex:latest", nil, "codex:cccc", nil},
		{"claude:aaaa2222", nil, "claude:aaaa2222", nil},
		{"claude:aaaa2", nil, "claude:aaaa2222", nil},
		{"cc", nil, "codex:cccc", nil},
		{"bbbb", nil, "claude:bbbb", nil}, // exact id beats the longer pi id it prefixes
		{"pi:bbbb", nil, "pi:bbbb0000", nil},
		{"aaaa", nil, "", []string{"ambiguous", "claude:aaaa1111", "claude:aaaa2222"}},
		{"zzz", nil, "", []string{"matches no session"}},
		{"claude:aaaa1", &Session{Harness: HarnessClaude, ID: "aaaa1111", Title: "bound"}, "claude:aaaa1111 bound", nil},
		{"claude:latest", &Session{Harness: HarnessClaude, ID: "aaaa1111", Title: "bound"}, "claude:aaaa1111 bound", nil},
		{"robot:abc", nil, "", []string{"unknown harness"}},
		{"claude:", nil, "", []string{"missing id"}},
		{"/home/me/.claude/projects/x/aaaa1111.jsonl", nil, "", []string{"looks like a path"}},
		{"../aaaa1111", nil, "", []string{"looks like a path"}},
		{"~/x", nil, "", []string{"looks like a path"}},
	}
	for _, tc := range tests {
		t.Run(tc.sel, func(t *testing.T) {
			s, err := Resolve(cat, tc.sel, tc.current)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("resolved to %s:%s, want an error", s.Harness, s.ID)
				}
				for _, h := range tc.errHas {
					if !strings.Contains(err.Error(), h) {
						t.Errorf("error %q lacks %q", err, h)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Harness + ":" + s.ID
			if s.Title == "bound" {
				got += " bound"
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestListSessions(t *testing.T) {
	cat := catalogFixture()
	tests := []struct {
		q    SessionQuery
		want string
	}{
		{SessionQuery{}, "pi:bbbb0000 claude:aaaa1111 codex:cccc claude:bbbb claude:aaaa2222"},
		{SessionQuery{Cwd: "/work/proj"}, "pi:bbbb0000 claude:aaaa1111 claude:aaaa2222"},
		{SessionQuery{Cwd: "/work/pro"}, ""},
		{SessionQuery{Query: "PARSER"}, "claude:aaaa1111"},
		{SessionQuery{Query: "/work/other"}, "claude:bbbb"},
		{SessionQuery{Harness: HarnessClaude, Limit: 2}, "claude:aaaa1111 claude:bbbb"},
	}
	for _, tc := range tests {
		ss, err := ListSessions(cat, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range ss {
			got = append(got, s.Harness+":"+s.ID)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%+v: got %v, want %s", tc.q, got, tc.want)
		}
	}
	if _, err := ListSessions(cat, SessionQuery{Harness: "robot"}); err == nil {
		t.Error("unknown harness accepted")
	}
}

func TestListSessionsKeepsOtherHarnessesOnError(t *testing.T) {
	cat := StaticCatalog{Names: testHarnesses, List: func(h string) ([]Session, error) {
		if h == HarnessPi {
			return nil, errors.New("pi root unreadable")
		}
		return catalogFixture()[h], nil
	}}
	ss, err := ListSessions(cat, SessionQuery{})
	if err == nil || !strings.Contains(err.Error(), "pi root unreadable") {
		t.Errorf("error = %v", err)
	}
	if len(ss) != 4 {
		t.Errorf("got %d sessions, want the 4 of claude and codex", len(ss))
	}
}

// prefixCatalog is a PrefixCatalog over fixed sessions whose narrow listing
// goes by a stand-in for the file name (named), counting both kinds of call.
type prefixCatalog struct {
	all          []Session
	named        map[string]string // session id -> the id its file name carries
	full, narrow int
}

func (c *prefixCatalog) Harnesses() []string { return testHarnesses }

func (c *prefixCatalog) Sessions(h string) ([]Session, error) {
	c.full++
	return c.SessionsWithPrefix(h, "")
}

func (c *prefixCatalog) SessionsWithPrefix(h, prefix string) ([]Session, error) {
	if prefix != "" {
		c.narrow++
	}
	var out []Session
	for _, s := range c.all {
		name := s.ID
		if n, ok := c.named[s.ID]; ok {
			name = n
		}
		if s.Harness == h && strings.Contains(name, prefix) {
			out = append(out, s)
		}
	}
	return out, nil
}

// TestResolveLooksNarrowFirst: a selector naming an id is resolved from the
// files named for it, and the whole listing is read only when that finds
// nothing.
func TestResolveLooksNarrowFirst(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	all := []Session{
		{Harness: HarnessClaude, ID: "aaaa-1", Path: "/c/aaaa-1.jsonl", Updated: t0},
		{Harness: HarnessClaude, ID: "aaaa-2", Path: "/c/aaaa-2.jsonl", Updated: t0.Add(time.Hour)},
		{Harness: HarnessPi, ID: "bbbb-1", Path: "/p/x_renamed.jsonl", Updated: t0},
	}
	tests := []struct {
		selector   string
		wantID     string
		wantErr    string
		wantFull   int
		wantNarrow int
	}{
		{selector: "claude:aaaa-1", wantID: "aaaa-1", wantNarrow: 1},
		{selector: "aaaa-2", wantID: "aaaa-2", wantNarrow: 1},
		{selector: "claude:aaaa", wantErr: "ambiguous", wantNarrow: 1},
		{selector: "pi:bbbb-1", wantID: "bbbb-1", wantNarrow: 1, wantFull: 1}, // its file is not named for it
		{selector: "claude:zzzz", wantErr: "matches no session", wantNarrow: 1, wantFull: 1},
		{selector: "latest", wantID: "aaaa-2", wantFull: 3},
	}
	for _, tc := range tests {
		t.Run(tc.selector, func(t *testing.T) {
			cat := &prefixCatalog{all: all, named: map[string]string{"bbbb-1": "renamed"}}
			got, err := Resolve(cat, tc.selector, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve(%q) = %v, %v; want an error saying %q", tc.selector, got.ID, err, tc.wantErr)
				}
			} else if err != nil || got.ID != tc.wantID {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tc.selector, got.ID, err, tc.wantID)
			}
			if cat.full != tc.wantFull || cat.narrow < tc.wantNarrow || tc.wantNarrow == 0 && cat.narrow != 0 {
				t.Errorf("Resolve(%q): %d whole listings and %d narrow ones; want %d and %d", tc.selector, cat.full, cat.narrow, tc.wantFull, tc.wantNarrow)
			}
		})
	}
}

// TestCatalogNamesTheHarnesses: a harness is known because the catalog
// lists it (an external plugin's, say), and one it does not list is refused
// with the ones it does.
func TestCatalogNamesTheHarnesses(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	cat := catalogFixture()
	cat["jsonl"] = []Session{{Harness: "jsonl", ID: "note-1", Updated: at, Title: "from a plugin"}}
	got, err := Resolve(cat, "jsonl:note", nil)
	if err != nil || got.ID != "note-1" {
		t.Fatalf("jsonl:note = %+v, %v", got, err)
	}
	if got, err := Resolve(cat, "latest", nil); err != nil || got.Harness != "jsonl" {
		t.Errorf("latest = %+v, %v; want the plugin's newer session", got, err)
	}
	ss, err := ListSessions(cat, SessionQuery{Harness: "jsonl"})
	if err != nil || len(ss) != 1 {
		t.Errorf("listing jsonl = %v, %v", ss, err)
	}
	delete(cat, "jsonl")
	_, err = Resolve(StaticCatalog{Names: testHarnesses, List: cat.Sessions}, "jsonl:note", nil)
	if err == nil || !strings.Contains(err.Error(), `unknown harness "jsonl"`) || !strings.Contains(err.Error(), "claude, pi, codex") {
		t.Errorf("unlisted harness: %v", err)
	}
}
