package harness

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Doctor rows: what `notesoup doctor` asks each built-in harness about
// itself. A harness that has a Doctor reports its own rows (its version
// against the tested one, whether notesoup is installed and active in it,
// settings of its own that lose history), so adding a harness adds its
// rows in its package and the doctor command names no harness.

// Check statuses.
const (
	// CheckOK is a row that needs nothing.
	CheckOK = "ok"
	// CheckWarn is worth knowing but not broken (a version other than the
	// tested one).
	CheckWarn = "warn"
	// CheckProblem is broken or losing data; it carries a Fix, and makes
	// `notesoup doctor` exit 1.
	CheckProblem = "problem"
	// CheckSkip says the harness is not on this machine.
	CheckSkip = "skip"
)

// Check is one row of `notesoup doctor`.
type Check struct {
	// Subject is what the row is about: a harness name, "notesoup",
	// "notes", "plugins".
	Subject string `json:"subject"`
	// Item names the check ("version", "installed", "hooks trusted").
	Item   string `json:"item"`
	Status string `json:"status"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix is the command (or the one edit) that fixes a problem.
	Fix string `json:"fix,omitempty"`
}

// DoctorEnv is what a harness's doctor may use.
type DoctorEnv struct {
	// BinDir is where `notesoup install` puts the binaries.
	BinDir string
	// Stage is the stable folder where this harness's package is kept once
	// installed (internal/installdir); empty for a harness without one.
	Stage string
	// Run runs a command (a harness CLI's --version) with a bound on its
	// time and returns its standard output; nil runs nothing (tests).
	Run func(ctx context.Context, name string, args ...string) (string, error)
	// LookPath finds a command on PATH.
	LookPath func(string) (string, error)
}

// Doctor returns a harness's rows.
type Doctor func(ctx context.Context, env DoctorEnv) []Check

// VersionCheck is the "version" row of a harness whose CLI is cli: the
// version its --version prints against tested (a warning when they
// differ: notesoup may still work, but was not tested with it; the fix
// installs the tested one from npm package npm). ok is false when cli is
// not on PATH.
func VersionCheck(ctx context.Context, env DoctorEnv, subject, cli, tested, npm string) (Check, bool) {
	c := Check{Subject: subject, Item: "version"}
	if env.LookPath == nil || env.Run == nil {
		return c, false
	}
	path, err := env.LookPath(cli)
	if err != nil {
		return c, false
	}
	out, err := env.Run(ctx, path, "--version")
	got := firstVersion(out)
	switch {
	case err != nil && got == "":
		c.Status, c.Detail = CheckWarn, fmt.Sprintf("%s --version failed: %v", path, err)
	case got == tested:
		c.Status, c.Detail = CheckOK, fmt.Sprintf("%s %s (tested: %s)", path, got, tested)
	default:
		c.Status, c.Detail = CheckWarn, fmt.Sprintf("%s %s, notesoup is tested with %s", path, orUnknown(got), tested)
		c.Fix = fmt.Sprintf("npm install -g %s@%s", npm, tested)
	}
	return c, true
}

// firstVersion is the first word of out that looks like a version
// (digits and dots, at least one dot), without a full stop after it
// ("GitHub Copilot CLI 1.0.102.").
func firstVersion(out string) string {
	for _, w := range strings.Fields(out) {
		w = strings.TrimSuffix(strings.TrimPrefix(w, "v"), ".")
		if strings.Count(w, ".") >= 1 && strings.Trim(w, "0123456789.") == "" && w[0] != '.' {
			return w
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}

// Exists reports whether path exists (a folder a harness would have made).
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
