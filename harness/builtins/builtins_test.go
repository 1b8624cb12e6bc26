package builtins

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestLocalServesEachBuiltin(t *testing.T) {
	if got, want := Names(), []string{"claude", "pi", "codex", "gemini", "copilot"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	var l Local
	for _, name := range Names() {
		hz, err := l.Harness(context.Background(), name)
		if err != nil {
			t.Fatalf("Harness(%q): %v", name, err)
		}
		d, err := hz.Describe(context.Background())
		if err != nil || d.Name != name {
			t.Errorf("Harness(%q).Describe() = %q, %v; want its own name", name, d.Name, err)
		}
		again, _ := l.Harness(context.Background(), name)
		if again != hz {
			t.Errorf("Harness(%q) built a second instance; want the first reused", name)
		}
	}
}

func TestLocalRefusesUnknownNames(t *testing.T) {
	var l Local
	for _, name := range []string{"", "Claude", "bard", "notesoup-harness-pi"} {
		_, err := l.Harness(context.Background(), name)
		if !errors.Is(err, ErrUnknownHarness) {
			t.Errorf("Harness(%q) error = %v, want ErrUnknownHarness", name, err)
		}
		if _, ok := New(name); ok {
			t.Errorf("New(%q) found a harness", name)
		}
	}
}
