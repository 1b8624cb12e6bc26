package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

// model is a provider configuration with one model and these limits.
func model(limit string) string {
	return `{"provider":{"local":{"models":{"m":{"limit":` + limit + `}}}}}`
}

// TestThresholdsOpenCodeRule checks the point against OpenCode 1.18.33's
// isOverflow/usable rule, one branch per row.
func TestThresholdsOpenCodeRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string
		env      map[string]string
		model    string
		capT     int64
		want     int64 // 0: unresolved
		auto     bool
		reason   string
	}{
		{name: "context minus output", settings: model(`{"context":128000,"output":8192}`), model: "local/m", want: 128000 - 8192, auto: true},
		{name: "output above the 32k cap", settings: model(`{"context":200000,"output":64000}`), model: "local/m", want: 200000 - 32000, auto: true},
		{name: "no output limit means the cap", settings: model(`{"context":100000}`), model: "local/m", want: 100000 - 32000, auto: true},
		{name: "env output cap", settings: model(`{"context":200000,"output":64000}`), env: map[string]string{envOutputTokenMax: "16000"}, model: "local/m", want: 200000 - 16000, auto: true},
		{name: "bad env output cap ignored", settings: model(`{"context":200000,"output":64000}`), env: map[string]string{envOutputTokenMax: "lots"}, model: "local/m", want: 200000 - 32000, auto: true},
		{name: "input limit less reserve capped at 20k", settings: model(`{"context":400000,"input":272000,"output":128000}`), model: "local/m", want: 272000 - 20000, auto: true},
		{name: "input limit less small output", settings: model(`{"context":400000,"input":272000,"output":8000}`), model: "local/m", want: 272000 - 8000, auto: true},
		{name: "compaction.reserved with input", settings: `{"compaction":{"reserved":5000},` + model(`{"context":400000,"input":272000,"output":128000}`)[1:], model: "local/m", want: 272000 - 5000, auto: true},
		{name: "compaction.reserved ignored without input", settings: `{"compaction":{"reserved":5000},` + model(`{"context":100000,"output":4000}`)[1:], model: "local/m", want: 96000, auto: true},
		{name: "auto off still gives the point", settings: `{"compaction":{"auto":false},` + model(`{"context":100000,"output":4000}`)[1:], model: "local/m", want: 96000, auto: false},
		{name: "model from config", settings: `{"model":"local/m",` + model(`{"context":100000,"output":4000}`)[1:], want: 96000, auto: true},
		{name: "runtime cap", settings: model(`{"context":100000,"output":4000}`), model: "local/m", capT: 50000, want: 46000, auto: true},
		{name: "jsonc", settings: "// mine\n" + model(`{"context":100000, /* out */ "output":4000}`), model: "local/m", want: 96000, auto: true},
		{name: "no model", settings: model(`{"context":100000}`), auto: true, reason: "no model named"},
		{name: "model not provider/model", settings: model(`{"context":100000}`), model: "m", auto: true, reason: "want provider/model"},
		{name: "model not configured", settings: model(`{"context":100000}`), model: "anthropic/claude", auto: true, reason: "models.dev"},
		{name: "context 0 never compacts", settings: model(`{"context":0,"output":4000}`), model: "local/m", auto: true, reason: "never compacts"},
		{name: "output above context", settings: model(`{"context":10000,"output":20000}`), model: "local/m", auto: true, reason: "no positive compaction point"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Harness{}.Thresholds(context.Background(), contract.ThresholdInput{
				Settings: []byte(tc.settings), Env: tc.env, Model: tc.model, Cap: tc.capT,
			})
			if err != nil {
				t.Fatal(err)
			}
			if p.AutoCompactEnabled != tc.auto {
				t.Errorf("auto %v, want %v", p.AutoCompactEnabled, tc.auto)
			}
			if tc.want == 0 {
				if p.Resolved || !strings.Contains(p.Reason, tc.reason) {
					t.Errorf("got %+v; want unresolved with %q", p, tc.reason)
				}
				return
			}
			if !p.Resolved || p.Tokens != tc.want {
				t.Errorf("got %d (%+v); want %d", p.Tokens, p, tc.want)
			}
			if tc.capT > 0 && (!p.CapApplied || p.Window != tc.capT) {
				t.Errorf("cap not applied: %+v", p)
			}
		})
	}
}

// TestThresholdsConfigLayers reads OpenCode's own files: the global
// folder, $OPENCODE_CONFIG, the project's file and $OPENCODE_CONFIG_CONTENT,
// later layers winning key by key.
func TestThresholdsConfigLayers(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	extra := filepath.Join(t.TempDir(), "extra.json")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	global := filepath.Join(home, ".config", "opencode", "opencode.jsonc")
	write(global, "// global\n{\"model\":\"local/m\","+model(`{"context":100000,"output":4000}`)[1:])
	write(extra, model(`{"output":10000}`))
	write(filepath.Join(cwd, "opencode.json"), `{"compaction":{"auto":false}}`)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int64
		auto bool
	}{
		{name: "global and project", want: 96000, auto: false},
		{name: "OPENCODE_CONFIG overrides output", env: map[string]string{envConfig: extra}, want: 90000, auto: false},
		{name: "content wins last", env: map[string]string{envConfig: extra, envConfigContent: `{"compaction":{"auto":true},` + model(`{"context":60000}`)[1:]}, want: 50000, auto: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := Harness{}.Thresholds(context.Background(), contract.ThresholdInput{Home: home, Cwd: cwd, Env: tc.env})
			if !p.Resolved || p.Tokens != tc.want || p.AutoCompactEnabled != tc.auto {
				t.Errorf("got %+v; want %d auto %v", p, tc.want, tc.auto)
			}
			found := false
			for _, f := range p.Files {
				found = found || f == global
			}
			if !found {
				t.Errorf("files %v lack %s", p.Files, global)
			}
		})
	}
	// A broken layer is named, not fatal.
	write(filepath.Join(cwd, "opencode.jsonc"), "{ not json")
	p, _ := Harness{}.Thresholds(context.Background(), contract.ThresholdInput{Home: home, Cwd: cwd})
	if !p.Resolved || !strings.Contains(strings.Join(p.Notes, "\n"), "opencode.jsonc ignored") {
		t.Errorf("got %+v; want resolved with the broken file named", p)
	}
}
