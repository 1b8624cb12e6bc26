package claude

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/notesoup/notesoup/shared/reset"
)

// Claude Code's compaction constants (observed on 2.1.332: threshold =
// window − 33,000 with both, "Autocompact buffer" row 33,000).
const (
	// outputReserveTokens is the room Claude keeps for the model's answer:
	// effective window = compaction window − this.
	outputReserveTokens = 20_000
	// summaryBufferTokens is Claude's autocompact buffer below the
	// effective window.
	summaryBufferTokens = 13_000
	// classicCapacityTokens is the capacity the percent fallback assumes
	// when no window is known at all.
	classicCapacityTokens = 200_000
	// minEnvAutoWindowTokens is the smallest CLAUDE_CODE_AUTO_COMPACT_WINDOW
	// Claude accepts; a smaller value is read as this (2.1.332: "Set it to a
	// size of at least 100k").
	minEnvAutoWindowTokens = 100_000
)

// Environment variables Claude Code reads for compaction.
const (
	envPctOverride    = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
	envAutoWindow     = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
	envDisableAuto    = "DISABLE_AUTO_COMPACT"
	envDisableCompact = "DISABLE_COMPACT"
	envConfigDir      = "CLAUDE_CONFIG_DIR"
)

// Thresholds resolves Claude Code's native auto-compaction point from, in
// order:
//
//  1. the usage breakdown's autoCompactThreshold (in.Usage is
//     $.session.usage({breakdown:"summary"})), lowered by
//     CLAUDE_AUTOCOMPACT_PCT_OVERRIDE the way Claude applies it;
//  2. the breakdown's compaction window rawMaxTokens, else the model window
//     (usage context.window, else in.ModelWindow), capped by
//     CLAUDE_CODE_AUTO_COMPACT_WINDOW, modelSettings.<model>.autoCompactWindow
//     and autoCompactWindow (smallest wins), minus the 20,000-token output
//     reserve and the 13,000-token buffer, the percent override lowering it;
//  3. the percent fallback on a classic 200K capacity with the same caps.
//
// With automatic compaction off (autoCompactEnabled:false, the breakdown's
// isAutoCompactEnabled:false, or DISABLE_AUTO_COMPACT) the point is the
// effective window minus the output reserve and the percent override is
// ignored. The runtime cap (in.Cap) clamps the window before the reserves
// and can only lower the point. Every undocumented field is type-checked; a
// wrong type is noted and the next source is used. A point that leaves
// nothing after the reserves is reported unresolved, never guessed. The
// point carries the settings' notesoup object (PolicySettings), where the
// budget policy reads its margins.
func Thresholds(in reset.ThresholdInput) reset.NativePoint {
	var notes, files []string
	var settings map[string]any
	if len(strings.TrimSpace(string(in.Settings))) > 0 {
		s, err := reset.ParseJSONObject(in.Settings)
		if err != nil {
			notes = append(notes, "settings ignored: "+err.Error())
			s = map[string]any{}
		}
		settings = s
	} else {
		settings, files, notes = settingsFiles(in)
	}
	usage, err := reset.ParseJSONObject(in.Usage)
	if err != nil {
		notes = append(notes, "usage ignored: "+err.Error())
		usage = map[string]any{}
	}
	auto, autoWhy := autoCompaction(settings, usage, in.Env, &notes)
	pct := 0.0
	if auto {
		pct = pctOverride(in.Env, &notes)
	} else if in.Env[envPctOverride] != "" {
		notes = append(notes, envPctOverride+" ignored: automatic compaction is off")
	}
	configured, configuredFrom := configuredWindow(settings, in.Env, in.Model, &notes)

	r := resolver{auto: auto, autoWhy: autoWhy, pct: pct, cap: in.Cap}
	p := r.resolve(usage, in.ModelWindow, configured, configuredFrom)
	p.CompactDisabled = reset.EnvPresent(in.Env, envDisableCompact)
	if p.CompactDisabled {
		notes = append(notes, envDisableCompact+" is set: warnings and explicit resets are suppressed")
	}
	p.Notes = append(notes, p.Notes...)
	p.Files = files
	p.PolicySettings = reset.PolicySettings(settings)
	return p
}

