package pi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/notesoup/notesoup/shared/reset"
)

// Pi's compaction defaults (pi.md §4.6): compaction.enabled true,
// compaction.reserveTokens 16384. Pi compacts when the context exceeds
// model.contextWindow − reserveTokens.
const (
	defaultReserveTokens = 16384
	// defaultCustomContextWindow is the window Pi gives a models.json custom
	// model that declares none (models.md: contextWindow default 128000).
	defaultCustomContextWindow = 128_000
	thresholdAgentDirEnv       = "PI_CODING_AGENT_DIR"
)

// Thresholds resolves the point Pi itself compacts at: the model's context
// window (clamped to the runtime cap) minus compaction.reserveTokens, with
// compaction.enabled deciding whether Pi compacts automatically.
//
// Settings come from in.Settings when the caller passes Pi's merged
// settings, else from <agentDir>/settings.json deep-merged with the
// project's <cwd>/.pi/settings.json (project wins), where agentDir is
// $PI_CODING_AGENT_DIR or ~/.pi/agent. The window comes from
// in.ModelWindow (Pi's resolved ctx.model.contextWindow), else the usage
// report's contextWindow (ctx.getContextUsage()), else models.json: the
// custom model providers.<p>.models[].contextWindow (128000 when it declares
// none), which replaces a built-in entry, then the built-in override
// providers.<p>.modelOverrides.<id>.contextWindow.
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
	enabled := true
	if v, ok := reset.Lookup(settings, "compaction", "enabled"); ok {
		if b, isBool := v.(bool); isBool {
			enabled = b
		} else {
			notes = append(notes, fmt.Sprintf("compaction.enabled ignored: want true or false, got %v", v))
		}
	}
	reserve, reserveFrom := int64(defaultReserveTokens), "default reserveTokens 16384"
	if v, ok := reset.Lookup(settings, "compaction", "reserveTokens"); ok {
		if n, ok := reset.NonNegativeTokens(v); ok {
			reserve, reserveFrom = n, fmt.Sprintf("compaction.reserveTokens %d", n)
		} else {
			notes = append(notes, fmt.Sprintf("compaction.reserveTokens ignored: want a non-negative number, got %v", v))
		}
	}
	window, windowFrom, wfiles, wnotes := modelWindow(in)
	files = append(files, wfiles...)
	notes = append(notes, wnotes...)
	if window == 0 {
		return reset.NativePoint{Reason: "pi: the model's context window is unknown; pass ctx.model.contextWindow as the model window",
			Source: "pi", Notes: notes, Files: files, AutoCompactEnabled: enabled}
	}
	source := "pi: " + windowFrom + " − " + reserveFrom
	if !enabled {
		source += "; compaction.enabled false (no automatic compaction)"
	}
	w, capped := reset.ClampWindow(window, in.Cap)
	if capped {
		source += "; runtime cap " + reset.FormatTokens(in.Cap)
	}
	point := w - reserve
	if point <= 0 {
		return reset.NativePoint{Window: w, Source: source, AutoCompactEnabled: enabled, Notes: notes, Files: files,
			Reason: fmt.Sprintf("window %d leaves no room for reserveTokens %d", w, reserve)}
	}
	return reset.NativePoint{Resolved: true, Tokens: point, Window: w, Source: source,
		AutoCompactEnabled: enabled, CapApplied: capped, Notes: notes, Files: files}
}

func thresholdAgentDir(in reset.ThresholdInput) (string, error) {
	home := in.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		home = h
	}
	if d := in.Env[thresholdAgentDirEnv]; d != "" {
		if d == "~" || strings.HasPrefix(d, "~/") {
			d = filepath.Join(home, strings.TrimPrefix(d, "~"))
		}
		return d, nil
	}
	return filepath.Join(home, ".pi", "agent"), nil
}

