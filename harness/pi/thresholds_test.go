package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/reset"
)

func writeThresholdFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestThresholds(t *testing.T) {
	const models = `{"providers":{
	  "fake":{"baseUrl":"http://127.0.0.1:1/v1","models":[{"id":"fake-model","contextWindow":32000},{"id":"no-window"},{"id":"bad-window","contextWindow":"big"}]},
	  "anthropic":{"modelOverrides":{"claude-x":{"contextWindow":150000},"claude-y":{"contextWindow":150000}},"models":[{"id":"claude-y","contextWindow":100000}]},
	  "zeta":{"models":[{"id":"fake-model","contextWindow":64000}]}}}`
	cases := []struct {
		name    string
		global  string // <home>/.pi/agent/settings.json ("" = absent)
		project string // <cwd>/.pi/settings.json
		agentIn string // PI_CODING_AGENT_DIR relative to the temp dir ("" = unset)
		models  string
		in      reset.ThresholdInput
		tokens  int64
		window  int64
		source  string
		off     bool
		capped  bool
		notes   int
	}{
		{name: "defaults: window − 16384", in: reset.ThresholdInput{ModelWindow: 200_000},
			tokens: 183_616, window: 200_000, source: "model window 200000 − default reserveTokens 16384"},
		{name: "global reserveTokens (observed 32000 − 2000)", global: `{"compaction":{"enabled":true,"reserveTokens":2000,"keepRecentTokens":30}}`,
			in: reset.ThresholdInput{ModelWindow: 32_000}, tokens: 30_000, window: 32_000, source: "compaction.reserveTokens 2000"},
		{name: "project overrides global, deep merge keeps enabled", global: `{"compaction":{"enabled":false,"reserveTokens":2000}}`, project: `{"compaction":{"reserveTokens":4000}}`,
			in: reset.ThresholdInput{ModelWindow: 32_000}, tokens: 28_000, window: 32_000, source: "reserveTokens 4000", off: true},
		{name: "compaction disabled", global: `{"compaction":{"enabled":false}}`,
			in: reset.ThresholdInput{ModelWindow: 100_000}, tokens: 83_616, window: 100_000, source: "compaction.enabled false", off: true},
		{name: "PI_CODING_AGENT_DIR relocates the global settings", agentIn: "agentdir", global: `{"compaction":{"reserveTokens":1}}`,
			in: reset.ThresholdInput{ModelWindow: 100_000}, tokens: 83_616, window: 100_000, source: "default reserveTokens"},
		{name: "caller's merged settings win over files", global: `{"compaction":{"reserveTokens":2000}}`,
			in: reset.ThresholdInput{ModelWindow: 100_000, Settings: []byte(`{"compaction":{"reserveTokens":10000}}`)}, tokens: 90_000, window: 100_000, source: "reserveTokens 10000"},
		{name: "wrong types fall back to defaults", global: `{"compaction":{"enabled":"no","reserveTokens":"2000"}}`,
			in: reset.ThresholdInput{ModelWindow: 100_000}, tokens: 83_616, window: 100_000, source: "default", notes: 2},
		{name: "broken settings file noted", global: `{`,
			in: reset.ThresholdInput{ModelWindow: 100_000}, tokens: 83_616, window: 100_000, source: "default", notes: 1},
		{name: "window from the usage report", in: reset.ThresholdInput{Usage: []byte(`{"tokens":null,"contextWindow":32000,"percent":null}`)},
			tokens: 15_616, window: 32_000, source: "usage.contextWindow 32000"},
		{name: "custom model window from models.json", models: models, in: reset.ThresholdInput{Model: "fake/fake-model"},
			tokens: 15_616, window: 32_000, source: "providers.fake.models[fake-model]"},
		{name: "bare model id: first provider in name order", models: models, in: reset.ThresholdInput{Model: "fake-model"},
			tokens: 15_616, window: 32_000, source: "providers.fake.models"},
		{name: "per-model override", models: models, in: reset.ThresholdInput{Model: "anthropic/claude-x"},
			tokens: 133_616, window: 150_000, source: "modelOverrides.claude-x.contextWindow"},
		{name: "caller's window beats models.json", models: models, in: reset.ThresholdInput{Model: "fake/fake-model", ModelWindow: 64_000},
			tokens: 47_616, window: 64_000, source: "model window 64000"},
		{name: "runtime cap", in: reset.ThresholdInput{ModelWindow: 200_000, Cap: 100_000},
			tokens: 83_616, window: 100_000, source: "runtime cap 100k", capped: true},
		{name: "cap above window", in: reset.ThresholdInput{ModelWindow: 200_000, Cap: 300_000},
			tokens: 183_616, window: 200_000, source: "default"},
		{name: "custom model without a window gets Pi's default", models: models, in: reset.ThresholdInput{Model: "fake/no-window"},
			tokens: 111_616, window: 128_000, source: "default contextWindow 128000"},
		{name: "custom model replaces the built-in override", models: models, in: reset.ThresholdInput{Model: "anthropic/claude-y"},
			tokens: 83_616, window: 100_000, source: "providers.anthropic.models[claude-y]"},
		{name: "window of the wrong type is unresolved", models: models, in: reset.ThresholdInput{Model: "fake/bad-window"},
			source: "context window is unknown", notes: 1},
		{name: "unknown model is unresolved", models: models, in: reset.ThresholdInput{Model: "fake/none"},
			source: "context window is unknown"},
		{name: "reserve larger than window is unresolved", global: `{"compaction":{"reserveTokens":50000}}`, in: reset.ThresholdInput{ModelWindow: 32_000},
			window: 32_000, source: "no room"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			in := c.in
			in.Home = filepath.Join(root, "home")
			in.Cwd = filepath.Join(root, "work")
			agent := filepath.Join(in.Home, ".pi", "agent")
			if c.agentIn != "" {
				agent = filepath.Join(root, c.agentIn)
				in.Env = map[string]string{thresholdAgentDirEnv: agent}
				// The default location must then be ignored.
				writeThresholdFile(t, filepath.Join(in.Home, ".pi", "agent", "settings.json"), c.global)
			}
			if c.global != "" && c.agentIn == "" {
				writeThresholdFile(t, filepath.Join(agent, "settings.json"), c.global)
			}
			if c.project != "" {
				writeThresholdFile(t, filepath.Join(in.Cwd, ".pi", "settings.json"), c.project)
			}
			if c.models != "" {
				writeThresholdFile(t, filepath.Join(agent, "models.json"), c.models)
			}
			p := Thresholds(in)
			if c.tokens == 0 {
				if p.Resolved || !strings.Contains(p.Reason, c.source) {
					t.Fatalf("got %+v, want unresolved: %q", p, c.source)
				}
				return
			}
			if !p.Resolved || p.Tokens != c.tokens || p.Window != c.window {
				t.Fatalf("got %d of %d (%s; %s; notes %q), want %d of %d", p.Tokens, p.Window, p.Source, p.Reason, p.Notes, c.tokens, c.window)
			}
			if !strings.HasPrefix(p.Source, "pi: ") || !strings.Contains(p.Source, c.source) {
				t.Fatalf("source %q, want it to name %q", p.Source, c.source)
			}
			if p.AutoCompactEnabled == c.off || p.CapApplied != c.capped || len(p.Notes) != c.notes {
				t.Fatalf("auto %v capped %v notes %q", p.AutoCompactEnabled, p.CapApplied, p.Notes)
			}
			if len(in.Settings) == 0 && !containsPath(p.Files, filepath.Join(agent, "settings.json")) {
				t.Fatalf("files %q do not list the global settings file", p.Files)
			}
		})
	}
}

