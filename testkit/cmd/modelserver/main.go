// Command modelserver runs the scripted fake model API of
// testkit/modelserver standalone, for recording real agent sessions
// (e2e/record.sh) or poking at an agent by hand.
//
//	modelserver -script e2e/scenarios/claude-tools.json -var WORK=/tmp/w \
//	    -log /tmp/requests.jsonl -url-file /tmp/url
//
// It binds 127.0.0.1 only, prints its base URL (http://127.0.0.1:PORT) as
// the one line on stdout, and serves until SIGINT/SIGTERM. On exit it
// reports unscripted requests on stderr and exits 3 if there were any, so a
// recording that went off script fails loudly.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/notesoup/notesoup/shared/atomicfile"
	"github.com/notesoup/notesoup/testkit/modelserver"
)

// exitProblems is the exit status when the script did not cover every
// request: distinct from 1 (could not start) so callers can tell them apart.
const exitProblems = 3

type varsFlag map[string]string

func (v varsFlag) String() string { return fmt.Sprint(map[string]string(v)) }

func (v varsFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=value, got %q", s)
	}
	v[name] = value
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil))
}

// run is main without the process globals; stop, when non-nil, replaces
// the signal wait (tests close it).
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("modelserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	script := fs.String("script", "", "JSON script to play (required)")
	port := fs.Int("port", 0, "port on 127.0.0.1 (0 = pick a free one)")
	logPath := fs.String("log", "", "write every request as one JSON line to this file")
	urlFile := fs.String("url-file", "", "also write the base URL to this file (atomically), for scripts")
	verbose := fs.Bool("v", false, "log each request on stderr")
	vars := varsFlag{}
	fs.Var(vars, "var", "NAME=value substituted for ${NAME} in the script (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *script == "" {
		fmt.Fprintln(stderr, "modelserver: -script is required (a JSON script, see e2e/scenarios/)")
		return 2
	}
	level := hclog.Info
	if *verbose {
		level = hclog.Debug
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "modelserver", Output: stderr, Level: level})

	sc, err := modelserver.LoadScript(*script, vars)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	srv, err := modelserver.Start(modelserver.Config{Script: sc, Port: *port, LogPath: *logPath, Logger: log})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *urlFile != "" {
		if err := writeAtomic(*urlFile, srv.URL()+"\n"); err != nil {
			fmt.Fprintln(stderr, "modelserver:", err)
			srv.Close()
			return 1
		}
	}
	fmt.Fprintln(stdout, srv.URL())

	if stop == nil {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		ch := make(chan struct{})
		go func() { <-sig; close(ch) }()
		stop = ch
	}
	<-stop
	if err := srv.Close(); err != nil {
		log.Warn("closing", "error", err)
	}
	problems := srv.Problems()
	log.Info("stopped", "requests", len(srv.Requests()), "turns_used", srv.TurnsUsed(), "turns", len(sc.Turns), "problems", len(problems))
	for _, p := range problems {
		fmt.Fprintln(stderr, "modelserver: unscripted:", p)
	}
	if len(problems) > 0 {
		return exitProblems
	}
	return 0
}

// writeAtomic writes data to path through shared/atomicfile, so a script
// polling for the file never reads it half-written.
func writeAtomic(path, data string) error {
	if err := atomicfile.Write(path, []byte(data), atomicfile.Options{}); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
