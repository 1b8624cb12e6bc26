//go:build !light

package main

import (
	"context"
	"errors"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/host"
	"github.com/notesoup/notesoup/internal/testbin"
	"github.com/notesoup/notesoup/shared/reset"
)

// TestOneShotHonoursOverrides: built-ins are called in-process, but a
// harness an external plugin overrides is the plugin's answer, as it is in
// the MCP server.
func TestOneShotHonoursOverrides(t *testing.T) {
	dir := t.TempDir()
	testbin.TestPlugin(t, dir, "pi")
	t.Setenv("NOTESOUP_PLUGIN_DIR", dir)
	t.Setenv("NOTESOUP_HOME", t.TempDir())
	o := newOneShot()
	defer o.Close()
	ctx := context.Background()
	tests := []struct {
		name       string
		inProcess  bool
		wantSource string // Thresholds source; "" = the built-in's own
	}{
		{name: "claude", inProcess: true},
		{name: "codex", inProcess: true},
		{name: "pi", wantSource: "testplugin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hz, err := o.Harness(ctx, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if _, local := hz.(*harness.Builtin); local != tc.inProcess {
				t.Errorf("in-process = %v, want %v (%T)", local, tc.inProcess, hz)
			}
			pt, err := hz.Thresholds(ctx, reset.ThresholdInput{ModelWindow: 200000})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantSource != "" && pt.Source != tc.wantSource {
				t.Errorf("Thresholds source = %q, want the override's %q", pt.Source, tc.wantSource)
			}
			if tc.wantSource == "" && pt.Source == "testplugin" {
				t.Errorf("the built-in %s answered from the test plugin", tc.name)
			}
		})
	}
	if _, err := o.Harness(ctx, "gemini"); !errors.Is(err, host.ErrUnknownHarness) {
		t.Errorf("unknown harness error = %v, want host.ErrUnknownHarness", err)
	}
}
