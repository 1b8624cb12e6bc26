package builtins

import (
	"context"
	"strings"
	"testing"
)

// TestRetention: Claude Code and Gemini CLI say how they delete
// transcripts; the others say none is known.
func TestRetention(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", home+"/.claude")
	t.Setenv("GEMINI_CLI_HOME", home)
	for _, name := range Names() {
		r, ok := Retention(context.Background(), name, nil)
		want := name == "claude" || name == "gemini"
		if ok != want || r.Known != want || r.Harness != name {
			t.Errorf("%s: ok %v, %+v; want known %v", name, ok, r, want)
		}
		if want && !r.Deletes {
			t.Errorf("%s: by default it deletes transcripts; got %+v", name, r)
		}
		if !want && !strings.Contains(r.Note, "no retention setting known") {
			t.Errorf("%s: the note does not say none is known: %q", name, r.Note)
		}
	}
}