func mergedSettings(in reset.ThresholdInput) (map[string]any, []string, []string) {
	var notes []string
	if len(strings.TrimSpace(string(in.Settings))) > 0 {
		s, err := reset.ParseJSONObject(in.Settings)
		if err != nil {
			return map[string]any{}, nil, []string{"settings ignored: " + err.Error()}
		}
		return s, nil, nil
	}
	var paths []string
	if dir, err := thresholdAgentDir(in); err == nil {
		paths = append(paths, filepath.Join(dir, "settings.json"))
	} else {
		notes = append(notes, "global settings not read: no home directory")
	}
	if in.Cwd != "" {
		paths = append(paths, filepath.Join(in.Cwd, ".pi", "settings.json"))
	}
	merged, readNotes := reset.MergeJSONSettingsFiles(paths)
	return merged, paths, append(notes, readNotes...)
}

func modelWindow(in reset.ThresholdInput) (int64, string, []string, []string) {
	var notes, files []string
	if in.ModelWindow > 0 {
		return in.ModelWindow, fmt.Sprintf("model window %d", in.ModelWindow), nil, nil
	}
	if usage, err := reset.ParseJSONObject(in.Usage); err != nil {
		notes = append(notes, "usage ignored: "+err.Error())
	} else if v, ok := usage["contextWindow"]; ok {
		if n, ok := reset.PositiveTokens(v); ok {
			return n, fmt.Sprintf("usage.contextWindow %d", n), nil, nil
		}
		notes = append(notes, fmt.Sprintf("usage.contextWindow ignored: want a positive number, got %v", v))
	}
	if in.Model == "" {
		return 0, "", nil, notes
	}
	dir, err := thresholdAgentDir(in)
	if err != nil {
		return 0, "", nil, append(notes, "models.json not read: no home directory")
	}
	path := filepath.Join(dir, "models.json")
	files = append(files, path)
	data, err := reset.ReadSettingsFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("%s not read: %v", path, err))
		}
		return 0, "", files, notes
	}
	doc, err := reset.ParseJSONObject(data)
	if err != nil {
		return 0, "", files, append(notes, fmt.Sprintf("%s ignored: %v", path, err))
	}
	providers, _ := doc["providers"].(map[string]any)
	wantProvider, wantID, hasProvider := strings.Cut(in.Model, "/")
	if !hasProvider {
		wantProvider, wantID = "", in.Model
	}
	names := make([]string, 0, len(providers))
	for name := range providers {
		names = append(names, name)
	}
	sort.Strings(names) // a model id in several providers resolves the same way every time
	for _, name := range names {
		if hasProvider && name != wantProvider {
			continue
		}
		prov, ok := providers[name].(map[string]any)
		if !ok {
			continue
		}
		// A custom model with the id replaces the overridden built-in
		// entry (Pi's models.md), so it is looked at first.
		models, _ := prov["models"].([]any)
		for _, mv := range models {
			m, ok := mv.(map[string]any)
			if !ok || m["id"] != wantID {
				continue
			}
			v, present := m["contextWindow"]
			if !present {
				return defaultCustomContextWindow, fmt.Sprintf("models.json providers.%s.models[%s] default contextWindow %d", name, wantID, defaultCustomContextWindow), files, notes
			}
			if n, ok := reset.PositiveTokens(v); ok {
				return n, fmt.Sprintf("models.json providers.%s.models[%s].contextWindow %d", name, wantID, n), files, notes
			}
			notes = append(notes, fmt.Sprintf("models.json providers.%s.models[%s].contextWindow ignored: want a positive number, got %v", name, wantID, v))
		}
		if ov, ok := reset.Lookup(prov, "modelOverrides", wantID, "contextWindow"); ok {
			if n, ok := reset.PositiveTokens(ov); ok {
				return n, fmt.Sprintf("models.json providers.%s.modelOverrides.%s.contextWindow %d", name, wantID, n), files, notes
			}
			notes = append(notes, fmt.Sprintf("models.json providers.%s.modelOverrides.%s.contextWindow ignored: want a positive number", name, wantID))
		}
	}
	return 0, "", files, notes
}
