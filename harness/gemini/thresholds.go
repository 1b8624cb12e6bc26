package gemini

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/notesoup/notesoup/shared/reset"
)

// The Gemini CLI's own compression rule (0.61.0, chatCompressionService):
// before each model request it compresses the chat once the last prompt's
// token count reaches compressionThreshold × tokenLimit(model). The
// threshold is the merged settings' model.compressionThreshold, whose
// schema default is 0.5; only a threshold of 0 (falsy in its
// `if (this.compressionThreshold)`) lets a remote experiment's value, or
// else DEFAULT_COMPRESSION_TOKEN_THRESHOLD (also 0.5), apply.
const (
	defaultCompressionThreshold = 0.5
	// defaultTokenLimit is tokenLimit()'s answer for every model but the
	// Gemma 4 ones: the listed Gemini models and any unknown name alike.
	defaultTokenLimit = 1_048_576
	gemma4TokenLimit  = 256_000
	// defaultModelSource says which model Gemini runs when none is named:
	// "auto", routed per turn among Gemini models that all have the default
	// limit, so the point does not depend on the route taken.
	defaultModelSource = "no model named (Gemini's auto routing picks Gemini models, all with the default limit)"
	envModel           = "GEMINI_MODEL"
	envSystemSettings  = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
	envSystemDefaults  = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
)

// tokenLimits is the CLI's tokenLimit table where it differs from
// defaultTokenLimit.
var tokenLimits = map[string]int64{
	"gemma-4-31b-it":     gemma4TokenLimit,
	"gemma-4-26b-a4b-it": gemma4TokenLimit,
}

// noResetNote is said with every resolved point, since a person reading
// `notesoup limits --harness gemini` should not take "automatic resets on"
// for something notesoup does in Gemini.
const noResetNote = "at this point the Gemini CLI compresses the chat on its own (a <state_snapshot> summary replaces the older part): that compression is the only automatic reset in Gemini. notesoup cannot empty a Gemini window (no hook or MCP tool can start or answer the compression; PreCompress only observes) so the budget warning (once per window, from the hooks `notesoup install gemini` writes) asks the model to bring its notes up to date before it, and the notes and the boot block carry what matters across it"

// Thresholds resolves the point where the Gemini CLI compresses on its own:
// model.compressionThreshold (default 0.5) of the model's token limit
// (1,048,576 tokens, 256,000 for the Gemma 4 models), clamped to the
// runtime cap.
//
// The settings are in.Settings when the caller passes Gemini's merged
// settings; else Gemini's own layers, later winning key by key
// (reset.MergeSettings): the system defaults file, the user's
// $GEMINI_CLI_HOME/.gemini/settings.json (else ~/.gemini), the project's
// <cwd>/.gemini/settings.json (not when cwd is that home), then the system
// settings file (/etc/gemini-cli/settings.json on Linux, or
// $GEMINI_CLI_SYSTEM_SETTINGS_PATH), each read as JSON with comments. The
// model is in.Model, else -m/--model in in.Overrides, else $GEMINI_MODEL,
// else model.name from the settings — the CLI's own order.
//
// The point carries the settings' notesoup object (PolicySettings), where
// the budget policy reads its margins.
func Thresholds(in reset.ThresholdInput) reset.NativePoint {
	settings, files, notes := mergedSettings(in)
	p := resolve(in, settings, files, notes)
	p.PolicySettings = reset.PolicySettings(settings)
	return p
}

// resolve is Thresholds over the settings already read.
func resolve(in reset.ThresholdInput, settings map[string]any, files, notes []string) reset.NativePoint {
	model, modelFrom := thresholdModel(in, settings, &notes)
	limit, limitFrom := int64(defaultTokenLimit), fmt.Sprintf("token limit %d", defaultTokenLimit)
	if model != "" {
		if n, ok := tokenLimits[model]; ok {
			limit = n
		}
		limitFrom = fmt.Sprintf("token limit %d of %s (%s)", limit, model, modelFrom)
	} else {
		limitFrom += ", " + modelFrom
	}
	if in.ModelWindow > 0 && in.ModelWindow != limit {
		notes = append(notes, fmt.Sprintf("model window %d ignored: Gemini compresses at a share of its own token limit table (%d for this model), not of the window", in.ModelWindow, limit))
	}

	threshold, thresholdFrom := defaultCompressionThreshold, "default model.compressionThreshold 0.5"
	if v, ok := reset.Lookup(settings, "model", "compressionThreshold"); ok {
		f, isNum := fraction(v)
		switch {
		case !isNum || f < 0 || math.IsNaN(f) || math.IsInf(f, 0):
			notes = append(notes, fmt.Sprintf("model.compressionThreshold ignored: want a fraction such as 0.5, got %v", v))
		case f == 0:
			// Gemini then asks a remote experiment (Google sign-in only)
			// and falls back to its built-in 0.5.
			notes = append(notes, "model.compressionThreshold 0 lets Gemini use a remote experiment's value when signed in with Google; its fallback, 0.5, is used here")
			thresholdFrom = "model.compressionThreshold 0: Gemini's fallback 0.5"
		default:
			threshold, thresholdFrom = f, fmt.Sprintf("model.compressionThreshold %g", f)
			if f >= 1 {
				notes = append(notes, fmt.Sprintf("model.compressionThreshold %g is not below 1: Gemini compresses only once the prompt fills its whole token limit; the budget uses the limit", f))
				threshold = 1
			}
		}
	}
	// The CLI compresses when tokens >= threshold × limit: the first whole
	// token count at or past it.
	point := int64(math.Ceil(threshold * float64(limit)))
	source := "gemini: " + thresholdFrom + " × " + limitFrom
	w, capped := reset.ClampWindow(limit, in.Cap)
	applied := false
	if capped {
		if cp := int64(math.Ceil(threshold * float64(w))); cp < point {
			point, applied = cp, true
		}
		source += "; runtime cap " + reset.FormatTokens(in.Cap)
	}
	notes = append(notes, noResetNote)
	if point <= 0 {
		return reset.NativePoint{Window: w, Source: source, AutoCompactEnabled: true, Notes: notes, Files: files,
			Reason: "no positive compression point (" + source + ")"}
	}
	return reset.NativePoint{Resolved: true, Tokens: point, Window: w, Source: source, AutoCompactEnabled: true,
		CapApplied: applied, Notes: notes, Files: files}
}