func containsPath(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestThresholdsCarryMargins(t *testing.T) {
	root := t.TempDir()
	in := reset.ThresholdInput{Home: root, Cwd: filepath.Join(root, "w")}
	writeThresholdFile(t, filepath.Join(root, ".pi", "agent", "settings.json"), `{"notesoup":{"resetMarginTokens":100}}`)
	writeThresholdFile(t, filepath.Join(in.Cwd, ".pi", "settings.json"), `{"notesoup":{"warningRunwayTokens":200}}`)
	m := reset.MarginsFromSettings(Thresholds(in).PolicySettings)
	if m.ResetMargin != 100 || m.WarningRunway != 200 {
		t.Fatalf("margins %+v from merged Pi settings", m)
	}
}

func TestThresholdsWired(t *testing.T) {
	if Plugin().Resolve == nil || Plugin().Resolve(reset.ThresholdInput{ModelWindow: 100_000, Home: t.TempDir()}).Tokens != 83_616 {
		t.Fatalf("the plugin's resolver is not Thresholds")
	}
}

// TestCapOnlyLowers: over windows, reserves and caps, the cap never raises
// the point and a capped window never exceeds the cap.
func TestCapOnlyLowers(t *testing.T) {
	home := t.TempDir()
	for _, window := range []int64{32_000, 128_000, 200_000, 1_000_000} {
		for _, reserve := range []string{"", `{"compaction":{"reserveTokens":0}}`, `{"compaction":{"reserveTokens":30000}}`} {
			for _, capTokens := range []int64{1, 20_000, 50_000, 150_000, 5_000_000} {
				in := reset.ThresholdInput{ModelWindow: window, Home: home, Settings: []byte(reserve)}
				base := Thresholds(in)
				in.Cap = capTokens
				capped := Thresholds(in)
				if capped.Resolved && (capped.Window > capTokens || base.Resolved && capped.Tokens > base.Tokens) {
					t.Fatalf("window %d %s cap %d: %+v raised %+v", window, reserve, capTokens, capped, base)
				}
				if capped.CapApplied != (capped.Resolved && capTokens < window) {
					t.Fatalf("window %d cap %d: CapApplied %v", window, capTokens, capped.CapApplied)
				}
			}
		}
	}
}
