package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/reset"
)

// TestThresholds: the point is model.compressionThreshold (0.5 unless the
// settings say otherwise) of the CLI's token limit for the model, the
// settings layered as Gemini layers them (system defaults < user < project
// < system), read as JSON with comments.
func TestThresholds(t *testing.T) {
	cases := []struct {
		name     string
		user     string // $GEMINI_CLI_HOME/.gemini/settings.json
		project  string // <cwd>/.gemini/settings.json
		system   string // $GEMINI_CLI_SYSTEM_SETTINGS_PATH
		defaults string // $GEMINI_CLI_SYSTEM_DEFAULTS_PATH
		in       reset.ThresholdInput
		env      map[string]string
		tokens   int64
		window   int64
		source   string
		note     string // a note that must be present
		capped   bool
		policy   string // PolicySettings
		unres    bool
	}{
		{name: "defaults: half of 1,048,576", tokens: 524_288, window: 1_048_576,
			source: "default model.compressionThreshold 0.5 × token limit 1048576, no model named"},
		{name: "a Gemini model has the default limit", in: reset.ThresholdInput{Model: "gemini-2.5-flash"},
			tokens: 524_288, window: 1_048_576, source: "token limit 1048576 of gemini-2.5-flash"},
		{name: "an unknown model has the default limit too", in: reset.ThresholdInput{Model: "my-tuned-model"},
			tokens: 524_288, window: 1_048_576},
		{name: "Gemma 4 has 256,000", in: reset.ThresholdInput{Model: "gemma-4-31b-it"},
			tokens: 128_000, window: 256_000, source: "token limit 256000 of gemma-4-31b-it"},
		{name: "user threshold, with comments", user: "{\n  // compress early\n  \"model\": {\"compressionThreshold\": 0.2 /* a fifth */}\n}\n",
			tokens: 209_716, window: 1_048_576, source: "model.compressionThreshold 0.2 ×"},
		{name: "project beats user", user: `{"model":{"compressionThreshold":0.2}}`, project: `{"model":{"compressionThreshold":0.3}}`,
			tokens: 314_573, window: 1_048_576, source: "model.compressionThreshold 0.3", note: "trusted folder"},
		{name: "system settings beat the project", project: `{"model":{"compressionThreshold":0.3}}`, system: `{"model":{"compressionThreshold":0.4}}`,
			tokens: 419_431, source: "model.compressionThreshold 0.4"},
		{name: "system defaults lose to the user", defaults: `{"model":{"compressionThreshold":0.1,"name":"gemma-4-26b-a4b-it"}}`, user: `{"model":{"compressionThreshold":0.25}}`,
			tokens: 64_000, window: 256_000, source: "model.compressionThreshold 0.25 × token limit 256000 of gemma-4-26b-a4b-it (model.name)"},
		{name: "nested objects merge key by key", user: `{"model":{"name":"gemma-4-31b-it"}}`, project: `{"model":{"compressionThreshold":0.5}}`,
			tokens: 128_000, window: 256_000},
		{name: "-m beats GEMINI_MODEL beats model.name", user: `{"model":{"name":"gemini-2.5-pro"}}`,
			env: map[string]string{"GEMINI_MODEL": "gemini-3-flash"}, in: reset.ThresholdInput{Overrides: []string{"-m", "gemma-4-31b-it"}},
			tokens: 128_000, source: "(-m gemma-4-31b-it)"},
		{name: "GEMINI_MODEL beats model.name", user: `{"model":{"name":"gemma-4-31b-it"}}`, env: map[string]string{"GEMINI_MODEL": "gemini-2.5-pro"},
			tokens: 524_288, source: "of gemini-2.5-pro ($GEMINI_MODEL)"},
		{name: "caller's model beats everything", env: map[string]string{"GEMINI_MODEL": "gemini-2.5-pro"}, in: reset.ThresholdInput{Model: "gemma-4-31b-it", Overrides: []string{"--model=gemini-2.5-pro"}},
			tokens: 128_000},
		{name: "threshold 0: Gemini's fallback 0.5", user: `{"model":{"compressionThreshold":0}}`,
			tokens: 524_288, source: "model.compressionThreshold 0: Gemini's fallback 0.5", note: "remote experiment"},
		{name: "threshold of the wrong type ignored", user: `{"model":{"compressionThreshold":"0.2"}}`,
			tokens: 524_288, note: "model.compressionThreshold ignored"},
		{name: "negative threshold ignored", user: `{"model":{"compressionThreshold":-0.1}}`,
			tokens: 524_288, note: "model.compressionThreshold ignored"},
		{name: "threshold 1 or more: the whole limit", user: `{"model":{"compressionThreshold":1.5}}`,
			tokens: 1_048_576, note: "not below 1"},
		{name: "broken user file noted, project still read", user: `{"model":{"compressionThreshold":0.2},}`, project: `{"model":{"name":"gemma-4-31b-it"}}`,
			tokens: 128_000, note: "not valid JSON at line 1"},
		{name: "a model window is not Gemini's limit", in: reset.ThresholdInput{ModelWindow: 2_000_000},
			tokens: 524_288, window: 1_048_576, note: "model window 2000000 ignored"},
		{name: "caller's settings replace the files", user: `{"model":{"compressionThreshold":0.2}}`,
			in:     reset.ThresholdInput{Settings: []byte(`{"model":{"compressionThreshold":0.75}, "notesoup":{"resetMarginTokens":1000}}`)},
			tokens: 786_432, policy: `{"notesoup":{"resetMarginTokens":1000}}`},
		{name: "margins from the user settings", user: `{"notesoup":{"warningRunwayTokens":5000}, "security":{"auth":{"selectedType":"gemini-api-key"}}}`,
			tokens: 524_288, policy: `{"notesoup":{"warningRunwayTokens":5000}}`},
		{name: "a runtime cap lowers the point", in: reset.ThresholdInput{Cap: 200_000},
			tokens: 100_000, window: 200_000, capped: true, source: "runtime cap 200k"},
		{name: "a cap above the limit changes nothing", in: reset.ThresholdInput{Cap: 2_000_000},
			tokens: 524_288, window: 1_048_576},
		{name: "unknown override noted", in: reset.ThresholdInput{Overrides: []string{"--yolo"}},
			tokens: 524_288, note: `override "--yolo" ignored`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "work")
			env := map[string]string{
				envHome:           home,
				envSystemSettings: filepath.Join(dir, "etc", "settings.json"),
				envSystemDefaults: filepath.Join(dir, "etc", "system-defaults.json"),
			}
			for k, v := range tc.env {
				env[k] = v
			}
			for path, text := range map[string]string{
				filepath.Join(home, ".gemini", "settings.json"): tc.user,
				filepath.Join(cwd, ".gemini", "settings.json"):  tc.project,
				env[envSystemSettings]:                          tc.system,
				env[envSystemDefaults]:                          tc.defaults,
			} {
				if text == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			in := tc.in
			in.Env, in.Cwd, in.Home = env, cwd, filepath.Join(dir, "unused-home")
			p := Thresholds(in)
			if p.Resolved == tc.unres {
				t.Fatalf("resolved %v: %+v", p.Resolved, p)
			}
			if p.Tokens != tc.tokens {
				t.Errorf("tokens %d, want %d (source %q, notes %q)", p.Tokens, tc.tokens, p.Source, p.Notes)
			}
			if tc.window != 0 && p.Window != tc.window {
				t.Errorf("window %d, want %d", p.Window, tc.window)
			}
			if !strings.Contains(p.Source, tc.source) {
				t.Errorf("source %q lacks %q", p.Source, tc.source)
			}
			if p.CapApplied != tc.capped {
				t.Errorf("cap applied %v, want %v", p.CapApplied, tc.capped)
			}
			if !p.AutoCompactEnabled {
				t.Errorf("Gemini always compresses on its own; AutoCompactEnabled false")
			}
			if tc.note != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, tc.note) }) {
				t.Errorf("notes %q lack %q", p.Notes, tc.note)
			}
			if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "notesoup cannot empty a Gemini window") }) {
				t.Errorf("notes %q do not say notesoup cannot reset Gemini", p.Notes)
			}
			if string(p.PolicySettings) != tc.policy && !(tc.policy == "" && len(p.PolicySettings) == 0) {
				t.Errorf("policy settings %s, want %s", p.PolicySettings, tc.policy)
			}
			if len(tc.in.Settings) == 0 && !slices.Contains(p.Files, filepath.Join(home, ".gemini", "settings.json")) {
				t.Errorf("files %q lack the user settings", p.Files)
			}
		})
	}
}