// settingsFiles merges Claude's settings files for a caller that passes no
// merged settings: <config dir>/settings.json ($CLAUDE_CONFIG_DIR or
// ~/.claude), then the project's .claude/settings.json and
// .claude/settings.local.json, later files winning key by key. (The mod
// passes $.settings.read(), which also has the flag and policy layers.)
func settingsFiles(in reset.ThresholdInput) (map[string]any, []string, []string) {
	var paths, notes []string
	dir := in.Env[envConfigDir]
	if dir == "" {
		home := in.Home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if home != "" {
			dir = filepath.Join(home, ".claude")
		}
	}
	if dir != "" {
		paths = append(paths, filepath.Join(dir, "settings.json"))
	}
	if in.Cwd != "" {
		paths = append(paths, filepath.Join(in.Cwd, ".claude", "settings.json"), filepath.Join(in.Cwd, ".claude", "settings.local.json"))
	}
	merged, readNotes := reset.MergeJSONSettingsFiles(paths)
	return merged, paths, append(notes, readNotes...)
}

type resolver struct {
	auto    bool
	autoWhy string
	pct     float64 // 0 when no valid override applies
	cap     int64
}

// derive is Claude's formula for a compaction window w.
func (r resolver) derive(w int64) int64 {
	if !r.auto {
		return w - outputReserveTokens
	}
	point := w - outputReserveTokens - summaryBufferTokens
	if r.pct > 0 {
		point = min(point, r.pctPoint(w-outputReserveTokens))
	}
	return point
}

// pctPoint is Math.floor(effectiveWindow × pct / 100).
func (r resolver) pctPoint(effective int64) int64 {
	return int64(math.Floor(float64(effective) * r.pct / 100))
}

func (r resolver) suffix() string {
	var b strings.Builder
	if !r.auto {
		b.WriteString("; automatic compaction off (" + r.autoWhy + "): window − output reserve")
	} else if r.pct > 0 {
		fmt.Fprintf(&b, "; %s=%s can lower it", envPctOverride, strconv.FormatFloat(r.pct, 'f', -1, 64))
	}
	return b.String()
}

func (r resolver) resolve(usage map[string]any, modelWindow, configured int64, configuredFrom string) reset.NativePoint {
	// Source 1: the breakdown's own numbers.
	rawMax, hasRaw := positive(usage, "context", "breakdown", "rawMaxTokens")
	var notes []string
	t, hasT := positive(usage, "context", "breakdown", "autoCompactThreshold")
	if hasT && hasRaw && t > rawMax {
		// A threshold above its own window is not a report to trust.
		notes = append(notes, fmt.Sprintf("usage autoCompactThreshold %d ignored: above rawMaxTokens %d", t, rawMax))
		hasT = false
	}
	if hasT && r.auto {
		window := rawMax
		if !hasRaw {
			window = t + outputReserveTokens + summaryBufferTokens
		}
		point := t
		if r.pct > 0 {
			point = min(point, r.pctPoint(window-outputReserveTokens))
		}
		return r.finish(point, window, "usage.context.breakdown.autoCompactThreshold")
	}
	if hasRaw && !r.auto {
		return r.finish(r.derive(rawMax), rawMax, "usage.context.breakdown.rawMaxTokens")
	}
	if v, ok := reset.Lookup(usage, "context", "breakdown", "autoCompactThreshold"); ok && r.auto && len(notes) == 0 && !hasT {
		notes = append(notes, fmt.Sprintf("usage autoCompactThreshold ignored: want a positive number, got %v", v))
	}
	// Source 2: the model window with the configured windows.
	window, from := int64(0), ""
	if hasRaw {
		// The breakdown's compaction window already folds in every way of
		// configuring it, including the --autocompact flag no settings file
		// shows.
		window, from = rawMax, "usage.context.breakdown.rawMaxTokens"
	} else if w, ok := positive(usage, "context", "window"); ok {
		window, from = w, "usage.context.window"
	} else {
		if v, ok := reset.Lookup(usage, "context", "window"); ok {
			notes = append(notes, fmt.Sprintf("usage context.window ignored: want a positive number, got %v", v))
		}
		if modelWindow > 0 {
			window, from = modelWindow, "model window"
		}
	}
	if window == 0 {
		// Source 3: the classic capacity.
		window, from = classicCapacityTokens, "percent fallback on a 200K capacity"
	}
	if configured > 0 && configured < window {
		window, from = configured, from+" capped by "+configuredFrom
	}
	p := r.finish(r.derive(window), window, from)
	p.Notes = append(notes, p.Notes...)
	return p
}

// finish applies the runtime cap (it can only lower the point) and checks
// that something is left after the reserves.
func (r resolver) finish(point, window int64, source string) reset.NativePoint {
	source += r.suffix()
	capped := false
	if w, applied := reset.ClampWindow(window, r.cap); applied {
		if c := r.derive(w); c < point {
			point, capped = c, true
		}
		window = w
		source += "; runtime cap " + reset.FormatTokens(r.cap)
	}
	if point <= 0 {
		return reset.NativePoint{Window: window, Source: "claude: " + source, AutoCompactEnabled: r.auto,
			Reason: fmt.Sprintf("window %d leaves no room for Claude's reserves (%s)", window, source)}
	}
	return reset.NativePoint{Resolved: true, Tokens: point, Window: window, Source: "claude: " + source,
		AutoCompactEnabled: r.auto, CapApplied: capped}
}

