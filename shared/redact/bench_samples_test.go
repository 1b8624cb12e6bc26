package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sampleTexts returns every string value of the repository's recorded
// sample sessions (samples/, real Claude Code, Pi and Codex transcripts):
// prompts, replies, tool inputs and outputs, ids and paths, which is what
// the history service masks event by event.
func sampleTexts(tb testing.TB) []string {
	tb.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	root := filepath.Join("..", "..", "samples")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var v any
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				walk(v)
			}
		}
		return sc.Err()
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no sample texts under " + root)
	}
	return out
}

// BenchmarkMaskSamples masks every text of the recorded sample sessions,
// one Mask call per string as the history service makes per event: the
// typical transcript a history page goes through, mostly prose and code
// with no secret in it.
func BenchmarkMaskSamples(b *testing.B) {
	texts := sampleTexts(b)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, t := range texts {
			Mask(t)
		}
	}
}
