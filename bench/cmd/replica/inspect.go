package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/history/search"
)

// facts are what the real decoders show of the samples: which sessions'
// event text holds the marker (so the needle's answer is known), the
// common phrase, and a non-ASCII word if any.
type facts struct {
	markerSessions map[string]int // by harness
	commonSessions int
	nonASCII       string
}

func (f facts) markerTotal() int {
	n := 0
	for _, v := range f.markerSessions {
		n += v
	}
	return n
}

// builtin is a built-in harness and its root under a home's layout.
type builtin struct {
	name string
	b    *harness.Builtin
	sub  string // the harness's root below samples/ (see harnessRoots)
}

func builtins() []builtin {
	return []builtin{{claudeH, claude.Plugin(), "claude/projects"}, {piH, pi.Plugin(), "pi/sessions"}, {codexH, codex.Plugin(), "codex/sessions"}}
}

// inspect decodes the samples with the built-in decoders and checks that
// the rewritten marker and the common phrase are event text: a query the
// decoders do not surface would measure nothing.
func inspect(samples, common string) (facts, error) {
	f := facts{markerSessions: map[string]int{}}
	words := map[string]int{} // non-ASCII word: sessions
	ctx := context.Background()
	for _, hb := range builtins() {
		root := filepath.Join(samples, filepath.FromSlash(hb.sub))
		sessions, err := hb.b.ListFiles(ctx, []string{root})
		if err != nil {
			return f, fmt.Errorf("replica: list samples %s: %w", root, err)
		}
		for _, s := range sessions {
			marker, com := false, false
			seen := map[string]bool{}
			_, err := hb.b.Decode(ctx, contract.DecodeRequest{Session: s, Roots: []string{root}}, func(ev history.Event) error {
				marker = marker || search.Matches(ev, markerToken)
				com = com || search.Matches(ev, common)
				if history.Listable(ev) {
					for _, w := range nonASCIIWords(ev.Text + " " + ev.ToolInput) {
						seen[w] = true
					}
				}
				return nil
			})
			if err != nil {
				return f, fmt.Errorf("replica: decode sample %s: %w", s.Path, err)
			}
			if marker {
				f.markerSessions[s.Harness]++
			}
			if com {
				f.commonSessions++
			}
			for w := range seen {
				words[w]++
			}
		}
	}
	if f.markerTotal() == 0 {
		return f, fmt.Errorf("replica: no sample's event text holds %q, the token each copy renames for the needle; the samples in %s are not the recorded ones", markerToken, samples)
	}
	if f.commonSessions == 0 {
		return f, fmt.Errorf("replica: no sample's event text holds the common phrase %q; pick one with -common", common)
	}
	// The non-ASCII word in the most sessions, then the first by bytes.
	var ws []string
	for w := range words {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if words[ws[i]] != words[ws[j]] {
			return words[ws[i]] > words[ws[j]]
		}
		return ws[i] < ws[j]
	})
	if len(ws) > 0 {
		f.nonASCII = ws[0]
	}
	return f, nil
}

// nonASCIIWords are the words of s with a non-ASCII letter (café, naïve);
// punctuation such as a curly apostrophe or a dash does not make one.
func nonASCIIWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		for _, r := range w {
			if r > unicode.MaxASCII && unicode.IsLetter(r) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
