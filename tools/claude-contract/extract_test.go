package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// Texts of the three parts, as the binary would hold them. The tools part
// is long and repetitive, so it spans several blocks, some of them RLE.
var (
	hooksText = "// Claude Code function hooks: the plugin API's TypeScript declarations.\n" +
		"export interface Hooks { onTurnEnd(): void }\n"
	toolsText = "// The inputs of the built-in tools this build has.\n" +
		strings.Repeat("\n", 300<<10) + "export type BuiltinToolInputs = {};\n"
	refText = "# Function hooks: the long form\n\nWhat a plugin of function hooks is in full.\n"
)

// frame compresses text into one zstd frame.
func frame(t *testing.T, text string, opts ...zstd.EOption) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll([]byte(text), nil)
}

// binary lays out chunks between stretches of random bytes, as a native
// binary holds its compressed files among code and other data.
func binary(seed uint64, chunks ...[]byte) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	noise := func() []byte {
		b := make([]byte, 1000+rng.IntN(4000))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	out := noise()
	for _, c := range chunks {
		out = append(out, c...)
		out = append(out, noise()...)
	}
	return out
}

// decoys are frames extract must pass over, each placed before the real
// part it imitates.
func decoys(t *testing.T) [][]byte {
	badSum := frame(t, hooksText+"// from a frame whose checksum is wrong\n")
	badSum[len(badSum)-1] ^= 0xff
	return [][]byte{
		// A NUL among the first bytes: not text.
		frame(t, "// Claude Code function hooks\x00"+strings.Repeat("binary ", 20)),
		// Too short to judge.
		frame(t, "// Claude Code function hooks"),
		// Decodes to more than maxText.
		frame(t, refText+strings.Repeat("a", maxText)),
		// Cut short, then noise.
		frame(t, hooksText+"// from a cut frame\n")[:20],
		badSum,
		// Only a frame's magic.
		frameMagic,
	}
}

