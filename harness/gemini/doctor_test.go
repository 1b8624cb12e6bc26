package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// doctorEnv is a doctor environment with a gemini on PATH that prints ver
// ("" for no gemini on PATH).
func doctorEnv(ver string) harness.DoctorEnv {
	return harness.DoctorEnv{
		LookPath: func(name string) (string, error) {
			if ver == "" || name != cliName {
				return "", errors.New("not found")
			}
			return "/fake/bin/" + name, nil
		},
		Run: func(_ context.Context, name string, args ...string) (string, error) {
			return ver + "\n", nil
		},
	}
}

// doctorRows runs Doctor and returns its rows by item.
func doctorRows(t *testing.T, env harness.DoctorEnv) map[string]harness.Check {
	t.Helper()
	rows := map[string]harness.Check{}
	for _, c := range Doctor(context.Background(), env) {
		if c.Subject != Name {
			t.Errorf("row %+v is not about %s", c, Name)
		}
		if c.Status == harness.CheckProblem && c.Fix == "" {
			t.Errorf("problem without a fix: %+v", c)
		}
		rows[c.Item] = c
	}
	return rows
}

// installedSettings is settings.json as install writes it for bin, with
// edit applied to its decoded form.
func installedSettings(t *testing.T, bin string, edit func(m map[string]any)) string {
	t.Helper()
	text, _, err := mergeSettings(nil, bin)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(text, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDoctor(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv(envHome, root)
	dir := filepath.Join(root, ".gemini")
	bin := filepath.Join(root, "bin", "notesoup")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, settingsFile)

	// Nothing of Gemini's on this machine: one skip row.
	rows := doctorRows(t, doctorEnv(""))
	if len(rows) != 1 || rows["found"].Status != harness.CheckSkip {
		t.Fatalf("no gemini: rows %+v, want one skip", rows)
	}

	type want struct{ status, detail string }
	tests := []struct {
		name     string
		ver      string
		settings string // "-" for no settings.json
		want     map[string]want
	}{
		{"folder only, not installed", "", "-", map[string]want{
			"version":              {harness.CheckWarn, "not on PATH"},
			"mcp server":           {harness.CheckWarn, "not installed"},
			"transcript retention": {harness.CheckProblem, `maxAge = 30d (default)`},
		}},
		{"installed, tested version, default retention", "0.61.0", installedSettings(t, bin, nil), map[string]want{
			"version":              {harness.CheckOK, "0.61.0 (tested: 0.61.0)"},
			"mcp server":           {harness.CheckOK, "runs " + bin},
			"hooks":                {harness.CheckOK, "SessionStart, AfterTool, BeforeAgent"},
			"transcript retention": {harness.CheckProblem, "deletes older chats"},
		}},
		{"other version, retention off", "0.60.1", installedSettings(t, bin, func(m map[string]any) {
			m["general"] = map[string]any{"sessionRetention": map[string]any{"enabled": false}}
		}), map[string]want{
			"version":              {harness.CheckWarn, "tested with 0.61.0"},
			"transcript retention": {harness.CheckOK, "chats are kept"},
		}},
		{"retention shortened", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			m["general"] = map[string]any{"sessionRetention": map[string]any{"maxAge": "7d"}}
		}), map[string]want{
			"transcript retention": {harness.CheckProblem, "maxAge = 7d"},
		}},
		{"no SessionStart hook", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			delete(m["hooks"].(map[string]any), SessionStart)
		}), map[string]want{
			"hooks": {harness.CheckProblem, "without the boot block"},
		}},
		{"no AfterTool hook", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			delete(m["hooks"].(map[string]any), AfterTool)
		}), map[string]want{
			"hooks": {harness.CheckWarn, "no budget warning"},
		}},
		{"hooks off", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			m["hooksConfig"] = map[string]any{"enabled": false}
		}), map[string]want{
			"hooks": {harness.CheckProblem, "runs no hooks"},
		}},
		{"notesoup's hooks disabled", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			m["hooksConfig"] = map[string]any{"disabled": []string{"notesoup"}}
		}), map[string]want{
			"hooks": {harness.CheckProblem, "hooksConfig.disabled"},
		}},
		{"server excluded", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			m["mcp"] = map[string]any{"excluded": []string{"notesoup"}}
		}), map[string]want{
			"mcp server": {harness.CheckProblem, "mcp.excluded"},
		}},
		{"server not allowed", "0.61.0", installedSettings(t, bin, func(m map[string]any) {
			m["mcp"] = map[string]any{"allowed": []string{"other"}}
		}), map[string]want{
			"mcp server": {harness.CheckProblem, "mcp.allowed"},
		}},
		{"binary gone", "0.61.0", installedSettings(t, filepath.Join(root, "gone", "notesoup"), nil), map[string]want{
			"mcp server": {harness.CheckProblem, "not an executable file"},
			"hooks":      {harness.CheckProblem, "not an executable file"},
		}},
		{"a person's own server", "0.61.0", `{"mcpServers": {"notesoup": {"command": "npx", "args": ["other"]}}}`, map[string]want{
			"mcp server": {harness.CheckWarn, "not notesoup's MCP server"},
			"hooks":      {harness.CheckProblem, "no notesoup hook for SessionStart"},
		}},
		{"comments are fine", "0.61.0", "// mine\n" + installedSettings(t, bin, nil), map[string]want{
			"mcp server": {harness.CheckOK, "runs " + bin},
		}},
		{"not JSON", "0.61.0", `{"mcpServers": {`, map[string]want{
			"settings": {harness.CheckProblem, "not valid JSON"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.settings != "-" {
				if err := os.WriteFile(settings, []byte(tc.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			rows := doctorRows(t, doctorEnv(tc.ver))
			for item, w := range tc.want {
				c, ok := rows[item]
				if !ok || c.Status != w.status || !strings.Contains(c.Detail, w.detail) {
					t.Errorf("%s = %+v, want %s with %q", item, c, w.status, w.detail)
				}
			}
			if r, ok := rows["transcript retention"]; ok && r.Status == harness.CheckProblem {
				// The fix turns the deletion off, in the file that is there
				// or a new one.
				if !strings.Contains(r.Fix, `"sessionRetention": {"enabled": false}`) || !strings.Contains(r.Fix, settings) {
					t.Errorf("retention fix %q", r.Fix)
				}
			}
		})
	}
}
