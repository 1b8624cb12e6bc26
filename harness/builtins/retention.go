package builtins

import (
	"context"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/gemini"
	"github.com/notesoup/notesoup/vault"
)

// retentions are the built-in harnesses known to delete their own
// transcripts; the others keep them as far as anyone knows.
var retentions = map[string]func(ctx context.Context, roots []string) vault.Retention{
	claude.Name: claude.Retention,
	gemini.Name: gemini.Retention,
}

// Retention says how the named built-in harness deletes its transcripts
// under roots (nil: its defaults). ok is false for a harness with no known
// retention: the answer then says so (Known false, a Note).
func Retention(ctx context.Context, name string, roots []string) (r vault.Retention, ok bool) {
	if f, ok := retentions[name]; ok {
		return f(ctx, roots), true
	}
	return vault.Retention{Harness: name, Note: "no retention setting known: notesoup knows of nothing in it that deletes transcripts"}, false
}
