package builtins

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/service"
)

func TestHooksAndInstallersAreFoundByName(t *testing.T) {
	// codex and gemini answer hooks (a harness added later may too).
	for _, name := range []string{"codex", "gemini"} {
		if !slices.Contains(WithHook(), name) {
			t.Errorf("WithHook() = %v: want it to hold %s", WithHook(), name)
		}
	}
	if slices.Contains(WithHook(), "claude") || slices.Contains(WithHook(), "pi") {
		t.Errorf("WithHook() = %v: claude and pi run their own integrations, not notesoup hook", WithHook())
	}
	// claude, pi and codex install and report doctor rows (a harness added
	// later may too, so these are checked as members).
	for _, name := range []string{"claude", "pi", "codex"} {
		if !slices.Contains(WithInstaller(), name) || !slices.Contains(WithDoctor(), name) {
			t.Errorf("WithInstaller() = %v, WithDoctor() = %v: want both to hold %s", WithInstaller(), WithDoctor(), name)
		}
		if inst, err := Installer(name); err != nil || inst.HomeFlag == "" || inst.Install == nil || inst.Uninstall == nil {
			t.Errorf("Installer(%s) = %+v, %v", name, inst, err)
		}
	}
	if inst, _ := Installer("codex"); inst.Package != "" {
		t.Errorf("codex installs no package, Installer says %q", inst.Package)
	}
	if _, err := Installer("emacs"); err == nil || !strings.Contains(err.Error(), "claude, pi, codex") {
		t.Errorf("Installer(emacs): err = %v, want one naming the harnesses with installers", err)
	}
}

// failingStdin fails the test if the hook reads it.
type failingStdin struct{ t *testing.T }

func (r failingStdin) Read([]byte) (int, error) {
	r.t.Error("stdin was read")
	return 0, errors.New("not to be read")
}

func TestRunHookRefusesBeforeReading(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		disabled bool
		code     int
		stderr   string
	}{
		{"no arguments", nil, false, 2, "Usage: notesoup hook <harness> <event>"},
		{"one argument", []string{"codex"}, false, 2, "codex: SessionStart, PostToolUse, UserPromptSubmit"},
		{"a harness without a hook", []string{"claude", "SessionStart"}, false, 2, `harness "claude" has no notesoup hook; harnesses with one: codex`},
		{"no such harness", []string{"emacs", "SessionStart"}, false, 2, `harness "emacs" has no notesoup hook`},
		{"an event the hook does not answer", []string{"codex", "Stop"}, false, 2, `event "Stop" is not handled; use SessionStart, PostToolUse, UserPromptSubmit`},
		{"disabled", []string{"codex", "SessionStart"}, true, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.disabled {
				t.Setenv(disabledEnv, "1")
			}
			opened := false
			open := func() (*service.Service, func(), error) {
				opened = true
				return nil, nil, errors.New("not to be opened")
			}
			var out, errb bytes.Buffer
			code := RunHook(context.Background(), "notesoup hook", open, tc.args, failingStdin{t}, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.stderr) || out.Len() != 0 || opened {
				t.Errorf("exit %d, stderr %q, stdout %q, service opened %v; want exit %d and stderr with %q", code, errb.String(), out.String(), opened, tc.code, tc.stderr)
			}
		})
	}
}
