package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/shared/reset"
)

func TestThresholds(t *testing.T) {
	const breakdown1M = `{"context":{"tokens":45000,"window":1000000,"breakdown":{"rawMaxTokens":1000000,"autoCompactThreshold":967000,"autocompactSource":"model-default","isAutoCompactEnabled":true}}}`
	const breakdown100k = `{"context":{"window":1000000,"breakdown":{"rawMaxTokens":100000,"autoCompactThreshold":67000,"autocompactSource":"settings"}}}`
	const window1M = `{"context":{"window":1000000}}`
	cases := []struct {
		name       string
		in         reset.ThresholdInput
		tokens     int64 // 0: unresolved
		window     int64
		source     string // substring of Source (or Reason when unresolved)
		autoOff    bool
		capApplied bool
		notes      int
	}{
		// Source 1: the usage breakdown.
		{name: "breakdown threshold (observed 1M default)", in: reset.ThresholdInput{Usage: []byte(breakdown1M)},
			tokens: 967_000, window: 1_000_000, source: "breakdown.autoCompactThreshold"},
		{name: "breakdown threshold with --autocompact 100000 (observed)", in: reset.ThresholdInput{Usage: []byte(breakdown100k)},
			tokens: 67_000, window: 100_000, source: "breakdown.autoCompactThreshold"},
		{name: "percent override lowers the breakdown threshold", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "50"}},
			tokens: 490_000, window: 1_000_000, source: envPctOverride + "=50"},
		{name: "percent override can only lower", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "99.5"}},
			tokens: 967_000, window: 1_000_000, source: "breakdown.autoCompactThreshold"},
		{name: "percent override of 100 does not raise", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "100"}},
			tokens: 967_000, window: 1_000_000, source: "breakdown"},
		{name: "percent override out of range ignored", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "150"}},
			tokens: 967_000, window: 1_000_000, source: "breakdown", notes: 1},
		{name: "percent override not a number ignored", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "half"}},
			tokens: 967_000, window: 1_000_000, source: "breakdown", notes: 1},
		{name: "percent override zero ignored", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Env: map[string]string{envPctOverride: "0"}},
			tokens: 967_000, window: 1_000_000, source: "breakdown", notes: 1},
		{name: "breakdown without rawMaxTokens derives the window", in: reset.ThresholdInput{Usage: []byte(`{"context":{"breakdown":{"autoCompactThreshold":167000}}}`), Env: map[string]string{envPctOverride: "50"}},
			tokens: 90_000, window: 200_000, source: "breakdown"},
		{name: "threshold as a string falls through to the window", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":1000000,"breakdown":{"autoCompactThreshold":"967000"}}}`)},
			tokens: 967_000, window: 1_000_000, source: "usage.context.window", notes: 1},
		{name: "threshold above its own window falls through", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":200000,"breakdown":{"rawMaxTokens":100000,"autoCompactThreshold":150000}}}`)},
			tokens: 67_000, window: 100_000, source: "rawMaxTokens", notes: 1},
		{name: "negative threshold falls through", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":200000,"breakdown":{"autoCompactThreshold":-1}}}`)},
			tokens: 167_000, window: 200_000, source: "usage.context.window", notes: 1},
		{name: "threshold missing: the breakdown's compaction window (--autocompact)", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":1000000,"breakdown":{"rawMaxTokens":100000}}}`)},
			tokens: 67_000, window: 100_000, source: "rawMaxTokens"},
		// Source 2: window and configured windows.
		{name: "window minus reserve and buffer", in: reset.ThresholdInput{Usage: []byte(window1M)},
			tokens: 967_000, window: 1_000_000, source: "usage.context.window"},
		{name: "autoCompactWindow setting (observed 100000 → 67000)", in: reset.ThresholdInput{Usage: []byte(window1M), Settings: []byte(`{"autoCompactWindow":100000}`)},
			tokens: 67_000, window: 100_000, source: "capped by autoCompactWindow"},
		{name: "environment wins over smaller settings (Claude's precedence, observed)", in: reset.ThresholdInput{Model: "claude-opus-5-5", Usage: []byte(window1M),
			Settings: []byte(`{"autoCompactWindow":120000,"modelSettings":{"claude-opus-5-5":{"autoCompactWindow":90000},"other":{"autoCompactWindow":50000}}}`),
			Env:      map[string]string{envAutoWindow: "150000"}},
			tokens: 117_000, window: 150_000, source: envAutoWindow},
		{name: "modelSettings wins over a smaller autoCompactWindow", in: reset.ThresholdInput{Model: "claude-opus-5-5", Usage: []byte(window1M),
			Settings: []byte(`{"autoCompactWindow":80000,"modelSettings":{"claude-opus-5-5":{"autoCompactWindow":130000},"other":{"autoCompactWindow":50000}}}`)},
			tokens: 97_000, window: 130_000, source: "modelSettings.claude-opus-5-5.autoCompactWindow"},
		{name: "environment below the minimum counts as 100k and still wins", in: reset.ThresholdInput{Model: "m", Usage: []byte(window1M),
			Settings: []byte(`{"autoCompactWindow":120000,"modelSettings":{"m":{"autoCompactWindow":90000}}}`),
			Env:      map[string]string{envAutoWindow: "85000"}},
			tokens: 67_000, window: 100_000, source: envAutoWindow, notes: 1},
		{name: "environment wins over a larger modelSettings", in: reset.ThresholdInput{Model: "m", Usage: []byte(window1M),
			Settings: []byte(`{"autoCompactWindow":120000,"modelSettings":{"m":{"autoCompactWindow":190000}}}`),
			Env:      map[string]string{envAutoWindow: "110000"}},
			tokens: 77_000, window: 110_000, source: envAutoWindow},
		{name: "environment window in k shorthand", in: reset.ThresholdInput{Usage: []byte(window1M), Env: map[string]string{envAutoWindow: "150k"}},
			tokens: 117_000, window: 150_000, source: envAutoWindow},
		{name: "environment window below Claude's minimum is read as 100k (observed)", in: reset.ThresholdInput{Usage: []byte(window1M), Env: map[string]string{envAutoWindow: "80000"}},
			tokens: 67_000, window: 100_000, source: envAutoWindow, notes: 1},
		{name: "auto settings mean Claude's default", in: reset.ThresholdInput{Model: "m", Usage: []byte(window1M), Settings: []byte(`{"autoCompactWindow":"auto","modelSettings":{"m":{"autoCompactWindow":"auto"}}}`)},
			tokens: 967_000, window: 1_000_000, source: "usage.context.window"},
		{name: "configured window capped at the model window", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":200000}}`), Settings: []byte(`{"autoCompactWindow":500000}`)},
			tokens: 167_000, window: 200_000, source: "usage.context.window"},
		{name: "configured window of the wrong type falls through", in: reset.ThresholdInput{Model: "m", Usage: []byte(window1M),
			Settings: []byte(`{"autoCompactWindow":"100000","modelSettings":{"m":{"autoCompactWindow":true}}}`), Env: map[string]string{envAutoWindow: "lots"}},
			tokens: 967_000, window: 1_000_000, source: "usage.context.window", notes: 3},
		{name: "modelSettings not an object", in: reset.ThresholdInput{Model: "m", Usage: []byte(window1M), Settings: []byte(`{"modelSettings":[1]}`)},
			tokens: 967_000, window: 1_000_000, source: "usage.context.window", notes: 1},
		{name: "percent override lowers the window formula", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":200000}}`), Env: map[string]string{envPctOverride: "50"}},
			tokens: 90_000, window: 200_000, source: envPctOverride},
		{name: "model window from the caller", in: reset.ThresholdInput{ModelWindow: 200_000},
			tokens: 167_000, window: 200_000, source: "model window"},
		{name: "usage window of the wrong type, caller's window used", in: reset.ThresholdInput{ModelWindow: 200_000, Usage: []byte(`{"context":{"window":"big"}}`)},
			tokens: 167_000, window: 200_000, source: "model window", notes: 1},
		// Source 3: percent fallback.
		{name: "percent fallback on 200K", in: reset.ThresholdInput{},
			tokens: 167_000, window: 200_000, source: "percent fallback"},
		{name: "percent fallback with a configured window", in: reset.ThresholdInput{Settings: []byte(`{"autoCompactWindow":100000}`)},
			tokens: 67_000, window: 100_000, source: "percent fallback on a 200K capacity capped by autoCompactWindow"},
		{name: "percent fallback with percent override", in: reset.ThresholdInput{Env: map[string]string{envPctOverride: "60"}},
			tokens: 108_000, window: 200_000, source: "percent fallback"},
		{name: "usage not JSON: fallback with a note", in: reset.ThresholdInput{Usage: []byte(`{`)},
			tokens: 167_000, window: 200_000, source: "percent fallback", notes: 1},
		// Automatic compaction off.
		{name: "autoCompactEnabled false with a breakdown", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Settings: []byte(`{"autoCompactEnabled":false}`), Env: map[string]string{envPctOverride: "50"}},
			tokens: 980_000, window: 1_000_000, source: "automatic compaction off", autoOff: true, notes: 1},
		{name: "DISABLE_AUTO_COMPACT with a window", in: reset.ThresholdInput{Usage: []byte(`{"context":{"window":200000}}`), Env: map[string]string{envDisableAuto: "1"}},
			tokens: 180_000, window: 200_000, source: envDisableAuto, autoOff: true},
		{name: "DISABLE_AUTO_COMPACT=true in the fallback", in: reset.ThresholdInput{Env: map[string]string{envDisableAuto: "true"}},
			tokens: 180_000, window: 200_000, source: "percent fallback", autoOff: true},
		{name: "DISABLE_AUTO_COMPACT=0 is not set", in: reset.ThresholdInput{Env: map[string]string{envDisableAuto: "0"}},
			tokens: 167_000, window: 200_000, source: "percent fallback"},
		{name: "breakdown says auto-compaction is off", in: reset.ThresholdInput{Usage: []byte(`{"context":{"breakdown":{"rawMaxTokens":100000,"autoCompactThreshold":67000,"isAutoCompactEnabled":false}}}`)},
			tokens: 80_000, window: 100_000, source: "rawMaxTokens", autoOff: true},
		{name: "autoCompactEnabled of the wrong type is ignored", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Settings: []byte(`{"autoCompactEnabled":"false"}`)},
			tokens: 967_000, window: 1_000_000, source: "breakdown", notes: 1},
		// The runtime cap.
		{name: "cap lowers the breakdown threshold", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Cap: 100_000},
			tokens: 67_000, window: 100_000, source: "runtime cap 100k", capApplied: true},
		{name: "cap above the window changes nothing", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Cap: 2_000_000},
			tokens: 967_000, window: 1_000_000, source: "breakdown"},
		{name: "cap with percent override", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Cap: 100_000, Env: map[string]string{envPctOverride: "50"}},
			tokens: 40_000, window: 100_000, source: "runtime cap", capApplied: true},
		{name: "cap below a configured window", in: reset.ThresholdInput{Usage: []byte(window1M), Settings: []byte(`{"autoCompactWindow":150000}`), Cap: 120_000},
			tokens: 87_000, window: 120_000, source: "runtime cap 120k", capApplied: true},
		{name: "cap with auto-compaction off", in: reset.ThresholdInput{Usage: []byte(window1M), Env: map[string]string{envDisableAuto: "1"}, Cap: 100_000},
			tokens: 80_000, window: 100_000, source: "runtime cap", autoOff: true, capApplied: true},
		// Unresolvable.
		{name: "configured window too small for the reserves", in: reset.ThresholdInput{Usage: []byte(window1M), Settings: []byte(`{"autoCompactWindow":30000}`)},
			window: 30_000, source: "no room"},
		{name: "cap too small for the reserves", in: reset.ThresholdInput{Usage: []byte(breakdown1M), Cap: 33_000},
			window: 33_000, source: "no room"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.in.Home == "" {
				c.in.Home = t.TempDir() // never this machine's own ~/.claude
			}
			p := Thresholds(c.in)
			if c.tokens == 0 {
				if p.Resolved || !strings.Contains(p.Reason, c.source) || p.Window != c.window {
					t.Fatalf("got %+v, want unresolved with reason containing %q", p, c.source)
				}
				return
			}
			if !p.Resolved || p.Tokens != c.tokens || p.Window != c.window {
				t.Fatalf("got %d of %d (%s; %v), want %d of %d", p.Tokens, p.Window, p.Source, p.Reason, c.tokens, c.window)
			}
			if !strings.HasPrefix(p.Source, "claude: ") || !strings.Contains(p.Source, c.source) {
				t.Fatalf("source %q, want it to name %q", p.Source, c.source)
			}
			if p.AutoCompactEnabled == c.autoOff || p.CapApplied != c.capApplied {
				t.Fatalf("auto %v cap %v, want auto %v cap %v", p.AutoCompactEnabled, p.CapApplied, !c.autoOff, c.capApplied)
			}
			if len(p.Notes) != c.notes {
				t.Fatalf("notes %q, want %d", p.Notes, c.notes)
			}
		})
	}
}