// TestThresholdsProjectIsHome: run in the Gemini home itself, the project
// layer is the user layer, which Gemini does not read twice.
func TestThresholdsProjectIsHome(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Thresholds(reset.ThresholdInput{Cwd: home, Env: map[string]string{envHome: home, envSystemSettings: filepath.Join(home, "none.json")}})
	if n := strings.Count(strings.Join(p.Files, "\n"), filepath.Join(home, ".gemini", "settings.json")); n != 1 {
		t.Fatalf("user settings consulted %d times: %q", n, p.Files)
	}
}

// TestParseSettings: settings are read as JSON with comments, the way the
// CLI reads them (the comment blanking itself is tested in
// shared/jsonedit): a trailing comma is reported by line, and a top level
// that is not an object is refused.
func TestParseSettings(t *testing.T) {
	if s, err := parseSettings([]byte("{\n// c\n\"a\": /* x */ 1\n}")); err != nil || s["a"] == nil {
		t.Errorf("JSON with comments: %v, %v", s, err)
	}
	if _, err := parseSettings([]byte("{\n// c\n\"a\": [1,2,],\n}")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a trailing comma: %v, want an error naming line 3", err)
	}
	if _, err := parseSettings([]byte(`[1]`)); err == nil {
		t.Errorf("a top-level array parsed")
	}
}
