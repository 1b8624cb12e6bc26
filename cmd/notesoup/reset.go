package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
)

func init() {
	register("limits", "print a harness's native compaction point and the budget's warning and hard points, with their sources", runLimits)
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
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(stderr)
	harness := fs.String("harness", "", "the harness, e.g. claude, pi or codex (required)")
	model := fs.String("model", "", "model id as the harness names it")
	window := fs.Int64("window", 0, "the model's context window in tokens, if known")
	settings := fs.String("settings", "", "merged settings JSON file (Claude: $.settings.read(); Pi: overrides its settings files); its notesoup object sets the margins")
	usage := fs.String("usage", "", "usage report JSON file (Claude: $.session.usage({breakdown:\"summary\"}); Pi: ctx.getContextUsage())")
	capArg := fs.String("cap", "", "runtime cap: whole tokens, or 100k, 1.5m")
	cwd := fs.String("cwd", "", "project directory (default: the current directory)")
	home := fs.String("home", "", "home directory (default: $HOME)")
	var overrides histMultiFlag
	fs.Var(&overrides, "c", "Codex -c key=value override (repeatable)")
	profile := fs.String("profile", "", "Codex profile")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "notesoup limits: unexpected argument %q; everything is a flag (see --help)\n", fs.Arg(0))
		return 2
	}
	svc, done, err := newService()
	if err != nil {
		fmt.Fprintln(stderr, "notesoup limits:", err)
		return 1
	}
	defer done()
	if *harness == "" {
		fmt.Fprintf(stderr, "notesoup limits: --harness is required, one of %s\n", strings.Join(svc.Harnesses().Names(), ", "))
		return 2
	}
	req := service.LimitsRequest{CapText: *capArg, ThresholdInput: reset.ThresholdInput{Model: *model, ModelWindow: *window, Cwd: *cwd, Home: *home, Env: environ()}}
	if req.Cwd == "" {
		req.Cwd, _ = os.Getwd()
	}
	for _, f := range []struct {
		path string
		dst  *[]byte
		name string
	}{{*settings, &req.Settings, "--settings"}, {*usage, &req.Usage, "--usage"}} {
		if f.path == "" {
			continue
		}
		data, err := readInputFile(f.path, maxLimitsFileBytes)
		if err != nil {
			fmt.Fprintf(stderr, "notesoup limits: %s: %v\n", f.name, err)
			return 2
		}
		*f.dst = data
	}
	for _, o := range overrides {
		req.Overrides = append(req.Overrides, "-c", o)
	}
	if *profile != "" {
		req.Overrides = append(req.Overrides, "--profile", *profile)
	}
	res, err := svc.Limits(context.Background(), *harness, req)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup limits: %v\n", err)
		if _, badCap := errors.AsType[*service.CapError](err); badCap {
			return 2
		}
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Harness string            `json:"harness"`
			Native  reset.NativePoint `json:"native"`
			Limits  reset.Limits      `json:"limits"`
		}{*harness, res.Native, res.Limits}); err != nil {
			fmt.Fprintln(stderr, "notesoup limits:", err)
			return 1
		}
		return 0
	}
	printLimits(stdout, *harness, res.Native, res.Limits)
	return 0
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
