package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/internal/installdir"
)

// `notesoup install claude` installs the notesoup mod the way Claude Code
// installs any plugin: the marketplace folder (make dist-claude, or
// share/notesoup/claude-marketplace of a release archive) is staged in
// notesoup's install directory with the installed binaries in it, then
// `claude plugin marketplace add <staged folder>` and `claude plugin install
// notesoup@notesoup`. Claude Code loads a directory marketplace's plugin in
// place, so the staged folder, never the build's, is what it runs.
// `notesoup uninstall claude` runs Claude's own uninstall and marketplace
// remove, then takes out the empty settings keys those leave behind.

// TestedVersion is the Claude Code version notesoup's tests run (the pin in
// e2e/package.json).
const TestedVersion = "2.1.332"

// Marketplace and plugin names, as plugins/claude/build.mk's dist-claude
// writes them into marketplace.json.
const (
	MarketplaceName = "notesoup"
	PluginID        = "notesoup@" + MarketplaceName
)

// packageBin is where the marketplace's plugin keeps its binaries (its
// hooks run ${plugin root}/bin/notesoup).
const packageBin = "plugins/notesoup/bin"

// cli is the Claude Code command install runs.
const cli = "claude"

// settingsKeys are the settings.json keys Claude's plugin commands add.
var settingsKeys = []string{"enabledPlugins", "extraKnownMarketplaces"}

// Installer is the Claude Code installer.
var Installer = &harness.Installer{
	HomeFlag:  "claude-config-dir",
	Home:      ConfigDir,
	Install:   Install,
	Uninstall: Uninstall,
	Package:   "claude-marketplace",
}

// ConfigDir returns Claude Code's configuration directory:
// $CLAUDE_CONFIG_DIR, else ~/.claude.
func ConfigDir() (string, error) {
	r, err := DefaultRoot()
	if err != nil {
		return "", err
	}
	return filepath.Dir(r), nil
}

// cliEnv is the environment Claude's CLI runs in: the configuration
// directory asked for, and no traffic a local install does not need.
func cliEnv(home string) []string {
	return []string{ConfigDirEnv + "=" + home, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
}

// marketplace is one row of `claude plugin marketplace list --json`.
type marketplace struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// plugin is one row of `claude plugin list --json`.
type plugin struct {
	ID      string `json:"id"`
	Enabled bool   `json:"enabled"`
}

// state is what Claude says is installed.
type state struct {
	market  *marketplace
	plugin  *plugin
	claude  string
	environ []string
}

func look(ctx context.Context, home string) (state, error) {
	st := state{environ: cliEnv(home)}
	bin, err := exec.LookPath(cli)
	if err != nil {
		return st, fmt.Errorf("claude not found on PATH: install Claude Code (%s is the tested version) or put its directory on PATH", TestedVersion)
	}
	st.claude = bin
	out, err := installdir.Run(ctx, st.environ, bin, "plugin", "marketplace", "list", "--json")
	if err != nil {
		return st, err
	}
	var ms []marketplace
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		return st, fmt.Errorf("claude plugin marketplace list --json: unexpected answer (%v); is this Claude Code %s?", err, TestedVersion)
	}
	for i := range ms {
		if ms[i].Name == MarketplaceName {
			st.market = &ms[i]
		}
	}
	out, err = installdir.Run(ctx, st.environ, bin, "plugin", "list", "--json")
	if err != nil {
		return st, err
	}
	var ps []plugin
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		return st, fmt.Errorf("claude plugin list --json: unexpected answer (%v)", err)
	}
	for i := range ps {
		if ps[i].ID == PluginID {
			st.plugin = &ps[i]
		}
	}
	return st, nil
}

// run runs one claude command, or with dry run says it would.
func (st state) run(ctx context.Context, rep *harness.InstallReport, args ...string) error {
	line := "claude " + strings.Join(args, " ")
	if rep.DryRun {
		rep.Messages = append(rep.Messages, "would run: "+line)
		return nil
	}
	if _, err := installdir.Run(ctx, st.environ, st.claude, args...); err != nil {
		return err
	}
	rep.Messages = append(rep.Messages, "ran: "+line)
	return nil
}

func snapshotFile(stage string) string { return stage + ".settings.json" }

