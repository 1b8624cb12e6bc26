package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

// samplesDir is the repository's samples/, from this package.
const samplesDir = "../../../samples"

// isolate keeps the harnesses off the real home.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "NOTESOUP_HOME"} {
		t.Setenv(k, filepath.Join(home, strings.ToLower(k)))
	}
}

// smallReplica writes a replica of a few MB: several copies, two copies
// per project, each a day and a bit earlier than the one before.
func smallReplica(t *testing.T, dir string, seed uint64) (map[string]any, Result) {
	t.Helper()
	o := Options{Samples: samplesDir, Dir: dir, TotalBytes: 3 << 20, Seed: seed, PerProject: 2, Step: 29 * time.Hour}
	out, err := run(o, defaultCommon, true, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	// The description on stdout is JSON; read it back as bench/run.sh does.
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var desc map[string]any
	if err := json.Unmarshal(b, &desc); err != nil {
		t.Fatal(err)
	}
	var res Result
	res.Copies = int(desc["copies"].(float64))
	fb, _ := json.Marshal(desc["file_list"])
	if err := json.Unmarshal(fb, &res.Files); err != nil {
		t.Fatal(err)
	}
	return desc, res
}

// signature is what must not change between a sample's events and its
// copy's: every replacement keeps lengths.
func signature(t *testing.T, b builtin, s history.Session, root string) (sig []string, notes []string) {
	t.Helper()
	sum, err := b.b.Decode(context.Background(), contract.DecodeRequest{Session: s, Roots: []string{root}}, func(ev history.Event) error {
		sig = append(sig, fmt.Sprintf("%d %s %s %s %d %d %d %d", ev.Seq, ev.Kind, ev.Role, ev.ToolName, len(ev.Text), len(ev.ToolInput), len(ev.Window), ev.Line))
		return nil
	})
	if err != nil {
		t.Fatalf("decode %s: %v", s.Path, err)
	}
	for _, n := range sum.Notes {
		notes = append(notes, string(n.Kind))
	}
	return sig, notes
}

// TestReplica decodes every file of a small replica with the real
// decoders and checks the ids, the fork links and the three queries.
func TestReplica(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	desc, res := smallReplica(t, dir, 7)
	if res.Copies < 4 {
		t.Fatalf("%d copies; the test needs several", res.Copies)
	}
	home := filepath.Join(dir, "home")
	roots := map[string]string{
		claudeH: filepath.Join(home, ".claude", "projects"),
		piH:     filepath.Join(home, ".pi", "agent", "sessions"),
		codexH:  filepath.Join(home, ".codex", "sessions"),
	}
	byPath := map[string]File{}
	copySessions := map[string]map[int]bool{} // harness:id -> copies
	for _, f := range res.Files {
		byPath[f.Path] = f
		if f.Session != "" {
			k := f.Harness + ":" + f.Session
			if copySessions[k] == nil {
				copySessions[k] = map[int]bool{}
			}
			copySessions[k][f.Copy] = true
		}
	}
	// Session ids are unique across copies.
	for k, cs := range copySessions {
		if len(cs) != 1 {
			t.Errorf("session %s is in copies %v", k, cs)
		}
	}

	// Every file decodes as its sample does, and the listing finds every
	// session written.
	var srcs []search.Source
	sampleSig := map[string][]string{}
	sampleNotes := map[string][]string{}
	for _, b := range builtins() {
		h := b.name
		sroot := filepath.Join(samplesDir, filepath.FromSlash(b.sub))
		ss, err := b.b.ListFiles(context.Background(), []string{sroot})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			rel, _ := filepath.Rel(sroot, s.Path)
			sampleSig[h+"/"+filepath.ToSlash(rel)], sampleNotes[h+"/"+filepath.ToSlash(rel)] = signature(t, b, s, sroot)
		}
		list, err := b.b.ListFiles(context.Background(), []string{roots[h]})
		if err != nil {
			t.Fatalf("list %s: %v", h, err)
		}
		want := 0
		for _, f := range res.Files {
			if f.Harness == h && f.Session != "" {
				want++
			}
		}
		if len(list) != want || want != res.Copies*len(ss) {
			t.Errorf("%s: listed %d sessions, wrote %d, want %d copies x %d samples", h, len(list), want, res.Copies, len(ss))
		}
		for _, s := range list {
			f, ok := byPath[s.Path]
			if !ok || f.Session != s.ID {
				t.Errorf("%s: listed %s (id %s) is not a written session (%+v)", h, s.Path, s.ID, f)
				continue
			}
			sig, notes := signature(t, b, s, roots[h])
			if ws := sampleSig[h+"/"+f.Sample]; strings.Join(sig, "\n") != strings.Join(ws, "\n") || len(sig) == 0 {
				t.Errorf("%s copy %d of %s decodes to %d events unlike its sample's %d", h, f.Copy, f.Sample, len(sig), len(ws))
			}
			if wn := sampleNotes[h+"/"+f.Sample]; strings.Join(notes, ",") != strings.Join(wn, ",") {
				t.Errorf("%s copy %d of %s has notes %v, its sample %v", h, f.Copy, f.Sample, notes, wn)
			}
		}
		desc, err := b.b.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, search.FromHarness(context.Background(), b.b, desc, []string{roots[h]}))
	}

	// Links between sessions name the same copy's sessions, never a
	// sample's. Each kind must be seen, or the check proves nothing.
	sampleIDs := map[string]bool{}
	u, err := loadUnit(samplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range u.samples {
		if s.session != "" {
			sampleIDs[s.session] = true
		}
	}
	links := map[string]int{}
	linkRes := []struct {
		name, harness string
		re            *regexp.Regexp
	}{
		{"claude sessionId", claudeH, regexp.MustCompile(`"sessionId":"([^"]+)"`)},
		{"claude requestSessionId", claudeH, regexp.MustCompile(`"requestSessionId":"([^"]+)"`)},
		{"codex forked_from_id", codexH, regexp.MustCompile(`"forked_from_id":"([^"]+)"`)},
		{"codex history_base", codexH, regexp.MustCompile(`"history_base":\{"thread_id":"([^"]+)"`)},
		{"codex session_meta id", codexH, regexp.MustCompile(`"type":"session_meta","payload":\{[^{]*?"id":"([^"]+)"`)},
		{"pi header id", piH, regexp.MustCompile(`^\{"type":"session","version":\d+,"id":"([^"]+)"`)},
	}
	parentRe := regexp.MustCompile(`"parentSession":"([^"]+)"`)
	for _, f := range res.Files {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for id := range sampleIDs {
			if strings.Contains(string(data), id) {
				t.Errorf("copy %d file %s still names sample session %s", f.Copy, f.Path, id)
			}
		}
		for _, lr := range linkRes {
			if lr.harness != f.Harness {
				continue
			}
			for _, m := range lr.re.FindAllStringSubmatch(string(data), -1) {
				links[lr.name]++
				if cs := copySessions[f.Harness+":"+m[1]]; !cs[f.Copy] || len(cs) != 1 {
					t.Errorf("%s %s in copy %d file %s names sessions of copies %v", lr.name, m[1], f.Copy, f.Path, cs)
				}
			}
		}
		if f.Harness == claudeH && f.Session == "" {
			// <project>/<sessionId>/subagents/agent-<id>.*
			sid := filepath.Base(filepath.Dir(filepath.Dir(f.Path)))
			links["claude subagent folder"]++
			if cs := copySessions[claudeH+":"+sid]; !cs[f.Copy] {
				t.Errorf("subagent file %s of copy %d is under session %s of copies %v", f.Path, f.Copy, sid, cs)
			}
		}
		if f.Harness == piH {
			for _, m := range parentRe.FindAllStringSubmatch(string(data), -1) {
				links["pi parentSession"]++
				p, ok := byPath[m[1]]
				if !ok || p.Copy != f.Copy || p.Harness != piH {
					t.Errorf("pi fork %s of copy %d names parent %s (%+v), not a file of its copy", f.Path, f.Copy, m[1], p)
				}
			}
		}
	}
	for _, lr := range linkRes {
		if links[lr.name] == 0 {
			t.Errorf("no %s seen: the samples changed, or the test's pattern is wrong", lr.name)
		}
	}
	for _, k := range []string{"claude subagent folder", "pi parentSession"} {
		if links[k] == 0 {
			t.Errorf("no %s seen", k)
		}
	}

	// Queries, as notesoup search answers them (the raw engine).
	sessionsOf := func(q string) map[int]int {
		t.Helper()
		r, err := search.Search(q, search.Options{Sources: srcs, CacheDir: t.TempDir()})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		if len(r.Errors) > 0 {
			t.Fatalf("search %q: %v", q, r.Errors)
		}
		copies := map[int]int{}
		for _, s := range r.Sessions {
			f, ok := byPath[s.Session.Path]
			if !ok {
				t.Fatalf("search %q found %s, not a written file", q, s.Session.Path)
			}
			copies[f.Copy]++
		}
		return copies
	}
	needle := desc["needle"].(string)
	needleCopy := int(desc["needle_copy"].(float64))
	wantNeedle := int(desc["needle_sessions"].(float64))
	if got := sessionsOf(needle); len(got) != 1 || got[needleCopy] != wantNeedle || wantNeedle < 3 {
		t.Errorf("needle %q found in sessions of copies %v, want %d sessions of copy %d only", needle, got, wantNeedle, needleCopy)
	}
	// Every copy's marker is as rare: only its own copy.
	for c := range res.Copies {
		if got := sessionsOf(strings.ToUpper(marker(c))); len(got) != 1 || got[c] != wantNeedle {
			t.Errorf("marker of copy %d found in sessions of copies %v", c, got)
		}
	}
	common := desc["common"].(string)
	got := sessionsOf(common)
	total := 0
	for c := range res.Copies {
		total += got[c]
		if got[c] == 0 {
			t.Errorf("common %q not found in copy %d", common, c)
		}
	}
	if want := int(desc["common_sessions"].(float64)); total != want {
		t.Errorf("common %q found in %d sessions, the description says %d", common, total, want)
	}
	if na, ok := desc["nonascii"].(string); ok {
		if got := sessionsOf(na); len(got) != res.Copies {
			t.Errorf("nonascii %q found in copies %v, want all %d", na, got, res.Copies)
		}
	}
}

