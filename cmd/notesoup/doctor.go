package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/internal/installdir"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/version"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "doctor",
		summary: "check notesoup's install: each harness's version and wiring, the binaries, the notes home, plugins, transcript retention",
		flags:   func(fs *pflag.FlagSet) { new(doctorOpts).define(fs) },
		about: `For each harness found on the machine: its version against the one notesoup
is tested with, whether notesoup is installed and active there, and the
transcript retention settings that will delete its history. Then notesoup's
binaries, the notes home and its permissions, and the external plugins.
Each problem comes with the command that fixes it.

Exit status: 0 all is well (warnings included), 1 at least one problem,
2 a usage error or doctor itself failed.
`,
		run: runDoctor,
	})
}

// versionTimeout bounds one `<cli> --version` run: a CLI that hangs must
// not hang doctor.
const versionTimeout = 20 * time.Second

// doctorReport is `notesoup doctor --json`.
type doctorReport struct {
	OK     bool            `json:"ok"`
	Checks []harness.Check `json:"checks"`
}

// doctorOpts are doctor's flags.
type doctorOpts struct {
	json bool
}

func (o *doctorOpts) define(fs *pflag.FlagSet) {
	fs.BoolVar(&o.json, "json", false, "print the checks as JSON")
	homeFlag(fs)
}

// runDoctor checks notesoup's own pieces, then asks each built-in harness
// for its rows. Exit 0 when no row is a problem, 1 otherwise, 2 for misuse.
func runDoctor(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["doctor"], args, stdout, stderr)
	var o doctorOpts
	fs := newFlags("doctor")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return inv.usageErr("unexpected arguments %q; doctor takes only flags", pos)
	}
	checks := doctorChecks(context.Background(), harness.DoctorEnv{LookPath: exec.LookPath, Run: runCLIVersion})
	rep := doctorReport{OK: true, Checks: checks}
	for _, c := range checks {
		if c.Status == harness.CheckProblem {
			rep.OK = false
		}
	}
	if o.json {
		if code := inv.jsonOut(rep); code != exitOK {
			return code
		}
	} else {
		writeDoctor(stdout, rep)
	}
	if !rep.OK {
		return exitNone // 1: problems found, as the help says
	}
	return exitOK
}

// doctorChecks is every row: notesoup's binaries, the notes home, the
// plugin directories, then each harness's own.
func doctorChecks(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	root, err := installdir.Root()
	var out []harness.Check
	if err != nil {
		out = append(out, harness.Check{Subject: "notesoup", Item: "install folder", Status: harness.CheckProblem, Detail: err.Error(), Fix: "export NOTESOUP_HOME=<a folder>"})
	} else {
		env.BinDir = installdir.BinDir(root)
		out = append(out, binaryChecks(ctx, env)...)
	}
	out = append(out, notesHomeCheck())
	out = append(out, doctorPluginChecks()...)
	out = append(out, vaultDoctorCheck(ctx)) // vault_doctor.go
	for _, name := range builtins.WithDoctor() {
		out = append(out, builtins.Doctor(ctx, name, env, func(pkg string) string {
			if root == "" {
				return ""
			}
			return installdir.PackageDir(root, pkg)
		})...)
	}
	return out
}

// runCLIVersion runs a CLI's --version with a bound on its time; the
// combined output, since some print it on stderr.
func runCLIVersion(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if len(out) > 4096 {
		out = out[:4096]
	}
	return string(out), err
}

// binaryChecks reports this notesoup and the installed copies the
// harnesses run.
func binaryChecks(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	self, _ := os.Executable()
	out := []harness.Check{{Subject: "notesoup", Item: "this binary", Status: harness.CheckOK, Detail: fmt.Sprintf("%s %s", self, version.Version)}}
	installed := filepath.Join(env.BinDir, installdir.Light)
	c := harness.Check{Subject: "notesoup", Item: "installed binary"}
	fi, err := os.Stat(installed)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail, c.Fix = harness.CheckWarn, installed+" is not there: no harness was installed with notesoup install yet", "notesoup install <"+strings.Join(builtins.WithInstaller(), "|")+">"
		return append(out, c)
	case err != nil || fi.Mode()&0o111 == 0:
		c.Status, c.Detail, c.Fix = harness.CheckProblem, installed+" is not an executable file", "notesoup install <harness> (again, for each installed harness)"
		return append(out, c)
	}
	got := ""
	if env.Run != nil {
		s, _ := env.Run(ctx, installed, "--version")
		if f := strings.Fields(s); len(f) > 0 {
			got = f[len(f)-1]
		}
	}
	switch {
	case got == version.Version:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("%s %s", installed, got)
	case got == "":
		c.Status, c.Detail = harness.CheckWarn, installed+" did not report its version"
		c.Fix = "notesoup install <harness> (with this notesoup, to replace it)"
	default:
		c.Status, c.Detail = harness.CheckWarn, fmt.Sprintf("%s is %s, this notesoup is %s", installed, got, version.Version)
		c.Fix = "notesoup install <harness> (with the notesoup you mean the harnesses to run)"
	}
	out = append(out, c)
	host := filepath.Join(env.BinDir, installdir.Host)
	if _, err := os.Stat(host); err == nil {
		out = append(out, harness.Check{Subject: "notesoup", Item: "installed host", Status: harness.CheckOK, Detail: host + " (the MCP server and plugin host the light notesoup hands work to)"})
	}
	return out
}