func TestExtract(t *testing.T) {
	hooks := frame(t, hooksText)
	tools := frame(t, toolsText, zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	ref := frame(t, refText, zstd.WithSingleSegment(true))
	later := frame(t, hooksText+"// a later copy, which must not win\n")
	// A frame stored right after the hooks frame must not run into it.
	next := frame(t, "// the frame after the hooks, a different file\n"+strings.Repeat("z", 100))

	for _, tc := range []struct {
		name    string
		chunks  [][]byte
		want    []string // texts by part; nil when extract must fail
		missing []string // paths the error must name
	}{
		{
			name:   "all parts, among decoys",
			chunks: append(decoys(t), hooks, next, later, tools, ref),
			want:   []string{hooksText, toolsText, refText},
		},
		{
			name:   "other order",
			chunks: [][]byte{ref, tools, hooks},
			want:   []string{hooksText, toolsText, refText},
		},
		{
			name:    "tools part missing",
			chunks:  append(decoys(t), hooks, ref),
			missing: []string{"claude-code-tools/index.d.ts"},
		},
		{
			name:    "only decoys",
			chunks:  decoys(t),
			missing: []string{"claude-code/index.d.ts", "claude-code-tools/index.d.ts", "function-hooks-reference.md"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			texts, err := extract(binary(7, tc.chunks...))
			if tc.want == nil {
				if err == nil {
					t.Fatal("extract succeeded; want an error naming the missing parts")
				}
				for _, m := range tc.missing {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("error %q does not name %s", err, m)
					}
				}
				for _, p := range parts {
					if !slicesContain(tc.missing, p.path) && strings.Contains(err.Error(), p.path) {
						t.Errorf("error %q names %s, which is there", err, p.path)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tc.want {
				if string(texts[i]) != w {
					t.Errorf("%s: got %d bytes beginning %q, want %d bytes", parts[i].path, len(texts[i]), head(texts[i]), len(w))
				}
			}
		})
	}
}

func TestFrameLen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     []byte
		types string // block types the frame must have, so the case tests what it says
	}{
		{"compressed, checksum", frame(t, strings.Repeat(hooksText, 50)), "2"},
		// A text this short is stored as it is.
		{"single segment, raw", frame(t, refText, zstd.WithSingleSegment(true)), "0"},
		// Runs of one byte fill whole blocks: RLE blocks, one byte each.
		{"RLE blocks, no checksum", frame(t, toolsText, zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(zstd.SpeedBetterCompression)), "21"},
		// Random bytes do not compress: the encoder stores them raw.
		{"raw blocks", frame(t, string(binary(5, binary(6)))), "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := blockTypes(t, tc.f); strings.Trim(tc.types, got) != "" {
				t.Fatalf("the fixture has block types %q, want all of %q", got, tc.types)
			}
			// Followed by another frame and noise, which must not count.
			b := append(append(append([]byte{}, tc.f...), frame(t, refText)...), binary(3)...)
			n, err := frameLen(b)
			if err != nil || n != len(tc.f) {
				t.Errorf("frameLen = %d, %v; want %d", n, err, len(tc.f))
			}
			if _, err := frameLen(tc.f[:len(tc.f)-1]); err == nil {
				t.Error("frameLen of a frame missing its last byte succeeded")
			}
		})
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "claude")
	if err := os.WriteFile(full, binary(11, frame(t, refText), frame(t, toolsText), frame(t, hooksText)), 0o755); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "claude-old")
	if err := os.WriteFile(partial, binary(12, frame(t, hooksText)), 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		files   map[string]string // path under -out: text expected there
		errHas  string            // in stderr
		written bool              // whether -out may exist afterwards
	}{
		{
			name: "with version",
			args: []string{"-bin", full, "-version", "2.1.332"},
			files: map[string]string{
				"claude-code/index.d.ts":       "// Extracted from Claude Code 2.1.332.\n" + hooksText,
				"claude-code-tools/index.d.ts": "// Extracted from Claude Code 2.1.332.\n" + toolsText,
				"function-hooks-reference.md":  refText,
			},
		},
		{
			name: "without version",
			args: []string{"-bin", full},
			files: map[string]string{
				"claude-code/index.d.ts":       hooksText,
				"claude-code-tools/index.d.ts": toolsText,
				"function-hooks-reference.md":  refText,
			},
		},
		{name: "part missing", args: []string{"-bin", partial}, code: 1, errHas: "function-hooks-reference.md"},
		{name: "no such file", args: []string{"-bin", filepath.Join(dir, "nope")}, code: 1, errHas: "nope"},
		{name: "a directory", args: []string{"-bin", dir}, code: 1, errHas: "not a regular file"},
		{name: "no -bin", args: nil, code: 2, errHas: "-bin is required"},
		{name: "line break in version", args: []string{"-bin", full, "-version", "1\n2"}, code: 2, errHas: "line break"},
		{name: "stray argument", args: []string{"-bin", full, "extra"}, code: 2, errHas: `"extra"`},
		{name: "unknown flag", args: []string{"-bin", full, "-binary", full}, code: 2, errHas: "-binary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "types")
			var stdout, stderr bytes.Buffer
			code := run(append(tc.args, "-out", out), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.errHas) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.errHas)
			}
			if tc.code != 0 {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a failed run created %s", out)
				}
				return
			}
			var want []string
			for _, p := range parts {
				want = append(want, filepath.Join(out, filepath.FromSlash(p.path)))
			}
			if got := strings.Fields(stdout.String()); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("stdout lists %q, want %q", got, want)
			}
			for rel, w := range tc.files {
				got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
				if err != nil {
					t.Error(err)
				} else if string(got) != w {
					t.Errorf("%s: got %d bytes beginning %q, want %d bytes beginning %q", rel, len(got), head(got), len(w), head([]byte(w)))
				}
			}
		})
	}
}

// blockTypes lists the types of the frame's blocks, '0' raw, '1' RLE and
// '2' compressed, read the simplest way: from where the decoder's own
// header parsing says the blocks start, trusting f to be a whole frame.
func blockTypes(t *testing.T, f []byte) string {
	t.Helper()
	var h zstd.Header
	if err := h.Decode(f); err != nil {
		t.Fatal(err)
	}
	var types []byte
	for n := h.HeaderSize; ; {
		bh := int(f[n]) | int(f[n+1])<<8 | int(f[n+2])<<16
		typ, size := bh>>1&3, bh>>3
		types = append(types, "0123"[typ])
		if typ == 1 {
			size = 1
		}
		n += 3 + size
		if bh&1 != 0 {
			return string(types)
		}
	}
}

func head(b []byte) string {
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