// Install stages the marketplace in req.Stage and installs its plugin with
// Claude's own commands. A marketplace named notesoup that points elsewhere
// (installed by hand from a checkout) is refused, not replaced.
func Install(req harness.InstallRequest) (harness.InstallReport, error) {
	ctx := context.Background()
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	if req.Stage == "" {
		return rep, fmt.Errorf("no folder to keep the marketplace in")
	}
	st, err := look(ctx, req.Home)
	if err != nil {
		return rep, err
	}
	if st.market != nil && filepath.Clean(st.market.Path) != filepath.Clean(req.Stage) {
		return rep, fmt.Errorf("refusing to overwrite: Claude Code already has a marketplace named %q at %s; remove it first (claude plugin uninstall %s; claude plugin marketplace remove %s) and run this again",
			MarketplaceName, st.market.Path, PluginID, MarketplaceName)
	}
	if req.Package == "" {
		if _, err := os.Stat(req.Stage); err != nil {
			return rep, fmt.Errorf("no Claude Code marketplace to install: pass --package with the notesoup-claude-marketplace folder (make dist-claude, or share/notesoup/claude-marketplace in a release archive)")
		}
	}
	changed, err := installdir.Stage(req.Package, req.Stage, packageBin, filepath.Dir(req.Binary), req.DryRun)
	if err != nil {
		return rep, err
	}
	if changed {
		rep.Changed = append(rep.Changed, req.Stage)
		rep.Messages = append(rep.Messages, verb(req.DryRun, "staged", "would stage")+" the marketplace in "+req.Stage)
	} else {
		rep.Messages = append(rep.Messages, req.Stage+": already up to date")
	}
	if st.market == nil || st.plugin == nil {
		if !req.DryRun {
			snap, err := installdir.Take(filepath.Join(req.Home, "settings.json"), settingsKeys)
			if err != nil {
				return rep, err
			}
			if err := snap.Save(snapshotFile(req.Stage)); err != nil {
				return rep, err
			}
		}
		rep.Changed = append(rep.Changed, filepath.Join(req.Home, "settings.json"))
	}
	if st.market == nil {
		if err := st.run(ctx, &rep, "plugin", "marketplace", "add", req.Stage); err != nil {
			return rep, err
		}
	}
	switch {
	case st.plugin == nil:
		if err := st.run(ctx, &rep, "plugin", "install", PluginID); err != nil {
			return rep, err
		}
	case !st.plugin.Enabled:
		if err := st.run(ctx, &rep, "plugin", "enable", PluginID); err != nil {
			return rep, err
		}
		rep.Changed = append(rep.Changed, filepath.Join(req.Home, "settings.json"))
	default:
		rep.Messages = append(rep.Messages, PluginID+": already installed and enabled")
	}
	if changed && st.plugin != nil && !req.DryRun {
		rep.Messages = append(rep.Messages, "Claude Code loads the plugin in place: a running session picks up the new binaries at its next start or /reload-plugins")
	}
	return rep, nil
}

// Uninstall removes the plugin and the marketplace with Claude's own
// commands, restores the settings keys they leave empty, and removes the
// staged marketplace. A notesoup marketplace that install did not add
// (another path) is left alone. The notes are never touched.
func Uninstall(req harness.InstallRequest) (harness.InstallReport, error) {
	ctx := context.Background()
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	st, err := look(ctx, req.Home)
	if err != nil {
		return rep, err
	}
	ours := st.market != nil && req.Stage != "" && filepath.Clean(st.market.Path) == filepath.Clean(req.Stage)
	if st.market != nil && !ours {
		rep.Messages = append(rep.Messages, fmt.Sprintf("the marketplace %q at %s was not added by notesoup install: left alone (claude plugin marketplace remove %s removes it)", MarketplaceName, st.market.Path, MarketplaceName))
	}
	if st.plugin != nil && (ours || st.market == nil) {
		if err := st.run(ctx, &rep, "plugin", "uninstall", PluginID); err != nil {
			return rep, err
		}
		rep.Changed = append(rep.Changed, filepath.Join(req.Home, "settings.json"))
	}
	if ours {
		if err := st.run(ctx, &rep, "plugin", "marketplace", "remove", MarketplaceName); err != nil {
			return rep, err
		}
	}
	if st.market == nil && st.plugin == nil {
		rep.Messages = append(rep.Messages, "Claude Code has no notesoup plugin: nothing to uninstall there")
	}
	if err := restore(&rep, req); err != nil {
		return rep, err
	}
	rep.Messages = append(rep.Messages, "The notes are kept.")
	return rep, nil
}

// restore undoes the settings keys Claude's commands left empty and
// removes the staged marketplace and its snapshot.
func restore(rep *harness.InstallReport, req harness.InstallRequest) error {
	if req.Stage == "" {
		return nil
	}
	snap, ok, err := installdir.Load(snapshotFile(req.Stage))
	if err != nil {
		return err
	}
	if ok {
		msg, err := snap.Restore(req.DryRun)
		if err != nil {
			return err
		}
		if msg != "" {
			rep.Messages = append(rep.Messages, msg)
		}
	}
	for _, p := range []string{req.Stage, snapshotFile(req.Stage)} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		rep.Changed = append(rep.Changed, p)
		if req.DryRun {
			rep.Messages = append(rep.Messages, "would remove "+p)
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("removing %s: %w", p, err)
		}
		rep.Messages = append(rep.Messages, "removed "+p)
	}
	return nil
}

func verb(dry bool, did, would string) string {
	if dry {
		return would
	}
	return did
}
