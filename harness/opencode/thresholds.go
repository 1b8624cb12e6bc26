package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/jsonedit"
	"github.com/notesoup/notesoup/shared/reset"
)

// OpenCode's own compaction rule (1.18.33, SessionCompaction.isOverflow,
// read from the JS the binary embeds): after each finished assistant step
// it compacts the session when that step's tokens (tokens.total, else
// input+output+cache.read+cache.write) reach the model's usable context:
//
//	maxOut  = min(limit.output, outputTokenMax) || outputTokenMax
//	          (outputTokenMax: $OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX, else 32,000)
//	usable  = limit.input − (compaction.reserved ?? min(20,000, maxOut))  when limit.input is set
//	        = limit.context − maxOut                                     otherwise
//
// It never compacts on its own when compaction.auto is false or
// limit.context is 0. The limits come from the provider configuration
// (provider.<id>.models.<id>.limit) or, for a catalogued model, from
// models.dev, which this plugin does not read.
const (
	defaultOutputTokenMax = 32_000
	defaultReserveCap     = 20_000
	envOutputTokenMax     = "OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX"
	envConfig             = "OPENCODE_CONFIG"
	envConfigContent      = "OPENCODE_CONFIG_CONTENT"
	envConfigHome         = "XDG_CONFIG_HOME"
)

// noResetNote is said with every resolved point: the point is OpenCode's
// own compaction, which notesoup cannot run or replace.
const noResetNote = "at this point OpenCode compacts the session on its own (a summary replaces the older part; the notesoup plugin adds its notes reminder to the summary prompt): that compaction is the only automatic reset in OpenCode. notesoup cannot empty an OpenCode window (no tool or plugin hook starts a compaction), so the budget warning (once per window, from the plugin `notesoup install opencode` writes) asks the model to bring its notes up to date before it"

// Thresholds implements contract.Harness: the point where OpenCode
// compacts on its own, from the model's limits in OpenCode's configuration.
//
// The configuration is in.Settings when the caller passes OpenCode's merged
// configuration; else its layers, later winning key by key: the global
// folder's config.json, opencode.json and opencode.jsonc
// ($XDG_CONFIG_HOME/opencode, else <in.Home or $HOME>/.config/opencode), the file
// $OPENCODE_CONFIG names, the project's opencode.json and opencode.jsonc in
// in.Cwd (OpenCode also looks in the folders up to the worktree root; those
// are not read here), then $OPENCODE_CONFIG_CONTENT. The model is in.Model,
// else the configuration's "model", as "provider/model".
func (Harness) Thresholds(_ context.Context, in contract.ThresholdInput) (contract.NativePoint, error) {
	cfg, files, notes := mergedConfig(in)
	p := resolve(in, cfg, notes)
	p.Files = files
	p.PolicySettings = reset.PolicySettings(cfg)
	return p, nil
}

// resolve is Thresholds over the configuration already read.
func resolve(in contract.ThresholdInput, cfg map[string]any, notes []string) contract.NativePoint {
	auto := true
	if v, ok := reset.Lookup(cfg, "compaction", "auto"); ok {
		if b, isBool := v.(bool); isBool {
			auto = b
		} else {
			notes = append(notes, fmt.Sprintf("compaction.auto ignored: want true or false, got %v", v))
		}
	}
	unresolved := func(reason string) contract.NativePoint {
		return contract.NativePoint{Source: Name, Reason: reason, AutoCompactEnabled: auto, Notes: notes}
	}
	model := strings.TrimSpace(in.Model)
	modelFrom := "model " + model
	if model == "" {
		if v, ok := cfg["model"].(string); ok && strings.TrimSpace(v) != "" {
			model, modelFrom = strings.TrimSpace(v), "config model "+strings.TrimSpace(v)
		}
	}
	if model == "" {
		return unresolved("no model named: pass --model provider/model or set \"model\" in opencode.json; OpenCode's point depends on the model's limits")
	}
	provider, id, ok := strings.Cut(model, "/")
	if !ok || provider == "" || id == "" {
		return unresolved(fmt.Sprintf("model %q: want provider/model, as OpenCode names it (e.g. anthropic/claude-sonnet-4-5)", model))
	}
	limit, ok := reset.Lookup(cfg, "provider", provider, "models", id, "limit")
	if !ok {
		return unresolved(fmt.Sprintf("model %s has no limit in OpenCode's configuration (provider.%s.models.%s.limit); its limits would come from models.dev, which notesoup does not read: set limit.context and limit.output there", model, provider, id))
	}
	ctxLimit, okC := tokens(limit, "context", &notes)
	if !okC || ctxLimit <= 0 {
		return unresolved(fmt.Sprintf("model %s: limit.context is %d: OpenCode never compacts a model without a context limit", model, ctxLimit))
	}
	output, _ := tokens(limit, "output", &notes)
	input, _ := tokens(limit, "input", &notes)

	outMax, outFrom := int64(defaultOutputTokenMax), "output cap 32000"
	if s := strings.TrimSpace(in.Env[envOutputTokenMax]); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			notes = append(notes, fmt.Sprintf("$%s=%q ignored: want a positive whole number", envOutputTokenMax, s))
		} else {
			outMax, outFrom = n, "$"+envOutputTokenMax+" "+s
		}
	}
	reserved, hasReserved := int64(0), false
	if v, ok := reset.Lookup(cfg, "compaction", "reserved"); ok {
		if n, isNum := wholeNumber(v); isNum && n >= 0 {
			reserved, hasReserved = n, true
		} else {
			notes = append(notes, fmt.Sprintf("compaction.reserved ignored: want a token count, got %v", v))
		}
	}

	window, capped := reset.ClampWindow(ctxLimit, in.Cap)
	if capped && input > window {
		input = window
	}
	point, source := usable(window, input, output, outMax, reserved, hasReserved)
	source = fmt.Sprintf("%s: %s (%s; %s)", Name, source, modelFrom, outFrom)
	if capped {
		source += "; runtime cap " + reset.FormatTokens(in.Cap)
	}
	if !auto {
		notes = append(notes, "compaction.auto is false: OpenCode does not compact on its own; the point is where it would, for the warning")
	}
	notes = append(notes, noResetNote)
	if point <= 0 {
		return contract.NativePoint{Window: window, Source: source, AutoCompactEnabled: auto, Notes: notes,
			Reason: "no positive compaction point (" + source + ")"}
	}
	return contract.NativePoint{Resolved: true, Tokens: point, Window: window, Source: source,
		AutoCompactEnabled: auto, CapApplied: capped, Notes: notes}
}

