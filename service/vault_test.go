package service_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/testkit/corpus"
	"github.com/notesoup/notesoup/vault"
)

// vaultFixture is a generated corpus of every built-in harness, a service
// over it (in-process harnesses) and a private home.
func vaultFixture(t *testing.T) (corpus.Result, *service.Service) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("HOME", filepath.Join(tmp, "userhome"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "config"))
	t.Setenv("NOTESOUP_HOME", filepath.Join(tmp, "nshome"))
	res, err := corpus.Generate(filepath.Join(tmp, "corpus"), corpus.Options{Seed: 5, TotalBytes: 2 << 20, Sessions: 24})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Layout
	svc, err := service.New(&builtins.Local{}, service.WithHome(filepath.Join(tmp, "nshome")),
		service.WithRoots("claude", l.Claude), service.WithRoots("pi", l.Pi), service.WithRoots("codex", l.Codex))
	if err != nil {
		t.Fatal(err)
	}
	return res, svc
}

// TestVaultHistoryRoundTrip: every harness's sessions are vaulted; one of
// each (a needle session, not a fork) is deleted, and is still listed
// (marked), read with the same addresses and text, found by a search and
// selectable by its id; restored, it is byte-identical and listed once.
func TestVaultHistoryRoundTrip(t *testing.T) {
	res, svc := vaultFixture(t)
	ctx := context.Background()
	st, err := svc.VaultSync(ctx, vault.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.New != len(res.Files) || len(st.Errors) != 0 {
		t.Fatalf("first sync: %+v, corpus has %d files", st, len(res.Files))
	}
	if st, _ := svc.VaultSync(ctx, vault.SyncOptions{}); st.Unchanged != len(res.Files) || st.Commits != 0 {
		t.Fatalf("second sync: %+v", st)
	}
	before, err := svc.Sessions(ctx, history.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	// One needle session of each harness, not a fork (its parent's text
	// would come from elsewhere).
	victims := map[string]corpus.File{}
	for _, f := range res.Files {
		if _, ok := victims[f.Harness]; !ok && f.Needle > 0 && f.ForkOf == "" {
			victims[f.Harness] = f
		}
	}
	if len(victims) != 3 {
		t.Fatalf("victims %v", victims)
	}
	pages := map[string]string{}
	originals := map[string][]byte{}
	for h, f := range victims {
		page, _, err := svc.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: h + ":" + f.ID, ListQuery: history.ListQuery{Oldest: true, Limit: 50}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		pages[h] = page.Text
		originals[h], _ = os.ReadFile(f.Path)
		if err := os.Remove(f.Path); err != nil {
			t.Fatal(err)
		}
	}

	after, err := svc.Sessions(ctx, history.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d sessions listed after deleting three, %d before", len(after), len(before))
	}
	seen := map[string]int{}
	for _, s := range after {
		seen[service.SessionRef(s)]++
		_, victim := victims[s.Harness]
		gone := victim && victims[s.Harness].ID == s.ID
		inVault := strings.HasPrefix(s.Path, svc.VaultDir()+string(filepath.Separator))
		if gone != inVault || gone != strings.HasPrefix(s.Title, service.VaultMark) {
			t.Errorf("%s at %s titled %q: gone %v", service.SessionRef(s), s.Path, s.Title, gone)
		}
	}
	for ref, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", ref, n)
		}
	}
	for h, f := range victims {
		page, sess, err := svc.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: h + ":" + f.ID, ListQuery: history.ListQuery{Oldest: true, Limit: 50}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		if page.Text != pages[h] {
			t.Errorf("%s: the vault's page differs from the original's:\n%s\n---\n%s", h, page.Text, pages[h])
		}
		if sess.ID != f.ID {
			t.Errorf("%s: resolved %s", h, sess.ID)
		}
	}
	r, err := svc.Search(ctx, res.Needle, service.SearchOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, h := range r.Sessions {
		found[h.Session.Harness+":"+h.Session.ID] = true
	}
	for h, f := range victims {
		if !found[h+":"+f.ID] {
			t.Errorf("search for the needle missed the gone %s session %s (found %v, errors %v)", h, f.ID, found, r.Errors)
		}
	}

	status, err := svc.VaultStatus()
	if err != nil {
		t.Fatal(err)
	}
	for _, hs := range status {
		if hs.Gone != 1 || hs.Sessions != len(res.ByHarness(hs.Harness)) {
			t.Errorf("status %+v", hs)
		}
	}

	for h, f := range victims {
		sel := h + ":" + f.ID
		_, p, err := svc.VaultRestore(ctx, sel, true)
		if err != nil || p.Written || p.Target != f.Path {
			t.Fatalf("%s dry run: %+v, %v", h, p, err)
		}
		if _, err := os.Stat(f.Path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the dry run wrote the file", h)
		}
		if _, p, err = svc.VaultRestore(ctx, sel, false); err != nil || !p.Written {
			t.Fatalf("%s restore: %+v, %v", h, p, err)
		}
		if got, _ := os.ReadFile(f.Path); string(got) != string(originals[h]) {
			t.Fatalf("%s: restored %d bytes, the original had %d", h, len(got), len(originals[h]))
		}
		if _, p, err = svc.VaultRestore(ctx, sel, false); err != nil || !p.Same || p.Written {
			t.Fatalf("%s second restore: %+v, %v", h, p, err)
		}
		os.WriteFile(f.Path, append(originals[h], "{}\n"...), 0o600)
		if _, _, err = svc.VaultRestore(ctx, sel, false); !errors.Is(err, vault.ErrDiffers) {
			t.Fatalf("%s restore over a different file: %v", h, err)
		}
	}
	again, _ := svc.Sessions(ctx, history.SessionQuery{})
	for _, s := range again {
		if strings.HasPrefix(s.Path, svc.VaultDir()) {
			t.Errorf("%s still read from the vault after its restore", service.SessionRef(s))
		}
	}
	if len(again) != len(before) {
		t.Errorf("%d sessions after restore, %d before", len(again), len(before))
	}
}

// TestVaultMasksSecrets: a secret in a gone session's prompt is masked in
// its listing and its page, as any session's is.
func TestVaultMasksSecrets(t *testing.T) {
	res, svc := vaultFixture(t)
	ctx := context.Background()
	secret := "sk-ant-api03-" + strings.Repeat("aB3_x", 18) + "abc" + "AA" // the rule's 93 characters and AA
	var f corpus.File
	for _, c := range res.ByHarness("claude") {
		if c.ForkOf == "" {
			f = c
			break
		}
	}
	b, _ := os.ReadFile(f.Path)
	const user = `"role":"user","content":"`
	at := strings.Index(string(b), user)
	if at < 0 {
		t.Fatal("no plain user prompt in the claude session")
	}
	b = []byte(string(b[:at+len(user)]) + secret + " " + string(b[at+len(user):]))
	os.WriteFile(f.Path, b, 0o600)
	if _, err := svc.VaultSync(ctx, vault.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Path)
	ss, _ := svc.Sessions(ctx, history.SessionQuery{IDPrefix: f.ID})
	if len(ss) != 1 || !strings.HasPrefix(ss[0].Title, service.VaultMark) || strings.Contains(ss[0].Title, secret) || !strings.Contains(ss[0].Title, "[REDACTED") {
		t.Fatalf("sessions %+v", ss)
	}
	page, _, err := svc.HistoryList(ctx, service.Caller{}, history.ListArgs{Session: "claude:" + f.ID, ListQuery: history.ListQuery{Oldest: true, Limit: 50}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.Text, secret) || !strings.Contains(page.Text, "[REDACTED") {
		t.Fatalf("page shows the secret or no mask:\n%s", page.Text)
	}
	// The prompt is on that page: asked to, it shows the secret.
	page, _, err = svc.HistoryList(ctx, service.Caller{ShowSecrets: true}, history.ListArgs{Session: "claude:" + f.ID, ListQuery: history.ListQuery{Oldest: true, Limit: 50}}, nil)
	if err != nil || !strings.Contains(page.Text, secret) {
		t.Fatalf("with ShowSecrets the page lacks the secret (%v):\n%s", err, page.Text)
	}
}
