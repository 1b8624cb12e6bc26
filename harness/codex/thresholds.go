package codex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/notesoup/notesoup/shared/reset"
)

// Codex's own compaction rule (codex-rs ModelInfo::auto_compact_token_limit):
// the default limit is 90% of the model's context window, and a configured
// limit is clamped to it for providers that compact locally.
const (
	autoCompactNumerator   = 9
	autoCompactDenominator = 10
	// fallbackContextWindow is the window of Codex's fallback metadata for
	// a model slug it does not know (observed: reported as 258,400, its 95%
	// effective window; codex.md §12 gotcha 4).
	fallbackContextWindow = 272_000
	// remoteCompactionProvider is the built-in provider whose compaction
	// runs remotely; Codex does not clamp an explicit limit for it.
	remoteCompactionProvider = "openai"
	// effectiveWindowPercent is the share of the context window Codex lets
	// a request fill (its effective_context_window_percent default; the
	// 258,400 it reports for a 272,000 window).
	effectiveWindowPercent = 95
	thresholdCodexHomeEnv  = "CODEX_HOME"
	modelsCacheFile        = "models_cache.json"
)

// Thresholds resolves Codex's auto-compaction point: the configured
// model_auto_compact_token_limit when set (from $CODEX_HOME/config.toml, the
// selected profile — a [profiles.<name>] table and the
// $CODEX_HOME/<name>.config.toml layer — and the caller's -c overrides, in
// increasing precedence), clamped to 90% of the context window for
// providers that compact locally; else the model catalog's limit
// ($CODEX_HOME/models_cache.json) clamped the same way; else Codex's
// default of 90% of the context window. The window is model_context_window
// from the config, else in.ModelWindow (the catalog context_window, not the
// 95% effective window token_count reports), else the catalog, else Codex's
// fallback metadata for unknown models (272,000). in.Overrides takes Codex's
// own flags: "-c key=value", "--config key=value", "-p name",
// "--profile name", "-m model" (as separate or joined tokens).
func Thresholds(in reset.ThresholdInput) reset.NativePoint {
	c := loadConfig(in)
	model := in.Model
	if model == "" {
		model = c.str("model")
	}
	window, windowFrom := int64(0), ""
	if n, ok := c.tokens("model_context_window"); ok {
		window, windowFrom = n, "model_context_window from "+c.from["model_context_window"]
	} else if in.ModelWindow > 0 {
		window, windowFrom = in.ModelWindow, fmt.Sprintf("model window %d", in.ModelWindow)
	}
	entry := c.catalog(model)
	if window == 0 && entry.window > 0 {
		window, windowFrom = entry.window, fmt.Sprintf("%s context_window of %s", modelsCacheFile, model)
	}
	if window == 0 {
		window, windowFrom = fallbackContextWindow, "Codex fallback metadata window 272000"
	}
	provider := c.str("model_provider")
	if provider == "" {
		provider = remoteCompactionProvider
	}
	clamp := provider != remoteCompactionProvider
	ninety := window * autoCompactNumerator / autoCompactDenominator

	var point int64
	var source string
	if n, ok := c.tokens("model_auto_compact_token_limit"); ok {
		point, source = n, "model_auto_compact_token_limit from "+c.from["model_auto_compact_token_limit"]
		if clamp && point > ninety {
			point, source = ninety, source+fmt.Sprintf(", clamped to 90%% of %s", windowFrom)
		}
		if effective := window * effectiveWindowPercent / 100; point > effective {
			// Codex would not compact before the request overflows; the
			// budget must act before that, at the effective window.
			c.notes = append(c.notes, fmt.Sprintf("model_auto_compact_token_limit %d is above the effective window %d (95%% of %d); using the effective window", point, effective, window))
			point, source = effective, source+fmt.Sprintf(", above the effective window: 95%% of %s", windowFrom)
		}
	} else if entry.limit > 0 {
		point, source = min(entry.limit, ninety), fmt.Sprintf("%s auto_compact_token_limit of %s (at most 90%% of %s)", modelsCacheFile, model, windowFrom)
	} else {
		point, source = ninety, "Codex default: 90% of "+windowFrom
	}
	source = "codex: " + source
	w, capped := reset.ClampWindow(window, in.Cap)
	applied := false
	if capped {
		if cp := w * autoCompactNumerator / autoCompactDenominator; cp < point {
			point, applied = cp, true
		}
		source += "; runtime cap " + reset.FormatTokens(in.Cap)
	}
	// AutoCompactEnabled is false: it says whether notesoup may reset on
	// its own at the hard point, and in Codex it cannot (no hook or MCP
	// tool can end a turn or start a compaction). Codex compacts by
	// itself at the native point; the note says so, so `notesoup limits
	// --harness codex` does not read "automatic resets on".
	notes := append(c.notes, noResetNote)
	if point <= 0 {
		return reset.NativePoint{Window: w, Source: source, Notes: notes, Files: c.files,
			Reason: "no positive auto-compaction point (" + source + ")"}
	}
	return reset.NativePoint{Resolved: true, Tokens: point, Window: w, Source: source,
		CapApplied: applied, Notes: notes, Files: c.files}
}

