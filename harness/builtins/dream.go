package builtins

import (
	"fmt"

	"github.com/notesoup/notesoup/dream/headless"
	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
)

// headlessAll is every built-in harness that can run a dream pass without
// a person (headless.Harness, in harness/<name>/dream.go), in the order
// `notesoup dream` lists them; the first is the default. A harness joins
// by defining its Headless and adding one line here, so `notesoup dream`
// names no harness itself.
var headlessAll = []headless.Harness{
	claude.Headless,
	codex.Headless,
	pi.Headless,
}

// WithHeadless returns the built-in harnesses `notesoup dream` can run,
// the default first.
func WithHeadless() []string {
	names := make([]string, len(headlessAll))
	for i, h := range headlessAll {
		names[i] = h.Name
	}
	return names
}

// Headless returns how the named harness runs a prompt headless; the
// error names the harnesses that can.
func Headless(name string) (headless.Harness, error) {
	for _, h := range headlessAll {
		if h.Name == name {
			return h, nil
		}
	}
	return headless.Harness{}, fmt.Errorf("harness %q cannot run a dream pass; use one of %s", name, orNone(WithHeadless()))
}
