package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/reset"
)

func TestThresholds(t *testing.T) {
	const catalog = `{"fetched_at":"x","models":[
	  {"slug":"gpt-big","context_window":1000000,"max_context_window":1000000,"auto_compact_token_limit":null},
	  {"slug":"gpt-limited","context_window":1000000,"auto_compact_token_limit":500000},
	  {"slug":"gpt-max-only","max_context_window":400000},
	  {"slug":"gpt-bad","context_window":"lots"}]}`
	cases := []struct {
		name    string
		config  string            // $CODEX_HOME/config.toml
		files   map[string]string // other files under CODEX_HOME
		in      reset.ThresholdInput
		homeEnv bool // put CODEX_HOME in Env instead of using Home/.codex
		tokens  int64
		window  int64
		source  string
		capped  bool
		notes   int
	}{
		{name: "unknown model: 90% of the fallback window", in: reset.ThresholdInput{Model: "fake-model"},
			tokens: 244_800, window: 272_000, source: "Codex default: 90% of Codex fallback metadata window 272000"},
		{name: "caller's model window", in: reset.ThresholdInput{Model: "m", ModelWindow: 400_000},
			tokens: 360_000, window: 400_000, source: "90% of model window 400000"},
		{name: "config.toml limit (default openai provider: not clamped to 90%)", config: "model_auto_compact_token_limit = 250000\n",
			in: reset.ThresholdInput{Model: "m"}, tokens: 250_000, window: 272_000, source: "model_auto_compact_token_limit from config.toml"},
		{name: "openai provider: a limit above the window is held at the effective window", in: reset.ThresholdInput{Model: "m", Overrides: []string{"-c", "model_auto_compact_token_limit=900000"}},
			tokens: 258_400, window: 272_000, source: "above the effective window", notes: 1},
		{name: "local provider: limit clamped to 90%", config: "model_provider = \"fake\"\nmodel_auto_compact_token_limit = 260000\n",
			in: reset.ThresholdInput{Model: "m"}, tokens: 244_800, window: 272_000, source: "clamped to 90%"},
		{name: "local provider: a lower limit stands (observed -c 50000)", config: "model_provider = \"fake\"\n",
			in:     reset.ThresholdInput{Model: "fake-model", Overrides: []string{"-c", "model_auto_compact_token_limit=50000"}},
			tokens: 50_000, window: 272_000, source: "from -c model_auto_compact_token_limit"},
		{name: "-c beats config and profile", config: "model_auto_compact_token_limit = 100000\nprofile = \"small\"\n[profiles.small]\nmodel_auto_compact_token_limit = 30000\n",
			in: reset.ThresholdInput{Overrides: []string{"-c model_auto_compact_token_limit=40000"}}, tokens: 40_000, window: 272_000, source: "-c model_auto_compact_token_limit"},
		{name: "profile table selected by --profile", config: "model_auto_compact_token_limit = 100000\n[profiles.small]\nmodel_auto_compact_token_limit = 30000\n",
			in: reset.ThresholdInput{Overrides: []string{"--profile", "small"}}, tokens: 30_000, window: 272_000, source: "profile small in config.toml"},
		{name: "profile selected in config.toml", config: "profile = \"small\"\nmodel_auto_compact_token_limit = 100000\n[profiles.small]\nmodel_auto_compact_token_limit = 30000\n",
			tokens: 30_000, window: 272_000, source: "profile small in config.toml"},
		{name: "profile file layer", config: "model_auto_compact_token_limit = 100000\n", files: map[string]string{"tiny.config.toml": "model_auto_compact_token_limit = 20000\n"},
			in: reset.ThresholdInput{Overrides: []string{"-p", "tiny"}}, tokens: 20_000, window: 272_000, source: "tiny.config.toml"},
		{name: "profile selected by -c profile=", config: "[profiles.small]\nmodel_auto_compact_token_limit = 30000\n",
			in: reset.ThresholdInput{Overrides: []string{"--config=profile=\"small\""}}, tokens: 30_000, window: 272_000, source: "profile small"},
		{name: "missing profile noted", in: reset.ThresholdInput{Overrides: []string{"--profile=nope"}},
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 1},
		{name: "model_context_window from config", config: "model_context_window = 100000\n", in: reset.ThresholdInput{Model: "gpt-big", ModelWindow: 1_000_000},
			tokens: 90_000, window: 100_000, source: "90% of model_context_window from config.toml"},
		{name: "catalog window", files: map[string]string{"models_cache.json": catalog}, in: reset.ThresholdInput{Model: "gpt-big"},
			tokens: 900_000, window: 1_000_000, source: "models_cache.json context_window of gpt-big"},
		{name: "catalog limit", files: map[string]string{"models_cache.json": catalog}, in: reset.ThresholdInput{Model: "gpt-limited"},
			tokens: 500_000, window: 1_000_000, source: "auto_compact_token_limit of gpt-limited"},
		{name: "catalog max_context_window", files: map[string]string{"models_cache.json": catalog}, in: reset.ThresholdInput{Model: "gpt-max-only"},
			tokens: 360_000, window: 400_000, source: "context_window of gpt-max-only"},
		{name: "catalog bad field noted", files: map[string]string{"models_cache.json": catalog}, in: reset.ThresholdInput{Model: "gpt-bad"},
			tokens: 244_800, window: 272_000, source: "fallback", notes: 1},
		{name: "model from -m selects the catalog entry", files: map[string]string{"models_cache.json": catalog}, in: reset.ThresholdInput{Overrides: []string{"-m", "gpt-big"}},
			tokens: 900_000, window: 1_000_000, source: "gpt-big"},
		{name: "model from config selects the catalog entry", config: "model = \"gpt-big\"\n", files: map[string]string{"models_cache.json": catalog},
			tokens: 900_000, window: 1_000_000, source: "gpt-big"},
		{name: "limit of the wrong type ignored", config: "model_auto_compact_token_limit = \"50000\"\n",
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 1},
		{name: "-c value that is not TOML is a string, ignored", in: reset.ThresholdInput{Overrides: []string{"-c", "model_auto_compact_token_limit=lots"}},
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 1},
		{name: "negative limit ignored", config: "model_auto_compact_token_limit = -1\n",
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 1},
		{name: "broken config.toml noted", config: "model_auto_compact_token_limit = \n",
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 1},
		{name: "unknown flag noted, missing value noted", in: reset.ThresholdInput{Overrides: []string{"--full-auto", "-c"}},
			tokens: 244_800, window: 272_000, source: "Codex default", notes: 2},
		{name: "CODEX_HOME relocates the config", homeEnv: true, config: "model_auto_compact_token_limit = 70000\n",
			tokens: 70_000, window: 272_000, source: "config.toml"},
		{name: "runtime cap lowers the default", in: reset.ThresholdInput{Cap: 100_000},
			tokens: 90_000, window: 100_000, source: "runtime cap 100k", capped: true},
		{name: "runtime cap cannot raise a lower limit", config: "model_auto_compact_token_limit = 50000\n", in: reset.ThresholdInput{Cap: 100_000},
			tokens: 50_000, window: 100_000, source: "runtime cap 100k"},
		{name: "dotted -c leaves the rest of a table", config: "model_provider = \"fake\"\n[model_providers.fake]\nname = \"x\"\n",
			in:     reset.ThresholdInput{Overrides: []string{"-c", "model_providers.fake.base_url=\"http://127.0.0.1:1\"", "-c", "model_auto_compact_token_limit=300000"}},
			tokens: 244_800, window: 272_000, source: "clamped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			in := c.in
			home := filepath.Join(root, "home", ".codex")
			in.Home = filepath.Join(root, "home")
			if c.homeEnv {
				home = filepath.Join(root, "elsewhere")
				in.Env = map[string]string{thresholdCodexHomeEnv: home}
				// The default location must then be ignored.
				write(t, filepath.Join(root, "home", ".codex", "config.toml"), "model_auto_compact_token_limit = 1\n")
			}
			if c.config != "" {
				write(t, filepath.Join(home, "config.toml"), c.config)
			}
			for name, content := range c.files {
				write(t, filepath.Join(home, name), content)
			}
			p := Thresholds(in)
			if !p.Resolved || p.Tokens != c.tokens || p.Window != c.window {
				t.Fatalf("got %d of %d (%s; %s; notes %q), want %d of %d", p.Tokens, p.Window, p.Source, p.Reason, p.Notes, c.tokens, c.window)
			}
			if !strings.HasPrefix(p.Source, "codex: ") || !strings.Contains(p.Source, c.source) {
				t.Fatalf("source %q, want it to name %q", p.Source, c.source)
			}
			// Every point carries the no-automatic-reset note after the
			// configuration's own.
			if p.AutoCompactEnabled || p.CapApplied != c.capped || len(p.Notes) != c.notes+1 || p.Notes[len(p.Notes)-1] != noResetNote {
				t.Fatalf("auto %v capped %v notes %q", p.AutoCompactEnabled, p.CapApplied, p.Notes)
			}
			if !containsFile(p.Files, filepath.Join(home, "config.toml")) {
				t.Fatalf("files %q do not list config.toml", p.Files)
			}
		})
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func containsFile(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestThresholdsWired(t *testing.T) {
	if Plugin().Resolve == nil || Plugin().Resolve(reset.ThresholdInput{Home: t.TempDir()}).Tokens != 244_800 {
		t.Fatalf("the plugin's resolver is not Thresholds")
	}
}

// TestCapOnlyLowers: over windows, limits and caps, the cap never raises
// the point.
func TestCapOnlyLowers(t *testing.T) {
	home := t.TempDir()
	for _, window := range []int64{100_000, 272_000, 1_000_000} {
		for _, limit := range []string{"", "model_auto_compact_token_limit=50000", "model_auto_compact_token_limit=900000"} {
			for _, capTokens := range []int64{1, 60_000, 150_000, 5_000_000} {
				in := reset.ThresholdInput{ModelWindow: window, Home: home}
				if limit != "" {
					in.Overrides = []string{"-c", limit}
				}
				base := Thresholds(in)
				in.Cap = capTokens
				capped := Thresholds(in)
				if capped.Resolved && base.Resolved && capped.Tokens > base.Tokens {
					t.Fatalf("window %d %s cap %d: %d raised %d", window, limit, capTokens, capped.Tokens, base.Tokens)
				}
				if capped.Resolved && capped.Tokens > capped.Window {
					t.Fatalf("point %d above its window %d", capped.Tokens, capped.Window)
				}
				if capped.Resolved && capped.Window > capTokens && capTokens < window {
					t.Fatalf("capped window %d above cap %d", capped.Window, capTokens)
				}
			}
		}
	}
}

// TestThresholdsNoAutomaticReset: notesoup cannot reset a Codex window, so
// its limits say automatic resets are off (`notesoup limits --harness
// codex` read "automatic resets on"), keep the warning, and say that
// Codex compacts by itself at the native point.
func TestThresholdsNoAutomaticReset(t *testing.T) {
	for _, tc := range []struct {
		name        string
		modelWindow int64
	}{
		{"resolved", 200000},
		{"fallback window", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := Thresholds(reset.ThresholdInput{Model: "gpt-test", ModelWindow: tc.modelWindow, Env: map[string]string{envHome: home}, Cwd: home})
			if !p.Resolved {
				t.Fatalf("unresolved: %s", p.Reason)
			}
			l, err := reset.ComputeLimits(p, reset.DefaultMargins(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if l.AutoReset {
				t.Errorf("AutoReset = true: notesoup has no automatic reset in Codex")
			}
			if !l.WarningsEnabled || !l.Resolved {
				t.Errorf("warnings %v, resolved %v: the warning must stay", l.WarningsEnabled, l.Resolved)
			}
			found := false
			for _, n := range p.Notes {
				found = found || strings.Contains(n, "Codex compacts the conversation on its own")
			}
			if !found {
				t.Errorf("notes %q do not say that Codex compacts on its own", p.Notes)
			}
		})
	}
}