// usable is OpenCode's usable context (its function vn) and how it was
// reached.
func usable(ctxLimit, input, output, outMax, reserved int64, hasReserved bool) (int64, string) {
	maxOut := min(output, outMax)
	if maxOut <= 0 { // JS's `min(...) || outMax`: a zero (or missing) output limit means the cap
		maxOut = outMax
	}
	if input > 0 {
		r, from := min(defaultReserveCap, maxOut), fmt.Sprintf("reserve min(20000, max output %d)", maxOut)
		if hasReserved {
			r, from = reserved, fmt.Sprintf("compaction.reserved %d", reserved)
		}
		return max(0, input-r), fmt.Sprintf("limit.input %d − %s", input, from)
	}
	return max(0, ctxLimit-maxOut), fmt.Sprintf("limit.context %d − max output %d", ctxLimit, maxOut)
}

// tokens reads limit.<key> as a whole token count; a missing key is 0.
func tokens(limit any, key string, notes *[]string) (int64, bool) {
	v, ok := reset.Lookup(limit, key)
	if !ok {
		return 0, false
	}
	n, isNum := wholeNumber(v)
	if !isNum || n < 0 {
		*notes = append(*notes, fmt.Sprintf("limit.%s ignored: want a token count, got %v", key, v))
		return 0, false
	}
	return n, true
}

// wholeNumber reads a configuration number (json.Number from
// jsonedit.ParseObject, or a float from a caller's decoding) as a whole
// count, rounding down as token counts are compared.
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		return int64(n), n == n
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		if err != nil || f != f || f > 1e15 || f < -1e15 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// mergedConfig returns the caller's configuration, or OpenCode's layers
// merged in its order, with every file consulted and why any was skipped.
func mergedConfig(in contract.ThresholdInput) (map[string]any, []string, []string) {
	if len(strings.TrimSpace(string(in.Settings))) > 0 {
		c, err := jsonedit.ParseObject(in.Settings)
		if err != nil {
			return map[string]any{}, nil, []string{"settings ignored: " + err.Error()}
		}
		return c, nil, nil
	}
	var notes, paths []string
	global := ""
	if x := in.Env[envConfigHome]; x != "" && filepath.IsAbs(x) {
		global = filepath.Join(x, appDir)
	} else if h := in.Home; h != "" {
		global = filepath.Join(h, ".config", appDir)
	} else if h, err := os.UserHomeDir(); err == nil {
		global = filepath.Join(h, ".config", appDir)
	} else {
		notes = append(notes, "global configuration not read: no home ("+err.Error()+") and $"+envConfigHome+" unset")
	}
	if global != "" {
		for _, f := range []string{"config.json", "opencode.json", "opencode.jsonc"} {
			paths = append(paths, filepath.Join(global, f))
		}
	}
	if p := in.Env[envConfig]; p != "" {
		paths = append(paths, p)
	}
	if in.Cwd != "" {
		paths = append(paths, filepath.Join(in.Cwd, "opencode.json"), filepath.Join(in.Cwd, "opencode.jsonc"))
	}
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
		obj, err := jsonedit.ParseObject(data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s ignored: %v", p, err))
			continue
		}
		reset.MergeSettings(merged, obj)
	}
	if s := in.Env[envConfigContent]; strings.TrimSpace(s) != "" {
		obj, err := jsonedit.ParseObject([]byte(s))
		if err != nil {
			notes = append(notes, fmt.Sprintf("$%s ignored: %v", envConfigContent, err))
		} else {
			reset.MergeSettings(merged, obj)
		}
	}
	return merged, paths, notes
}
