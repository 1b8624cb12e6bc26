package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/internal/installdir"
)

func init() {
	register("install", "wire notesoup into a harness's own configuration: install <harness> [--dry-run] [--json]", runInstall)
	register("uninstall", "take out of a harness's configuration what install wrote, keeping the notes: uninstall <harness> [--dry-run] [--json]", runUninstall)
}

func runInstall(args []string, stdout, stderr io.Writer) int {
	return runInstaller("install", args, stdout, stderr)
}

func runUninstall(args []string, stdout, stderr io.Writer) int {
	return runInstaller("uninstall", args, stdout, stderr)
}

// runInstaller runs the named harness's installer (harness/builtins) as
// install or uninstall: one flag for the harness's configuration directory,
// the binary to wire in (install), --dry-run and --json.
func runInstaller(verb string, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "Usage: notesoup %s <harness> [flags]  (harnesses: %s; notesoup %s <harness> --help lists the flags)\n",
			verb, strings.Join(builtins.WithInstaller(), ", "), verb)
		return 2
	}
	name := args[0]
	inst, err := builtins.Installer(name)
	if err != nil {
		if code, ok := runExternalInstaller(verb, name, args[1:], stdout, stderr); ok {
			return code // an external plugin's own installer (install_external.go)
		}
		fmt.Fprintf(stderr, "notesoup %s: %v\n", verb, err)
		return 2
	}
	prog := "notesoup " + verb + " " + name
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String(inst.HomeFlag, "", "the harness's configuration directory (default: its own default)")
	dry := fs.Bool("dry-run", false, "print what would change, write nothing")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	bin := new(string)
	if verb == "install" {
		bin = fs.String("binary", "", "the notesoup binary the harness should run, as it is (default: this notesoup, copied first into notesoup's install folder)")
	}
	pkg := new(string)
	if verb == "install" && inst.Package != "" {
		pkg = fs.String("package", "", "the "+inst.Package+" folder to install (default: share/notesoup/"+inst.Package+" beside this notesoup's bin folder, as in a release archive)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %v\n", prog, fs.Args())
		return 2
	}
	req := harness.InstallRequest{Home: *home, DryRun: *dry}
	if req.Home == "" {
		if req.Home, err = inst.Home(); err != nil {
			fmt.Fprintf(stderr, "%s: %v (pass --%s)\n", prog, err, inst.HomeFlag)
			return 1
		}
	}
	root, err := installdir.Root()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	if inst.Package != "" {
		req.Stage = installdir.PackageDir(root, inst.Package)
	}
	var pre []string // what placing the binaries did, said first
	run := inst.Uninstall
	if verb == "install" {
		run = inst.Install
		if req.Binary, pre, err = placeBinaries(*bin, installdir.BinDir(root), *dry); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return 1
		}
		if inst.Package != "" {
			req.Package = findPackage(*pkg, inst.Package)
		}
	}
	rep, err := run(req)
	rep.Messages = append(pre, rep.Messages...)
	if err != nil {
		for _, m := range rep.Messages {
			fmt.Fprintln(stderr, m)
		}
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return 1
		}
		return 0
	}
	for _, m := range rep.Messages {
		fmt.Fprintln(stdout, m)
	}
	for _, p := range rep.Preview {
		if p.Removed {
			fmt.Fprintf(stdout, "\n--- %s (would be removed)\n", p.Path)
			continue
		}
		fmt.Fprintf(stdout, "\n--- %s (would be)\n%s", p.Path, p.Content)
	}
	return 0
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
