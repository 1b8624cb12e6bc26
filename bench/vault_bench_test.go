package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/testkit/corpus"
	"github.com/notesoup/notesoup/vault"
)

// vaultService returns a service over the bench corpus (the built-ins
// in-process, as the light build runs them) with a fresh notesoup home
// whose vault already holds the whole corpus.
func vaultService(b *testing.B) (*service.Service, corpusInfo) {
	b.Helper()
	ci := benchCorpus(b)
	home := b.TempDir()
	b.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	l := ci.Layout
	svc, err := service.New(&builtins.Local{}, service.WithHome(filepath.Join(home, "ns")),
		service.WithRoots(corpus.Claude, l.Claude), service.WithRoots(corpus.Pi, l.Pi), service.WithRoots(corpus.Codex, l.Codex))
	if err != nil {
		b.Fatal(err)
	}
	st, err := svc.VaultSync(context.Background(), vault.SyncOptions{})
	if err != nil || len(st.Errors) > 0 {
		b.Fatalf("first sync: %v %v", err, st.Errors)
	}
	return svc, ci
}

// BenchmarkVaultSyncNoChange is a sync at a session start when nothing
// changed: list every harness's files, read the manifest, lstat each.
func BenchmarkVaultSyncNoChange(b *testing.B) {
	svc, ci := vaultService(b)
	n := 0
	for _, fs := range ci.Files {
		n += len(fs)
	}
	b.ResetTimer()
	for b.Loop() {
		st, err := svc.VaultSync(context.Background(), vault.SyncOptions{})
		if err != nil || st.Unchanged != n {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64(n), "files")
}

// BenchmarkVaultSyncGrowth appends one 2 KiB line to each of ten sessions
// per harness between syncs: only the new bytes are read and compressed.
func BenchmarkVaultSyncGrowth(b *testing.B) {
	svc, ci := vaultService(b)
	line := []byte(fmt.Sprintf(`{"type":"padding","text":"%0*d"}`+"\n", 2000, 0))
	var grow []string
	for _, fs := range ci.Files {
		for i := 0; i < len(fs) && i < 10; i++ {
			grow = append(grow, fs[i].Path)
		}
	}
	// The corpus may be shared with other benchmarks: put the files back.
	sizes := map[string]int64{}
	for _, p := range grow {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		sizes[p] = fi.Size()
	}
	b.Cleanup(func() {
		for p, sz := range sizes {
			os.Truncate(p, sz)
		}
	})
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for _, p := range grow {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				b.Fatal(err)
			}
			f.Write(line)
			f.Close()
		}
		b.StartTimer()
		st, err := svc.VaultSync(context.Background(), vault.SyncOptions{})
		if err != nil || st.Grown != len(grow) {
			b.Fatalf("%+v %v", st, err)
		}
	}
	b.ReportMetric(float64(len(grow)), "grown/op")
}
