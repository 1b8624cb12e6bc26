package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/notesoup/notesoup/testkit/corpus"
)

// Environment the suite reads. CorpusEnv points at a corpus written by
// testkit/cmd/corpus (its layout JSON is not needed: the layout is derived
// from the directory); without it a small corpus is generated in a temp dir.
const (
	CorpusEnv     = "NOTESOUP_BENCH_CORPUS"
	CorpusSizeEnv = "NOTESOUP_BENCH_SIZE" // bytes of the generated corpus
	// defaultCorpusBytes keeps a plain `go test -bench` run short.
	defaultCorpusBytes = 48 << 20
)

var (
	corpusOnce sync.Once
	corpusRes  corpusInfo
	corpusErr  error
	tempDirs   []string
)

// corpusInfo is the corpus under test.
type corpusInfo struct {
	Layout corpus.Layout
	Files  map[string][]corpus.File // by harness: path and bytes
	Needle string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// benchCorpus returns the corpus, generating it once per process.
func benchCorpus(tb testing.TB) corpusInfo {
	tb.Helper()
	corpusOnce.Do(func() { corpusRes, corpusErr = loadCorpus() })
	if corpusErr != nil {
		tb.Fatal(corpusErr)
	}
	return corpusRes
}

func loadCorpus() (corpusInfo, error) {
	if dir := os.Getenv(CorpusEnv); dir != "" {
		return scanCorpus(dir)
	}
	size := int64(defaultCorpusBytes)
	if s := os.Getenv(CorpusSizeEnv); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v <= 0 {
			return corpusInfo{}, fmt.Errorf("%s=%q: want a positive byte count", CorpusSizeEnv, s)
		}
		size = v
	}
	dir, err := os.MkdirTemp("", "notesoup-bench-")
	if err != nil {
		return corpusInfo{}, err
	}
	tempDirs = append(tempDirs, dir)
	res, err := corpus.Generate(dir, corpus.Options{Seed: 1, TotalBytes: size})
	if err != nil {
		return corpusInfo{}, err
	}
	ci := corpusInfo{Layout: res.Layout, Files: map[string][]corpus.File{}, Needle: res.Needle}
	for _, f := range res.Files {
		ci.Files[f.Harness] = append(ci.Files[f.Harness], f)
	}
	return ci, nil
}

// scanCorpus finds the session files of an existing corpus directory.
func scanCorpus(dir string) (corpusInfo, error) {
	lay := corpus.NewLayout(dir)
	ci := corpusInfo{Layout: lay, Files: map[string][]corpus.File{}, Needle: "corpus-needle-1"}
	if n := os.Getenv("NOTESOUP_BENCH_NEEDLE"); n != "" {
		ci.Needle = n
	}
	for h, root := range map[string]string{corpus.Claude: lay.Claude, corpus.Pi: lay.Pi, corpus.Codex: lay.Codex} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".jsonl" {
				return err
			}
			if filepath.Base(filepath.Dir(p)) == "subagents" {
				return nil // a Claude subagent transcript (the replica has them) is read with its session, not as one
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			ci.Files[h] = append(ci.Files[h], corpus.File{Harness: h, Path: p, Bytes: fi.Size(), ID: sessionID(h, p)})
			return nil
		})
		if err != nil {
			return ci, fmt.Errorf("%s=%s: %w (generate one with go run ./testkit/cmd/corpus -dir DIR)", CorpusEnv, dir, err)
		}
	}
	return ci, nil
}

// sessionID recovers the session id from a generated file name.
func sessionID(h, p string) string {
	base := filepath.Base(p)
	base = base[:len(base)-len(".jsonl")]
	if len(base) >= 36 {
		return base[len(base)-36:]
	}
	return base
}
