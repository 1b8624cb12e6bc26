package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/host/plugindir"
	"github.com/notesoup/notesoup/internal/installdir"
	"github.com/spf13/pflag"
)

// install and uninstall are commands of the table with one subcommand per
// built-in harness that has an installer, so each harness's help and
// completion show exactly its flags (its configuration folder's flag,
// --package where it installs a package of its own). A name that is not a
// built-in reaches the parent's run, which hands it to an external
// plugin's own installer (install_external.go) or refuses it.
func init() {
	registerCommand(installerCommand("install",
		"wire notesoup into a harness's own configuration",
		"install HARNESS [flags]"))
	registerCommand(installerCommand("uninstall",
		"take out of a harness's configuration what install wrote, keeping the notes",
		"uninstall HARNESS [flags]"))
}

// installerCommand is install or uninstall: a subcommand per built-in
// installer, and run for the names outside the table.
func installerCommand(verb, summary, usage string) *command {
	c := &command{
		name:    verb,
		summary: summary,
		usage:   usage,
		about:   installerAbout(verb),
		run: func(args []string, stdout, stderr io.Writer) int {
			return runInstaller(verb, args, stdout, stderr)
		},
	}
	for _, name := range builtins.WithInstaller() {
		inst, err := builtins.Installer(name)
		if err != nil {
			panic("notesoup: " + err.Error()) // WithInstaller named it
		}
		c.subs = append(c.subs, &command{
			name:    name,
			summary: installerSummary(verb, name),
			flags:   func(fs *pflag.FlagSet) { new(installOpts).define(fs, verb, inst) },
			about:   installerSubAbout(verb, inst),
			run: func(args []string, stdout, stderr io.Writer) int {
				return runBuiltinInstaller(verb, name, inst, args, stdout, stderr)
			},
		})
	}
	return c
}

func installerSummary(verb, name string) string {
	if verb == "install" {
		return "wire notesoup into " + name + "'s configuration"
	}
	return "take notesoup out of " + name + "'s configuration"
}

// installerAbout is the detail of install's and uninstall's help.
func installerAbout(verb string) string {
	what := `Each harness is wired with its own mechanism (its marketplace, its package
manager, its configuration files), pointing at notesoup's install folder
($NOTESOUP_HOME, else $XDG_DATA_HOME/notesoup or ~/.local/share/notesoup),
never at a build folder. Running it again changes nothing; --dry-run shows
what would change and writes nothing.
`
	if verb == "uninstall" {
		what = `Takes out what notesoup install wrote and nothing else: a person's own
entries, comments and links are kept, and a file install created is
removed. The notes are never touched. --dry-run shows what would change.
`
	}
	return what + `
An external harness plugin (notesoup-harness-NAME in a plugin folder) that
has an installer of its own is run for a NAME not listed above:
  notesoup ` + verb + ` NAME [its flags]

Exit status: 0 done (or nothing to do), 2 a usage error or a failure (under
--json an error is {"error":{"code":…,"message":…}} on stdout); an external
plugin's installer answers with its own.
`
}

// installerSubAbout is the detail of one harness's install or uninstall.
func installerSubAbout(verb string, inst *harness.Installer) string {
	s := ""
	if verb == "install" {
		s = "Without --binary, this notesoup (and notesoup-host beside it) is first copied\ninto notesoup's install folder, and the harness runs that copy.\n\n"
	}
	if verb == "install" && inst.Package != "" {
		s += "The " + inst.Package + " is kept in notesoup's install folder with the installed\nbinaries in it, and the harness is pointed there.\n\n"
	}
	return s + "Exit status: 0 done (or nothing to do), 2 a usage error or a failure.\n"
}

// installOpts are the flags of one harness's install or uninstall.
type installOpts struct {
	home   string
	dryRun bool
	json   bool
	binary string
	pkg    string
}

// define defines the flags verb takes for inst: its configuration folder,
// --dry-run and --json; install adds --binary, and --package where the
// harness installs a package of its own.
func (o *installOpts) define(fs *pflag.FlagSet, verb string, inst *harness.Installer) {
	fs.StringVar(&o.home, inst.HomeFlag, "", "use the configuration folder `DIR` instead of the harness's own")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print what would change, write nothing")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	if verb != "install" {
		return
	}
	fs.StringVar(&o.binary, "binary", "", "the notesoup `FILE` the harness should run, as it is (default: this notesoup, copied first into notesoup's install folder)")
	if inst.Package != "" {
		fs.StringVar(&o.pkg, "package", "", "the "+inst.Package+" `DIR` to install (default: share/notesoup/"+inst.Package+" beside this notesoup's bin folder, as in a release archive)")
	}
}