// fraction reads a settings number (json.Number from parseSettings, or a
// float from a caller's decoding).
func fraction(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// thresholdModel picks the model the CLI would run, in its own order, and
// says where it came from; "" when none is named.
func thresholdModel(in reset.ThresholdInput, settings map[string]any, notes *[]string) (string, string) {
	if in.Model != "" {
		return in.Model, "model " + in.Model
	}
	if m := overrideModel(in.Overrides, notes); m != "" {
		return m, "-m " + m
	}
	if m := strings.TrimSpace(in.Env[envModel]); m != "" {
		return m, "$" + envModel
	}
	if v, ok := reset.Lookup(settings, "model", "name"); ok {
		if s, isStr := v.(string); isStr && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s), "model.name"
		}
		*notes = append(*notes, fmt.Sprintf("model.name ignored: want a model name, got %v", v))
	}
	return "", defaultModelSource
}

// overrideModel reads -m/--model from the caller's copy of the gemini
// command line; every other flag is noted as having no effect here.
func overrideModel(args []string, notes *[]string) string {
	model := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := strings.CutPrefix(a, "--model="); ok {
			model = v
			continue
		}
		if a == "-m" || a == "--model" {
			if i+1 < len(args) {
				i++
				model = args[i]
				continue
			}
			*notes = append(*notes, fmt.Sprintf("override %s ignored: missing its value", a))
			continue
		}
		*notes = append(*notes, fmt.Sprintf("override %q ignored: only -m/--model affects Gemini's compression point", a))
	}
	return strings.TrimSpace(model)
}

// mergedSettings returns the caller's settings, or Gemini's settings files
// merged in its order, with every file consulted and why any was skipped.
func mergedSettings(in reset.ThresholdInput) (map[string]any, []string, []string) {
	if len(strings.TrimSpace(string(in.Settings))) > 0 {
		s, err := parseSettings(in.Settings)
		if err != nil {
			return map[string]any{}, nil, []string{"settings ignored: " + err.Error()}
		}
		return s, nil, nil
	}
	var notes, paths []string
	system := systemSettingsPath(in.Env)
	paths = append(paths, systemDefaultsPath(in.Env, system))
	userHome, err := home(func(k string) string { return in.Env[k] }, func() (string, error) {
		if in.Home != "" {
			return in.Home, nil
		}
		return os.UserHomeDir()
	})
	if err != nil {
		notes = append(notes, "user settings not read: "+err.Error())
	} else {
		paths = append(paths, filepath.Join(userHome, "settings.json"))
	}
	project := ""
	if in.Cwd != "" && (err != nil || filepath.Clean(in.Cwd) != filepath.Dir(userHome)) {
		project = filepath.Join(in.Cwd, ".gemini", "settings.json")
		paths = append(paths, project)
	}
	paths = append(paths, system)

	merged := map[string]any{}
	for _, p := range paths {
		data, err := reset.ReadSettingsFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s not read: %v", p, err))
			continue
		}
		obj, err := parseSettings(data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s ignored: %v", p, err))
			continue
		}
		if p == project {
			notes = append(notes, p+" read as Gemini reads it in a trusted folder; in an untrusted one Gemini ignores it")
		}
		reset.MergeSettings(merged, obj)
	}
	return merged, paths, notes
}

// systemSettingsPath is the CLI's getSystemSettingsPath.
func systemSettingsPath(env map[string]string) string {
	if p := env[envSystemSettings]; p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}

// systemDefaultsPath is the CLI's getSystemDefaultsPath: beside the system
// settings unless named.
func systemDefaultsPath(env map[string]string, system string) string {
	if p := env[envSystemDefaults]; p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(system), "system-defaults.json")
}