func TestDisableCompact(t *testing.T) {
	for _, v := range []string{"1", "true", "anything"} {
		p := Thresholds(reset.ThresholdInput{Home: t.TempDir(), Env: map[string]string{envDisableCompact: v}})
		if !p.CompactDisabled || !p.Resolved {
			t.Fatalf("DISABLE_COMPACT=%q: %+v", v, p)
		}
		l, _ := reset.ComputeLimits(p, reset.DefaultMargins(), 0)
		if l.WarningsEnabled || l.AutoReset {
			t.Fatalf("DISABLE_COMPACT must suppress warnings and resets: %+v", l)
		}
	}
	if Thresholds(reset.ThresholdInput{Home: t.TempDir(), Env: map[string]string{envDisableCompact: ""}}).CompactDisabled {
		t.Fatalf("an empty DISABLE_COMPACT is not set")
	}
}

func TestThresholdsWired(t *testing.T) {
	if Plugin().Resolve == nil || Plugin().Resolve(reset.ThresholdInput{Home: t.TempDir()}).Tokens != 167_000 {
		t.Fatalf("the plugin's resolver is not Thresholds")
	}
}

// FuzzThresholds: whatever settings, usage and environment say, a resolved
// point is positive and within its window, every answer names its source,
// and a runtime cap never raises the point.
func FuzzThresholds(f *testing.F) {
	f.Add([]byte(`{"autoCompactWindow":100000}`), []byte(`{"context":{"window":1000000,"breakdown":{"rawMaxTokens":1000000,"autoCompactThreshold":967000}}}`), "50", "", int64(100_000))
	f.Add([]byte(`{"autoCompactEnabled":false,"modelSettings":{"m":{"autoCompactWindow":1e9}}}`), []byte(`{"context":{"window":"x"}}`), "abc", "150k", int64(0))
	f.Add([]byte(`[`), []byte(`null`), "", "1", int64(40_000))
	f.Add([]byte(`{}`), []byte(`{"context":{"breakdown":{"rawMaxTokens":100000,"autoCompactThreshold":2000000}}}`), "", "", int64(0))
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, settings, usage []byte, pct, envWindow string, capTokens int64) {
		if capTokens < 0 || capTokens > reset.MaxCapTokens {
			return
		}
		in := reset.ThresholdInput{Model: "m", Settings: settings, Usage: usage, Home: home,
			Env: map[string]string{envPctOverride: pct, envAutoWindow: envWindow}}
		base := Thresholds(in)
		in.Cap = capTokens
		capped := Thresholds(in)
		for _, p := range []reset.NativePoint{base, capped} {
			if !strings.HasPrefix(p.Source, "claude: ") {
				t.Fatalf("no source: %+v", p)
			}
			if p.Resolved && (p.Tokens <= 0 || p.Tokens > p.Window) {
				t.Fatalf("point %d outside its window %d (%s)", p.Tokens, p.Window, p.Source)
			}
			if !p.Resolved && p.Reason == "" {
				t.Fatalf("unresolved without a reason")
			}
		}
		if base.Resolved && capped.Resolved && capped.Tokens > base.Tokens {
			t.Fatalf("cap %d raised the point from %d to %d", capTokens, base.Tokens, capped.Tokens)
		}
	})
}