// noResetNote goes with every Codex point: what happens there, and why
// notesoup's own automatic reset is off.
const noResetNote = "at the native point Codex compacts the conversation on its own (its summary replaces the window); notesoup cannot empty a Codex window (no hook or MCP tool can end a turn or start a compaction), so it has no automatic reset here: it warns once at the warning point and shows the boot block again right after Codex's compaction"

// config is Codex's layered configuration as far as thresholds need it.
type config struct {
	values map[string]any
	from   map[string]string // top-level key → the layer that set it
	home   string
	notes  []string
	files  []string
}

func (c *config) str(key string) string {
	s, _ := c.values[key].(string)
	return s
}

func (c *config) tokens(key string) (int64, bool) {
	v, ok := c.values[key]
	if !ok {
		return 0, false
	}
	if n, ok := v.(int64); ok && n > 0 {
		return n, true
	}
	c.notes = append(c.notes, fmt.Sprintf("%s from %s ignored: want a positive integer, got %v", key, c.from[key], v))
	return 0, false
}

// overlay sets every key of layer, recording where top-level keys came from.
func (c *config) overlay(layer map[string]any, name string) {
	for k, v := range layer {
		if k == "profiles" {
			// Profile tables are read only when selected.
			if _, ok := c.values[k]; !ok {
				c.values[k] = v
			}
			continue
		}
		c.values[k] = v
		c.from[k] = name
	}
}

func codexHome(in reset.ThresholdInput) string {
	if d := in.Env[thresholdCodexHomeEnv]; d != "" {
		return d
	}
	home := in.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex")
}

func (c *config) readTOML(path string) map[string]any {
	c.files = append(c.files, path)
	data, err := reset.ReadSettingsFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.notes = append(c.notes, fmt.Sprintf("%s not read: %v", path, err))
		}
		return nil
	}
	m := map[string]any{}
	if _, err := toml.Decode(string(data), &m); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s ignored: %v", path, err))
		return nil
	}
	return m
}

func loadConfig(in reset.ThresholdInput) *config {
	c := &config{values: map[string]any{}, from: map[string]string{}, home: codexHome(in)}
	profile, sets, model := parseOverrides(in.Overrides, &c.notes)
	base := filepath.Join(c.home, "config.toml")
	c.overlay(c.readTOML(base), "config.toml")
	// -c overrides are applied last, but a -c profile=... selects the profile.
	overrides := map[string]any{}
	for _, kv := range sets {
		setPath(overrides, kv.path, kv.value)
	}
	if profile == "" {
		if p, ok := overrides["profile"].(string); ok {
			profile = p
		} else {
			profile = c.str("profile")
		}
	}
	if profile != "" {
		found := false
		if tbl, ok := reset.Lookup(c.values, "profiles", profile); ok {
			if m, ok := tbl.(map[string]any); ok {
				c.overlay(m, "profile "+profile+" in config.toml")
				found = true
			}
		}
		if m := c.readTOML(filepath.Join(c.home, profile+".config.toml")); m != nil {
			c.overlay(m, profile+".config.toml")
			found = true
		}
		if !found {
			c.notes = append(c.notes, fmt.Sprintf("profile %q not found in config.toml or %s.config.toml", profile, profile))
		}
	}
	reset.MergeSettings(c.values, overrides)
	for _, kv := range sets {
		c.from[kv.path[0]] = "-c " + strings.Join(kv.path, ".")
	}
	if model != "" {
		c.values["model"] = model
		c.from["model"] = "-m"
	}
	return c
}

