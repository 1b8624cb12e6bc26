package pi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/internal/installdir"
)

// `notesoup install pi` installs the notesoup extension the way Pi installs
// any package: the package folder (make dist-pi, or share/notesoup/pi in a
// release archive) is staged in notesoup's install directory with the
// installed binaries in bin/, then `pi install <staged folder>`. Pi adds a
// local path to its settings without copying it, so the staged folder,
// never a build's, is what it loads. `notesoup uninstall pi` runs
// `pi remove` on that path and takes out the empty "packages" it leaves.

// TestedVersion is the Pi version notesoup's tests run (the pin in
// e2e/package.json).
const TestedVersion = "0.73.1"

// cli is Pi's command.
const cli = "pi"

// packageBin is where the package keeps its binaries (the extension runs
// <package>/bin/notesoup before PATH).
const packageBin = "bin"

// settingsKeys are the settings.json keys pi install adds.
var settingsKeys = []string{"packages"}

// Installer is the Pi installer.
var Installer = &harness.Installer{
	HomeFlag:  "pi-agent-dir",
	Home:      AgentDir,
	Install:   Install,
	Uninstall: Uninstall,
	Package:   "pi",
}

// piSettings is the part of <agent dir>/settings.json install reads.
type piSettings struct {
	Packages []any `json:"packages"`
}

// Listed reports whether agentDir's settings.json lists the package folder
// dir (pi writes a local path relative to the settings file, or as given;
// an object entry names it in "source").
func Listed(agentDir, dir string) (bool, error) {
	var s piSettings
	if _, err := installdir.ReadJSON(filepath.Join(agentDir, settingsFile), &s); err != nil {
		return false, err
	}
	want := filepath.Clean(dir)
	for _, p := range s.Packages {
		src, _ := p.(string)
		if m, ok := p.(map[string]any); ok {
			src, _ = m["source"].(string)
		}
		if src == "" {
			continue
		}
		if !filepath.IsAbs(src) {
			src = filepath.Join(agentDir, src)
		}
		if filepath.Clean(src) == want {
			return true, nil
		}
	}
	return false, nil
}

func snapshotFile(stage string) string { return stage + ".settings.json" }

// runPi runs one pi command with the agent directory asked for, or with a
// dry run says it would.
func runPi(rep *harness.InstallReport, home string, args ...string) error {
	line := "pi " + strings.Join(args, " ")
	if rep.DryRun {
		rep.Messages = append(rep.Messages, "would run: "+line)
		return nil
	}
	bin, err := exec.LookPath(cli)
	if err != nil {
		return fmt.Errorf("pi not found on PATH: install the Pi coding agent (%s is the tested version: npm install -g @mariozechner/pi-coding-agent@%s) or put it on PATH", TestedVersion, TestedVersion)
	}
	if _, err := installdir.Run(context.Background(), []string{envAgentDir + "=" + home}, bin, args...); err != nil {
		return err
	}
	rep.Messages = append(rep.Messages, "ran: "+line)
	return nil
}

// Install stages the package in req.Stage and adds it with pi install.
func Install(req harness.InstallRequest) (harness.InstallReport, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	if req.Stage == "" {
		return rep, fmt.Errorf("no folder to keep the Pi package in")
	}
	if _, err := exec.LookPath(cli); err != nil && !req.DryRun {
		return rep, fmt.Errorf("pi not found on PATH: install the Pi coding agent (%s is the tested version) or put it on PATH", TestedVersion)
	}
	if req.Package == "" {
		if _, err := os.Stat(req.Stage); err != nil {
			return rep, fmt.Errorf("no Pi package to install: pass --package with the notesoup-pi folder (make dist-pi, or share/notesoup/pi in a release archive)")
		}
	}
	changed, err := installdir.Stage(req.Package, req.Stage, packageBin, filepath.Dir(req.Binary), req.DryRun)
	if err != nil {
		return rep, err
	}
	if changed {
		rep.Changed = append(rep.Changed, req.Stage)
		rep.Messages = append(rep.Messages, map[bool]string{false: "staged", true: "would stage"}[req.DryRun]+" the Pi package in "+req.Stage)
	} else {
		rep.Messages = append(rep.Messages, req.Stage+": already up to date")
	}
	listed, err := Listed(req.Home, req.Stage)
	if err != nil {
		return rep, err
	}
	if listed {
		rep.Messages = append(rep.Messages, "pi lists "+req.Stage+": already installed")
		return rep, nil
	}
	settings := filepath.Join(req.Home, settingsFile)
	if !req.DryRun {
		snap, err := installdir.Take(settings, settingsKeys)
		if err != nil {
			return rep, err
		}
		if err := snap.Save(snapshotFile(req.Stage)); err != nil {
			return rep, err
		}
	}
	rep.Changed = append(rep.Changed, settings)
	return rep, runPi(&rep, req.Home, "install", req.Stage)
}

// Uninstall removes the staged package from Pi's settings with pi remove,
// restores the settings as they were, and removes the staged folder. The
// notes are never touched.
func Uninstall(req harness.InstallRequest) (harness.InstallReport, error) {
	rep := harness.InstallReport{Home: req.Home, DryRun: req.DryRun, Changed: []string{}}
	listed, err := Listed(req.Home, req.Stage)
	if err != nil {
		return rep, err
	}
	if listed {
		rep.Changed = append(rep.Changed, filepath.Join(req.Home, settingsFile))
		if err := runPi(&rep, req.Home, "remove", req.Stage); err != nil {
			return rep, err
		}
	} else {
		rep.Messages = append(rep.Messages, "pi does not list "+req.Stage+": nothing to remove there")
	}
	if snap, ok, err := installdir.Load(snapshotFile(req.Stage)); err != nil {
		return rep, err
	} else if ok {
		msg, err := snap.Restore(req.DryRun)
		if err != nil {
			return rep, err
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
			return rep, fmt.Errorf("removing %s: %w", p, err)
		}
		rep.Messages = append(rep.Messages, "removed "+p)
	}
	rep.Messages = append(rep.Messages, "The notes are kept.")
	return rep, nil
}
