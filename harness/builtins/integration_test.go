package builtins

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/service"
)

func TestHooksAndInstallersAreFoundByName(t *testing.T) {
	if got, want := WithHook(), []string{"codex"}; !reflect.DeepEqual(got, want) {
		t.Errorf("WithHook() = %v, want %v", got, want)
	}
	if got, want := WithInstaller(), []string{"codex"}; !reflect.DeepEqual(got, want) {
		t.Errorf("WithInstaller() = %v, want %v", got, want)
	}
	if inst, err := Installer("codex"); err != nil || inst.HomeFlag == "" || inst.Install == nil || inst.Uninstall == nil {
		t.Errorf("Installer(codex) = %+v, %v", inst, err)
	}
	for _, name := range []string{"claude", "pi", "emacs"} {
		if _, err := Installer(name); err == nil || !strings.Contains(err.Error(), "installs into codex") {
			t.Errorf("Installer(%q): err = %v, want one naming codex", name, err)
		}
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