type setting struct {
	path  []string
	value any
}

// parseOverrides reads Codex's flags from the caller's override tokens.
func parseOverrides(args []string, notes *[]string) (profile string, sets []setting, model string) {
	var toks []string
	for _, a := range args {
		// Accept "-c key=value" passed as one token.
		if f, rest, ok := strings.Cut(a, " "); ok && strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
			toks = append(toks, f, strings.TrimSpace(rest))
			continue
		}
		toks = append(toks, a)
	}
	for i := 0; i < len(toks); i++ {
		flag, val, hasVal := strings.Cut(toks[i], "=")
		if !strings.HasPrefix(flag, "--") {
			hasVal = false
			flag = toks[i]
		}
		next := func() (string, bool) {
			if hasVal {
				return val, true
			}
			if i+1 < len(toks) {
				i++
				return toks[i], true
			}
			*notes = append(*notes, fmt.Sprintf("override %s ignored: missing its value", flag))
			return "", false
		}
		switch flag {
		case "-c", "--config":
			if kv, ok := next(); ok {
				if s, err := parseSet(kv); err != nil {
					*notes = append(*notes, err.Error())
				} else {
					sets = append(sets, s)
				}
			}
		case "-p", "--profile":
			if v, ok := next(); ok {
				profile = v
			}
		case "-m", "--model":
			if v, ok := next(); ok {
				model = v
			}
		default:
			*notes = append(*notes, fmt.Sprintf("override %q ignored: only -c/--config, -p/--profile and -m/--model affect thresholds", toks[i]))
		}
	}
	return profile, sets, model
}

// parseSet parses "dotted.key=value" the way codex -c does: the value is
// TOML, and a value that is not valid TOML is taken as a plain string.
func parseSet(kv string) (setting, error) {
	key, raw, ok := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return setting{}, fmt.Errorf("override -c %q ignored: want key=value", kv)
	}
	path := strings.Split(key, ".")
	for _, p := range path {
		if p == "" {
			return setting{}, fmt.Errorf("override -c %q ignored: empty key segment", kv)
		}
	}
	var doc map[string]any
	if _, err := toml.Decode("v = "+raw, &doc); err == nil {
		return setting{path: path, value: doc["v"]}, nil
	}
	return setting{path: path, value: strings.TrimSpace(raw)}, nil
}

func setPath(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

type catalogEntry struct{ window, limit int64 }

// catalog reads the model's entry from Codex's cached model catalog; every
// field is type-checked and a bad one is noted and skipped.
func (c *config) catalog(model string) catalogEntry {
	if model == "" {
		return catalogEntry{}
	}
	path := filepath.Join(c.home, modelsCacheFile)
	c.files = append(c.files, path)
	data, err := reset.ReadSettingsFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.notes = append(c.notes, fmt.Sprintf("%s not read: %v", path, err))
		}
		return catalogEntry{}
	}
	var doc struct {
		Models []map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		c.notes = append(c.notes, fmt.Sprintf("%s ignored: %v", path, err))
		return catalogEntry{}
	}
	num := func(m map[string]json.RawMessage, key string) int64 {
		raw, ok := m[key]
		if !ok || string(raw) == "null" {
			return 0
		}
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil || n <= 0 {
			c.notes = append(c.notes, fmt.Sprintf("%s %s of %s ignored: want a positive integer", modelsCacheFile, key, model))
			return 0
		}
		return n
	}
	for _, m := range doc.Models {
		var slug string
		if json.Unmarshal(m["slug"], &slug) != nil || slug != model {
			continue
		}
		e := catalogEntry{window: num(m, "context_window"), limit: num(m, "auto_compact_token_limit")}
		if e.window == 0 {
			e.window = num(m, "max_context_window")
		}
		return e
	}
	return catalogEntry{}
}
