// Package harnesstest holds the checks every built-in harness's tests run
// against its own fixtures, written once.
package harnesstest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
)

// RawSearchPromise checks what b's Describe promises a search: it lists
// raw_search with exactly words as its synthesized words; every word of
// the text decoded from paths (a tool use's name and input, any other
// event's text) is in the bytes of the line it came from, case aside, or
// part of a synthesized word (the search asks less: in the file's bytes);
// and every synthesized word is one the decoder really writes.
func RawSearchPromise(t *testing.T, b *harness.Builtin, words []string, paths ...string) {
	t.Helper()
	desc, err := b.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(desc.Capabilities, contract.CapRawSearch) || !slices.Equal(desc.SynthesizedWords, words) {
		t.Fatalf("Describe: capabilities %v, words %v", desc.Capabilities, desc.SynthesizedWords)
	}
	written := map[string]bool{} // synthesized words in the decoded text
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.ToLower(data), []byte("\n"))
		words := 0
		_, err = b.Decode(context.Background(), contract.DecodeRequest{Session: contract.Session{Harness: b.Name, Path: path}, Roots: []string{filepath.Dir(path)}}, func(ev contract.Event) error {
			if ev.Line < 1 || ev.Line > len(lines) {
				t.Fatalf("%s: event %d from line %d", path, ev.Seq, ev.Line)
			}
			raw := lines[ev.Line-1]
			text := ev.Text
			if ev.Kind == contract.KindToolUse {
				text = ev.ToolName + " " + ev.ToolInput
			}
			for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
				words++
				if slices.Contains(desc.SynthesizedWords, w) {
					written[w] = true
				}
				if bytes.Contains(raw, []byte(w)) {
					continue
				}
				if !slices.ContainsFunc(desc.SynthesizedWords, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("%s: the decoder wrote %q, which is neither in the file nor a synthesized word", path, w)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if words == 0 {
			t.Errorf("%s: decoded no text", path)
		}
	}
	for _, w := range desc.SynthesizedWords {
		if !written[w] {
			t.Errorf("synthesized word %q is in no decoded text", w)
		}
	}
}
