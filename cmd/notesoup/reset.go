package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/notesoup/notesoup/harness/claude"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/harness/pi"
	"github.com/notesoup/notesoup/shared/reset"
)

func init() {
	register("limits", "print a harness's native compaction point and the budget's warning and hard points, with their sources", runLimits)
}

// limitsResolvers maps a harness to its Thresholds. The plugin host may
// replace entries to resolve through the harness plugins.
var limitsResolvers = map[string]reset.Resolver{
	"claude": claude.Thresholds,
	"pi":     pi.Thresholds,
	"codex":  codex.Thresholds,
}

func runLimits(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	fs.SetOutput(stderr)
	harness := fs.String("harness", "", "claude, pi or codex (required)")
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
	resolve, ok := limitsResolvers[*harness]
	if !ok {
		fmt.Fprintf(stderr, "notesoup limits: --harness %q: want claude, pi or codex\n", *harness)
		return 2
	}
	in := reset.ThresholdInput{Model: *model, ModelWindow: *window, Cwd: *cwd, Home: *home, Env: environ()}
	if in.Cwd == "" {
		in.Cwd, _ = os.Getwd()
	}
	for _, f := range []struct {
		path string
		dst  *[]byte
		name string
	}{{*settings, &in.Settings, "--settings"}, {*usage, &in.Usage, "--usage"}} {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil {
			fmt.Fprintf(stderr, "notesoup limits: %s: %v\n", f.name, err)
			return 2
		}
		*f.dst = data
	}
	for _, o := range overrides {
		in.Overrides = append(in.Overrides, "-c", o)
	}
	if *profile != "" {
		in.Overrides = append(in.Overrides, "--profile", *profile)
	}
	if *capArg != "" {
		n, err := reset.ParseCap(*capArg)
		if err != nil {
			fmt.Fprintf(stderr, "notesoup limits: --cap: %v\n", err)
			return 2
		}
		in.Cap = n
	}
	point := resolve(in)
	marginSettings := in.Settings
	switch *harness {
	case "pi":
		marginSettings = pi.SettingsJSON(in)
	case "claude":
		marginSettings = claude.SettingsJSON(in)
	}
	margins := reset.MarginsFromSettings(marginSettings)
	limits, err := reset.ComputeLimits(point, margins, in.Cap)
	if err != nil {
		fmt.Fprintf(stderr, "notesoup limits: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Harness string            `json:"harness"`
			Native  reset.NativePoint `json:"native"`
			Limits  reset.Limits      `json:"limits"`
		}{*harness, point, limits})
		return 0
	}
	printLimits(stdout, *harness, point, limits)
	return 0
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