// TestDeterministic: the same flags write the same bytes; another seed
// other ids.
func TestDeterministic(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	digest := func() map[string][32]byte {
		m := map[string][32]byte{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			m[strings.TrimPrefix(p, dir)] = sha256.Sum256(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	smallReplica(t, dir, 7)
	first := digest()
	if err := os.RemoveAll(filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}
	smallReplica(t, dir, 7)
	second := digest()
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("%d files, then %d", len(first), len(second))
	}
	for p, h := range first {
		if second[p] != h {
			t.Errorf("%s differs between two runs with the same flags", p)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, "home")); err != nil {
		t.Fatal(err)
	}
	smallReplica(t, dir, 8)
	same := 0
	for p := range digest() {
		if _, ok := first[p]; ok {
			same++
		}
	}
	if same != 0 {
		t.Errorf("%d file paths are the same under another seed: the ids do not follow the seed", same)
	}
}

// TestRefuses: inputs that would write a wrong corpus are refused, naming
// the fix.
func TestRefuses(t *testing.T) {
	isolate(t)
	used := t.TempDir()
	if err := os.MkdirAll(filepath.Join(used, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"no size", Options{Samples: samplesDir, Dir: t.TempDir(), PerProject: 1}, "size must be positive"},
		{"no project size", Options{Samples: samplesDir, Dir: t.TempDir(), TotalBytes: 1 << 20}, "-per-project"},
		{"home exists", Options{Samples: samplesDir, Dir: used, TotalBytes: 1 << 20, PerProject: 1}, "already exists"},
		{"no samples", Options{Samples: t.TempDir(), Dir: t.TempDir(), TotalBytes: 1 << 20, PerProject: 1}, "-samples"},
		{"too big", Options{Samples: samplesDir, Dir: t.TempDir(), TotalBytes: 1 << 50, PerProject: 1}, "ask for less"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Write(c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
}
