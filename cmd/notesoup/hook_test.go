//go:build !light

package main

import "testing"

func TestHookUsage(t *testing.T) {
	for _, args := range [][]string{{"hook"}, {"hook", "claude", "SessionStart"}, {"hook", "codex", "Stop"}, {"hook", "codex"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
