package claude

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/internal/installdir"
)

// Claude Code's rows of `notesoup doctor`: its version, whether the
// notesoup plugin is installed, enabled and loads from a folder that still
// exists, and whether Claude Code will delete transcripts (its
// cleanupPeriodDays, 30 days unless set), which history search would lose.

// DefaultCleanupDays is Claude Code's transcript retention when
// cleanupPeriodDays is not set: sessions older than this are deleted at
// startup.
const DefaultCleanupDays = 30

// keepDays is the retention doctor suggests: a century, in effect never.
const keepDays = 36500

// settings is the part of Claude's settings.json doctor reads.
type settings struct {
	CleanupPeriodDays *float64        `json:"cleanupPeriodDays"`
	EnabledPlugins    map[string]bool `json:"enabledPlugins"`
	ExtraMarketplaces map[string]struct {
		Source struct {
			Source string `json:"source"`
			Path   string `json:"path"`
		} `json:"source"`
	} `json:"extraKnownMarketplaces"`
}

// Doctor reports Claude Code's rows.
func Doctor(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	dir, err := ConfigDir()
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckWarn, Detail: err.Error()}}
	}
	ver, onPath := harness.VersionCheck(ctx, env, Name, cli, TestedVersion, "@anthropic-ai/claude-code")
	if !onPath && !harness.Exists(dir) {
		return []harness.Check{{Subject: Name, Item: "found", Status: harness.CheckSkip, Detail: "claude is not on PATH and " + dir + " does not exist"}}
	}
	var out []harness.Check
	if onPath {
		out = append(out, ver)
	} else {
		out = append(out, harness.Check{Subject: Name, Item: "version", Status: harness.CheckWarn, Detail: "claude is not on PATH (" + dir + " exists)"})
	}
	path := filepath.Join(dir, "settings.json")
	var s settings
	if _, err := installdir.ReadJSON(path, &s); err != nil {
		return append(out, harness.Check{Subject: Name, Item: "settings", Status: harness.CheckProblem, Detail: err.Error(), Fix: "fix the JSON in " + path})
	}
	return append(append(out, pluginChecks(s, env.Stage)...), retention(s, path))
}

// pluginChecks says whether the notesoup plugin is installed, enabled and
// present where Claude Code loads it from.
func pluginChecks(s settings, stage string) []harness.Check {
	c := harness.Check{Subject: Name, Item: "plugin"}
	enabled, known := s.EnabledPlugins[PluginID]
	switch {
	case !known:
		c.Status, c.Detail, c.Fix = harness.CheckWarn, "notesoup is not installed in Claude Code", "notesoup install claude"
		return []harness.Check{c}
	case !enabled:
		c.Status, c.Detail, c.Fix = harness.CheckProblem, PluginID+" is installed but disabled", "claude plugin enable "+PluginID
		return []harness.Check{c}
	}
	c.Status, c.Detail = harness.CheckOK, PluginID+" is enabled"
	out := []harness.Check{c}
	m, ok := s.ExtraMarketplaces[MarketplaceName]
	if !ok || m.Source.Path == "" {
		return out
	}
	from := harness.Check{Subject: Name, Item: "plugin folder"}
	bin := filepath.Join(m.Source.Path, packageBin, "notesoup")
	switch fi, err := os.Stat(bin); {
	case err != nil || fi.Mode()&0o111 == 0:
		from.Status, from.Detail, from.Fix = harness.CheckProblem, fmt.Sprintf("the marketplace folder %s has no runnable %s: the plugin cannot start notesoup", m.Source.Path, bin), "notesoup install claude"
	case stage != "" && filepath.Clean(m.Source.Path) != filepath.Clean(stage):
		from.Status, from.Detail, from.Fix = harness.CheckWarn, fmt.Sprintf("the plugin loads from %s, not from notesoup's install folder %s: deleting that folder breaks it", m.Source.Path, stage), "claude plugin uninstall "+PluginID+" && claude plugin marketplace remove "+MarketplaceName+" && notesoup install claude"
	default:
		from.Status, from.Detail = harness.CheckOK, "loads from "+m.Source.Path
	}
	return append(out, from)
}

// retention reports whether Claude Code will delete transcripts.
func retention(s settings, path string) harness.Check {
	c := harness.Check{Subject: Name, Item: "transcript retention"}
	days, set := float64(DefaultCleanupDays), false
	if s.CleanupPeriodDays != nil {
		days, set = *s.CleanupPeriodDays, true
	}
	if days >= keepDays {
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("cleanupPeriodDays is %g: transcripts are kept", days)
		return c
	}
	how := fmt.Sprintf("cleanupPeriodDays is %g", days)
	if !set {
		how = fmt.Sprintf("cleanupPeriodDays is not set (Claude Code's default is %d)", DefaultCleanupDays)
	}
	c.Status = harness.CheckProblem
	c.Detail = how + ": Claude Code deletes transcripts older than that at startup, and history search loses them"
	if harness.Exists(path) {
		c.Fix = fmt.Sprintf("jq '.cleanupPeriodDays = %d' %s > %s.new && mv %s.new %s", keepDays, path, path, path, path)
	} else {
		c.Fix = fmt.Sprintf("printf '{\"cleanupPeriodDays\": %d}\\n' > %s", keepDays, path)
	}
	return c
}
