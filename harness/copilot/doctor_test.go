package copilot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// doctorEnv is a doctor environment with a copilot on PATH that prints
// out ("" for no copilot on PATH).
func doctorEnv(out string) harness.DoctorEnv {
	return harness.DoctorEnv{
		LookPath: func(name string) (string, error) {
			if out == "" || name != cliName {
				return "", errors.New("not found")
			}
			return "/fake/bin/" + name, nil
		},
		Run: func(context.Context, string, ...string) (string, error) { return out, nil },
	}
}

func TestDoctor(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, ".copilot")
	t.Setenv("HOME", root)
	t.Setenv(envHome, home)
	bin := filepath.Join(root, "bin", "notesoup")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rows := func(env harness.DoctorEnv) map[string]harness.Check {
		m := map[string]harness.Check{}
		for _, c := range Doctor(context.Background(), env) {
			if c.Subject != Name || c.Status == harness.CheckProblem && c.Fix == "" {
				t.Errorf("row %+v: not about %s, or a problem without a fix", c, Name)
			}
			m[c.Item] = c
		}
		return m
	}
	if r := rows(doctorEnv("")); len(r) != 1 || r["found"].Status != harness.CheckSkip {
		t.Fatalf("no copilot: rows %+v, want one skip", r)
	}

	type want struct{ status, detail string }
	tests := []struct {
		name    string
		version string
		install string // the binary install runs; "" installs nothing
		edit    func(t *testing.T)
		want    map[string]want
	}{
		{"folder only", "", "", func(t *testing.T) { os.MkdirAll(home, 0o700) }, map[string]want{
			"version":    {harness.CheckWarn, "not on PATH"},
			"mcp server": {harness.CheckWarn, "not installed"},
			"hook":       {harness.CheckWarn, "no notesoup hook"},
		}},
		{"installed, tested version", "GitHub Copilot CLI 1.0.102.\n", bin, nil, map[string]want{
			"version":    {harness.CheckOK, "1.0.102 (tested: 1.0.102)"},
			"mcp server": {harness.CheckOK, "runs " + bin},
			"hook":       {harness.CheckOK, "sessionStart hook runs " + bin},
		}},
		{"other version", "1.0.99\n", bin, nil, map[string]want{
			"version": {harness.CheckWarn, "tested with 1.0.102"},
		}},
		{"hook taken out", "1.0.102", bin, func(t *testing.T) { write(t, filepath.Join(home, settingsFile), `{"hooks": {}}`) }, map[string]want{
			"mcp server": {harness.CheckOK, "runs " + bin},
			"hook":       {harness.CheckProblem, "without the boot block"},
		}},
		{"binary gone", "1.0.102", filepath.Join(root, "gone", "notesoup"), nil, map[string]want{
			"mcp server": {harness.CheckProblem, "not an executable file"},
			"hook":       {harness.CheckProblem, "not an executable file"},
		}},
		{"a person's own server", "1.0.102", "", func(t *testing.T) {
			write(t, filepath.Join(home, mcpConfigFile), "// mine\n{\"mcpServers\": {\"notesoup\": {\"command\": \"npx\", \"args\": [\"x\"]}}}")
		}, map[string]want{
			"mcp server": {harness.CheckWarn, "not notesoup's MCP server"},
			"hook":       {harness.CheckProblem, "no notesoup hook"},
		}},
		{"mcp config not JSON", "1.0.102", "", func(t *testing.T) { write(t, filepath.Join(home, mcpConfigFile), `{"mcpServers": `) }, map[string]want{
			"mcp config": {harness.CheckProblem, "not valid JSON"},
		}},
		{"settings not JSON", "1.0.102", bin, func(t *testing.T) { write(t, filepath.Join(home, settingsFile), `{,}`) }, map[string]want{
			"hook": {harness.CheckProblem, "not valid JSON"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			if tc.install != "" {
				if _, err := Install(harness.InstallRequest{Home: home, Binary: tc.install}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.edit != nil {
				tc.edit(t)
			}
			got := rows(doctorEnv(tc.version))
			for item, w := range tc.want {
				if c, ok := got[item]; !ok || c.Status != w.status || !strings.Contains(c.Detail, w.detail) {
					t.Errorf("%s = %+v, want %s with %q", item, c, w.status, w.detail)
				}
			}
		})
	}
}
