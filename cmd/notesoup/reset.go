package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(&command{
		name:    "limits",
		summary: "print a harness's native compaction point and the budget's warning and hard points, with their sources",
		usage:   "limits --harness NAME [flags]",
		flags:   func(fs *pflag.FlagSet) { new(limitsOpts).define(fs) },
		run:     runLimits,
	})
}

// limitsOpts are limits' flags.
type limitsOpts struct {
	harness, model, settings, usage, capText, cwd, userHome, profile string
	window                                                           int64
	overrides                                                        histMultiFlag
	json                                                             bool
}

func (o *limitsOpts) define(fs *pflag.FlagSet) {
	fs.StringVar(&o.harness, "harness", "", "the harness `NAME`, e.g. claude, pi or codex (required)")
	fs.SetAnnotation("harness", valuesAnnotation, builtins.Names())
	fs.StringVar(&o.model, "model", "", "the model `ID` as the harness names it")
	fs.Int64Var(&o.window, "window", 0, "the model's context window in `TOKENS`, if known")
	fs.StringVar(&o.settings, "settings", "", "merged settings JSON `FILE` (Claude: $.settings.read(); Pi: overrides its settings files); its notesoup object sets the margins")
	fs.StringVar(&o.usage, "usage", "", "usage report JSON `FILE` (Claude: $.session.usage({breakdown:\"summary\"}); Pi: ctx.getContextUsage())")
	fs.StringVar(&o.capText, "cap", "", "runtime cap in `TOKENS`: whole tokens, or 100k, 1.5m")
	fs.StringVar(&o.cwd, "cwd", "", "the project `DIR` (default: the current directory)")
	fs.StringVar(&o.userHome, "user-home", "", "the user's home `DIR`, where the harnesses keep their settings (default $HOME)")
	fs.VarP(&o.overrides, "config", "c", "a Codex `KEY=VALUE` override, as codex -c takes it (repeatable)")
	fs.StringVar(&o.profile, "profile", "", "the Codex profile `NAME`")
	homeFlag(fs)
	fs.BoolVar(&o.json, "json", false, "print JSON")
}

// maxLimitsFileBytes bounds the --settings and --usage files: each is a
// few kilobytes of JSON, and the helper protocol takes no request larger
// than helper.MaxRequestBytes (8 MiB) either, so a wrong path (a log, a
// device) is refused before it fills memory.
const maxLimitsFileBytes = 8 << 20

// runLimits answers as every front end does, through service.Limits: the
// harness (an external plugin's, when one overrides it) resolves the native
// point, and the budget policy applies the margins and the cap.
func runLimits(args []string, stdout, stderr io.Writer) int {
	inv := newInvocation(commands["limits"], args, stdout, stderr)
	var o limitsOpts
	fs := newFlags("limits")
	o.define(fs)
	pos, code, ok := inv.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return inv.usageErr("unexpected argument %q; everything is a flag", pos[0])
	}
	svc, done, err := newService()
	if err != nil {
		return inv.fail(err)
	}
	defer done()
	if o.harness == "" {
		return inv.usageErr("--harness is required, one of %s", strings.Join(svc.Harnesses().Names(), ", "))
	}
	req := service.LimitsRequest{CapText: o.capText, ThresholdInput: reset.ThresholdInput{Model: o.model, ModelWindow: o.window, Cwd: o.cwd, Home: o.userHome, Env: environ()}}
	if req.Cwd == "" {
		req.Cwd, _ = os.Getwd()
	}
	for _, f := range []struct {
		path string
		dst  *[]byte
		name string
	}{{o.settings, &req.Settings, "--settings"}, {o.usage, &req.Usage, "--usage"}} {
		if f.path == "" {
			continue
		}
		data, err := readInputFile(f.path, maxLimitsFileBytes)
		if err != nil {
			return inv.usageErr("%s: %v", f.name, err)
		}
		*f.dst = data
	}
	for _, ov := range o.overrides {
		req.Overrides = append(req.Overrides, "-c", ov)
	}
	if o.profile != "" {
		req.Overrides = append(req.Overrides, "--profile", o.profile)
	}
	res, err := svc.Limits(context.Background(), o.harness, req)
	if err != nil {
		if _, badCap := errors.AsType[*service.CapError](err); badCap {
			return inv.usageErr("%v", err)
		}
		return inv.fail(err)
	}
	if o.json {
		return inv.jsonOut(struct {
			Harness string            `json:"harness"`
			Native  reset.NativePoint `json:"native"`
			Limits  reset.Limits      `json:"limits"`
		}{o.harness, res.Native, res.Limits})
	}
	printLimits(stdout, o.harness, res.Native, res.Limits)
	return exitOK
}

// readInputFile reads a file a person named on the command line, at most
// max bytes (see openInputFile).
func readInputFile(path string, max int64) ([]byte, error) {
	f, err := openInputFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}

// openInputFile opens a file a person named on the command line: a regular
// file only, not a FIFO or a device that never ends.
func openInputFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func printLimits(w io.Writer, harness string, p reset.NativePoint, l reset.Limits) {
	fmt.Fprintf(w, "harness  %s\n", harness)
	if !p.Resolved {
		fmt.Fprintf(w, "native   unresolved: %s\n", p.Reason)
	} else {
		fmt.Fprintf(w, "native   %d tokens of a %d-token window (%.1f%%)\n", p.Tokens, p.Window, p.Percent())
		fmt.Fprintf(w, "source   %s\n", p.Source)
	}
	if l.Resolved {
		fmt.Fprintf(w, "hard     %d (native − resetMarginTokens %d)\n", l.Hard, l.Margins.ResetMargin)
		fmt.Fprintf(w, "warning  %d (hard − warningRunwayTokens %d)\n", l.Warning, l.Margins.WarningRunway)
	} else if p.Resolved {
		fmt.Fprintf(w, "budget   unresolved: %s\n", l.Reason)
	}
	if l.Cap > 0 {
		fmt.Fprintf(w, "cap      %s (lowered the point: %v)\n", reset.FormatTokens(l.Cap), l.CapApplied)
	}
	fmt.Fprintf(w, "auto     automatic resets %s; warnings %s\n", onOff(l.AutoReset), onOff(l.WarningsEnabled))
	for _, n := range append(append([]string(nil), p.Notes...), l.Margins.Notes...) {
		fmt.Fprintf(w, "note     %s\n", n)
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}