func positive(obj map[string]any, path ...string) (int64, bool) {
	v, ok := reset.Lookup(obj, path...)
	if !ok {
		return 0, false
	}
	return reset.PositiveTokens(v)
}

// autoCompaction reports whether Claude's automatic compaction is on, and
// if not, which switch turned it off.
func autoCompaction(settings, usage map[string]any, env map[string]string, notes *[]string) (bool, string) {
	if reset.EnvTruthy(env, envDisableAuto) {
		return false, envDisableAuto
	}
	if v, ok := settings["autoCompactEnabled"]; ok {
		if b, isBool := v.(bool); !isBool {
			*notes = append(*notes, fmt.Sprintf("settings.autoCompactEnabled ignored: want true or false, got %v", v))
		} else if !b {
			return false, "autoCompactEnabled: false"
		}
	}
	if v, ok := reset.Lookup(usage, "context", "breakdown", "isAutoCompactEnabled"); ok {
		if b, isBool := v.(bool); isBool && !b {
			return false, "usage isAutoCompactEnabled: false"
		}
	}
	return true, ""
}

// pctOverride reads CLAUDE_AUTOCOMPACT_PCT_OVERRIDE; Claude uses it only
// when it is a number in (0, 100].
func pctOverride(env map[string]string, notes *[]string) float64 {
	s := strings.TrimSpace(env[envPctOverride])
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f <= 0 || f > 100 {
		*notes = append(*notes, fmt.Sprintf("%s=%q ignored: want a percentage above 0 and at most 100", envPctOverride, s))
		return 0
	}
	return f
}

// configuredWindow is the configured compaction window Claude Code uses,
// or 0: CLAUDE_CODE_AUTO_COMPACT_WINDOW, else
// modelSettings.<model>.autoCompactWindow, else autoCompactWindow ("auto"
// meaning its default); the caller caps it at the model window. The seed's
// "smallest wins" was written against an older Claude Code; 2.1.332 applies
// this precedence (observed, docs/reset.md), and notesoup follows the program
// so that it resets just before Claude would compact, not earlier. This
// fallback only runs when the usage breakdown, which reports Claude's own
// threshold, is missing.
func configuredWindow(settings map[string]any, env map[string]string, model string, notes *[]string) (int64, string) {
	// Precedence, not the smallest: Claude Code 2.1.332 lets the
	// environment variable win, then modelSettings.<model>, then
	// autoCompactWindow (observed in real runs, docs/reset.md). The seed
	// says "smallest wins"; that would reset up to the difference early.
	best, from := int64(0), ""
	consider := func(n int64, name string) {
		if best == 0 {
			best, from = n, name
		}
	}
	if s := env[envAutoWindow]; s != "" {
		// Claude reads whole tokens or a k/m shorthand ("200k") and treats
		// a value below its minimum as the minimum.
		n, err := reset.ParseCap(s)
		switch {
		case err != nil || n == 0:
			*notes = append(*notes, fmt.Sprintf("%s=%q ignored: want tokens such as 200000 or 200k", envAutoWindow, s))
		case n < minEnvAutoWindowTokens:
			*notes = append(*notes, fmt.Sprintf("%s=%q is below Claude's minimum; read as %d", envAutoWindow, s, minEnvAutoWindowTokens))
			consider(minEnvAutoWindowTokens, envAutoWindow)
		default:
			consider(n, envAutoWindow)
		}
	}
	if ms, ok := settings["modelSettings"]; ok && model != "" {
		if msObj, isObj := ms.(map[string]any); !isObj {
			*notes = append(*notes, "settings.modelSettings ignored: not an object")
		} else if entry, ok := msObj[model]; ok {
			if v, ok := reset.Lookup(entry, "autoCompactWindow"); ok && v != "auto" {
				if n, ok := reset.PositiveTokens(v); ok {
					consider(n, "modelSettings."+model+".autoCompactWindow")
				} else {
					*notes = append(*notes, fmt.Sprintf("settings.modelSettings.%s.autoCompactWindow ignored: want a positive number, got %v", model, v))
				}
			}
		}
	}
	if v, ok := settings["autoCompactWindow"]; ok && v != "auto" {
		if n, ok := reset.PositiveTokens(v); ok {
			consider(n, "autoCompactWindow")
		} else {
			*notes = append(*notes, fmt.Sprintf("settings.autoCompactWindow ignored: want a positive number, got %v", v))
		}
	}
	return best, from
}