func TestSettingsFiles(t *testing.T) {
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	window1M := []byte(`{"context":{"window":1000000}}`)
	t.Run("user, project and local layers, later wins key by key", func(t *testing.T) {
		root := t.TempDir()
		in := reset.ThresholdInput{Model: "m", Usage: window1M, Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "work")}
		write(t, filepath.Join(in.Home, ".claude", "settings.json"), `{"autoCompactWindow":300000,"modelSettings":{"m":{"autoCompactWindow":250000}}}`)
		write(t, filepath.Join(in.Cwd, ".claude", "settings.json"), `{"autoCompactWindow":200000}`)
		write(t, filepath.Join(in.Cwd, ".claude", "settings.local.json"), `{"modelSettings":{"m":{"other":1}}}`)
		p := Thresholds(in)
		// modelSettings.m.autoCompactWindow 250000 survives the local
		// layer's merge and takes precedence over the project's 200000.
		if p.Tokens != 217_000 || !strings.Contains(p.Source, "capped by modelSettings.m.autoCompactWindow") || len(p.Files) != 3 {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("CLAUDE_CONFIG_DIR relocates the user settings", func(t *testing.T) {
		root := t.TempDir()
		in := reset.ThresholdInput{Usage: window1M, Home: filepath.Join(root, "home"), Env: map[string]string{envConfigDir: filepath.Join(root, "cfg")}}
		write(t, filepath.Join(in.Home, ".claude", "settings.json"), `{"autoCompactWindow":100000}`)
		write(t, filepath.Join(root, "cfg", "settings.json"), `{"autoCompactEnabled":false}`)
		p := Thresholds(in)
		if p.Tokens != 980_000 || p.AutoCompactEnabled || p.Files[0] != filepath.Join(root, "cfg", "settings.json") {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("a broken file is noted and skipped", func(t *testing.T) {
		root := t.TempDir()
		in := reset.ThresholdInput{Usage: window1M, Home: root, Cwd: filepath.Join(root, "w")}
		write(t, filepath.Join(root, ".claude", "settings.json"), `{"autoCompactWindow":100000}`)
		write(t, filepath.Join(in.Cwd, ".claude", "settings.json"), `{`)
		p := Thresholds(in)
		if p.Tokens != 67_000 || len(p.Notes) != 1 {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("margins come from the merged files' notesoup object", func(t *testing.T) {
		root := t.TempDir()
		in := reset.ThresholdInput{Home: root, Cwd: filepath.Join(root, "w")}
		write(t, filepath.Join(root, ".claude", "settings.json"), `{"notesoup":{"resetMarginTokens":100}}`)
		write(t, filepath.Join(in.Cwd, ".claude", "settings.local.json"), `{"notesoup":{"warningRunwayTokens":200}}`)
		if m := reset.MarginsFromSettings(Thresholds(in).PolicySettings); m.ResetMargin != 100 || m.WarningRunway != 200 {
			t.Fatalf("margins %+v", m)
		}
	})
	t.Run("passed settings win over files", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, ".claude", "settings.json"), `{"autoCompactWindow":100000}`)
		p := Thresholds(reset.ThresholdInput{Usage: window1M, Home: root, Settings: []byte(`{}`)})
		if p.Tokens != 967_000 || len(p.Files) != 0 {
			t.Fatalf("%+v", p)
		}
	})
}
