//go:build !light

package main

import (
	"strings"
	"testing"
)

func TestHookUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"hook"}, "Usage: notesoup hook <harness> <event>"},
		{[]string{"hook", "claude", "SessionStart"}, "harnesses with one: codex"},
		{[]string{"hook", "codex", "Stop"}, `event "Stop" is not handled`},
		{[]string{"hook", "codex"}, "Usage:"},
	}
	for _, tc := range tests {
		if _, errOut, code := runCLI(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