// runInstaller answers install or uninstall with a name that is not one of
// the built-in subcommands: an external plugin's installer when one of
// that name is installed, else a usage error naming the harnesses.
func runInstaller(verb string, args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands[verb], args, stdout, stderr)
	names := builtins.WithInstaller()
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return inv.usageErr("name the harness first: notesoup %s HARNESS [flags] (harnesses: %s, or an external plugin's)", verb, strings.Join(names, ", "))
	}
	name := args[0]
	if code, ok := runExternalInstaller(verb, name, args[1:], stdout, stderr); ok {
		return code // an external plugin's own installer (install_external.go)
	}
	for _, p := range plugindir.Discover(plugindir.DefaultDirs()) {
		names = append(names, p.Name)
	}
	_, err := builtins.Installer(name)
	msg := strings.Replace(err.Error(), "has no installer", "has no installer"+didYouMean(name, names), 1)
	return inv.usageErr("%s", msg)
}

// runBuiltinInstaller runs the named built-in harness's installer
// (harness/builtins) as install or uninstall.
func runBuiltinInstaller(verb, name string, inst *harness.Installer, args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands[verb].sub(name), args, stdout, stderr)
	var o installOpts
	fs := newFlags(inv.cmd.path())
	o.define(fs, verb, inst)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return inv.usageErr("unexpected arguments %q; everything after the harness is a flag", pos)
	}
	req := harness.InstallRequest{Home: o.home, DryRun: o.dryRun}
	var err error
	if req.Home == "" {
		if req.Home, err = inst.Home(); err != nil {
			return inv.failf("%v (pass --%s)", err, inst.HomeFlag)
		}
	}
	root, err := installdir.Root()
	if err != nil {
		return inv.fail(err)
	}
	if inst.Package != "" {
		req.Stage = installdir.PackageDir(root, inst.Package)
	}
	var pre []string // what placing the binaries did, said first
	run := inst.Uninstall
	if verb == "install" {
		run = inst.Install
		if req.Binary, pre, err = placeBinaries(o.binary, installdir.BinDir(root), o.dryRun); err != nil {
			writeLines(stderr, pre)
			return inv.fail(err)
		}
		if inst.Package != "" {
			req.Package = findPackage(o.pkg, inst.Package)
		}
	}
	rep, err := run(req)
	rep.Messages = append(pre, rep.Messages...)
	if err != nil {
		// What was done before the failure goes to stderr, so that under
		// --json stdout stays the one error object.
		writeLines(stderr, rep.Messages)
		return inv.fail(err)
	}
	if o.json {
		return inv.jsonOut(rep)
	}
	writeLines(stdout, rep.Messages)
	for _, p := range rep.Preview {
		if p.Removed {
			fmt.Fprintf(stdout, "\n--- %s (would be removed)\n", p.Path)
			continue
		}
		fmt.Fprintf(stdout, "\n--- %s (would be)\n%s", p.Path, p.Content)
	}
	return exitOK
}

// writeLines prints each line of ls on w.
func writeLines(w io.Writer, ls []string) {
	for _, l := range ls {
		fmt.Fprintln(w, l)
	}
}

// placeBinaries returns the notesoup binary the harness should run. Given
// one (--binary), it is used as it is. Otherwise this notesoup (and the
// notesoup-host beside it) is copied into binDir first, so that what the
// harness runs survives a build directory or an unpacked archive being
// deleted or rebuilt; it returns what the copy did.
func placeBinaries(given, binDir string, dryRun bool) (string, []string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", nil, fmt.Errorf("--binary: %v", err)
		}
		return abs, nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("finding this executable: %v (pass --binary)", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	changes, err := installdir.InstallBinaries(exe, binDir, dryRun)
	var msgs []string
	for _, c := range changes {
		msgs = append(msgs, c.Message)
	}
	if err != nil {
		return "", msgs, err
	}
	return filepath.Join(binDir, installdir.Light), msgs, nil
}

// findPackage is the package folder to install: the one given, else
// share/notesoup/<name> beside this notesoup's bin folder (the release
// archive's layout), else "" (the installer reuses the staged copy, or
// says what to pass).
func findPackage(given, name string) string {
	if given != "" {
		if abs, err := filepath.Abs(given); err == nil {
			return abs
		}
		return given
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	p := filepath.Join(filepath.Dir(filepath.Dir(exe)), "share", "notesoup", name)
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return p
	}
	return ""
}