// notesHomeCheck reports the notes home: whether it is a folder notesoup
// can write, and readable by its owner only (notes hold what a model
// learned about a person's work).
func notesHomeCheck() harness.Check {
	c := harness.Check{Subject: "notes", Item: "home"}
	home, err := notes.DefaultHome()
	if err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, err.Error(), "export "+notes.HomeEnv+"=<a folder>"
		return c
	}
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = harness.CheckOK, home+" does not exist yet: the first note creates it"
	case err != nil:
		c.Status, c.Detail, c.Fix = harness.CheckProblem, err.Error(), "fix the permissions of "+home
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = harness.CheckProblem, home+" is not a folder", "move it away, or point "+notes.HomeEnv+" at a folder"
	case fi.Mode().Perm()&0o200 == 0:
		c.Status, c.Detail, c.Fix = harness.CheckProblem, fmt.Sprintf("%s is not writable (mode %v): notes cannot be written", home, fi.Mode().Perm()), "chmod u+rwx "+home
	case fi.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail, c.Fix = harness.CheckWarn, fmt.Sprintf("%s is readable by others (mode %v)", home, fi.Mode().Perm()), "chmod 700 "+home
	default:
		c.Status, c.Detail = harness.CheckOK, fmt.Sprintf("%s (mode %v)", home, fi.Mode().Perm())
	}
	return c
}

// doctorPluginChecks reports the external plugin directories: each plugin
// found, and each file named like one that cannot be (with its fix).
func doctorPluginChecks() []harness.Check {
	dirs := plugindir.DefaultDirs()
	found, ignored := plugindir.Scan(dirs)
	var out []harness.Check
	for _, e := range found {
		out = append(out, harness.Check{Subject: "plugins", Item: e.Name, Status: harness.CheckOK, Detail: e.Path + " (external plugin; notesoup plugins starts it and shows its versions)"})
	}
	for _, ig := range ignored {
		out = append(out, harness.Check{Subject: "plugins", Item: doctorDash(ig.Name), Status: harness.CheckProblem, Detail: ig.Path + " is ignored", Fix: ig.Reason})
	}
	if len(out) == 0 {
		out = append(out, harness.Check{Subject: "plugins", Item: "directory", Status: harness.CheckOK, Detail: "no external plugins in " + strings.Join(dirs, ", ")})
	}
	return out
}

func doctorDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeDoctor prints the rows as aligned columns, each problem's fix under
// it, and a last line that sums up.
func writeDoctor(w io.Writer, rep doctorReport) {
	subj, item := len("SUBJECT"), len("CHECK")
	for _, c := range rep.Checks {
		subj, item = max(subj, len(c.Subject)), max(item, len(c.Item))
	}
	fmt.Fprintf(w, "%-7s  %-*s  %-*s  %s\n", "STATUS", subj, "SUBJECT", item, "CHECK", "DETAIL")
	problems := 0
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%-7s  %-*s  %-*s  %s\n", c.Status, subj, c.Subject, item, c.Item, c.Detail)
		if c.Fix != "" && c.Status != harness.CheckOK {
			fmt.Fprintf(w, "%-7s  %-*s  %-*s  fix: %s\n", "", subj, "", item, "", c.Fix)
		}
		if c.Status == harness.CheckProblem {
			problems++
		}
	}
	if problems == 0 {
		fmt.Fprintln(w, "\nno problems found")
		return
	}
	fmt.Fprintf(w, "\n%d problem(s) found; each has its fix under it\n", problems)
}
