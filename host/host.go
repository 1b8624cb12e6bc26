// Package host loads harness plugins and calls them. Each harness (Claude
// Code, Pi, Codex, or an external one) runs as its own go-plugin subprocess:
// started lazily on first use, fingerprinted and version-negotiated, reused
// for the life of the host, and killed when the host closes or dies. A
// plugin that crashes, hangs or answers garbage fails with an error naming
// it, and cross-harness calls still answer from the others.
package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-multierror"
	"github.com/hashicorp/go-plugin"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/contract/pluginrpc"
	"github.com/notesoup/notesoup/host/plugindir"
)

// Defaults for the host's deadlines. A plugin start is a fork, exec and
// handshake over a local socket (milliseconds); the generous start timeout
// absorbs a loaded CI machine without letting a wedged plugin block forever.
const (
	DefaultStartTimeout  = 10 * time.Second
	DefaultCallTimeout   = 10 * time.Second  // unary calls: Describe, Thresholds, BootBinding
	DefaultStreamTimeout = 120 * time.Second // whole streams: ListSessions, Decode over large files
)

// Bounds on stopping a plugin. go-plugin's own Kill asks the plugin to exit
// over gRPC and waits up to 2 s for it, so stopGrace leaves it that long
// before the host kills the plugin's whole process group. After that kill,
// stopWait bounds the wait for go-plugin to notice: its Kill returns only
// once the plugin's stdout and stderr reach EOF, which a process that left
// the group (setsid) and still holds them can postpone forever.
const (
	stopGrace   = 3 * time.Second
	stopWait    = 5 * time.Second
	pipeTimeout = 2 * time.Second // exec.Cmd.WaitDelay: Wait never blocks on the pipes longer
)

// PluginModeArg is the argument that starts the notesoup binary as a
// built-in harness plugin: `notesoup __harness-plugin <name>`.
const PluginModeArg = "__harness-plugin"

// Host starts and calls harness plugins. The zero value is not usable; call New.
type Host struct {
	logger        hclog.Logger
	dirs          []string
	builtins      []string
	self          string
	startTimeout  time.Duration
	callTimeout   time.Duration
	streamTimeout time.Duration

	stopGrace time.Duration // see stopGrace; a field so tests can shorten it
	stopWait  time.Duration // see stopWait

	mu      sync.Mutex
	running map[string]*running
	closed  bool
}

type running struct {
	cand   candidate
	client *plugin.Client
	pgid   int // the plugin's process group (its pid); 0 if it never started
	impl   contract.Harness
	desc   contract.Description
}

// Option configures a Host.
type Option func(*Host)

// WithLogger sets the logger; plugin stderr is forwarded into it.
func WithLogger(l hclog.Logger) Option { return func(h *Host) { h.logger = l } }

// WithPluginDirs sets the directories searched for external plugins, in
// precedence order (default plugindir.DefaultDirs()).
func WithPluginDirs(dirs ...string) Option { return func(h *Host) { h.dirs = dirs } }

// WithBuiltins names the harnesses the notesoup binary serves itself.
func WithBuiltins(names ...string) Option { return func(h *Host) { h.builtins = names } }

// WithSelf sets the executable started (with PluginModeArg) for built-in
// harnesses; default os.Executable().
func WithSelf(path string) Option { return func(h *Host) { h.self = path } }

// WithTimeouts sets the start, unary-call and stream deadlines.
func WithTimeouts(start, call, stream time.Duration) Option {
	return func(h *Host) { h.startTimeout, h.callTimeout, h.streamTimeout = start, call, stream }
}

// New returns a host. It starts nothing until a harness is used.
func New(opts ...Option) *Host {
	h := &Host{
		startTimeout:  DefaultStartTimeout,
		callTimeout:   DefaultCallTimeout,
		streamTimeout: DefaultStreamTimeout,
		stopGrace:     stopGrace,
		stopWait:      stopWait,
		running:       map[string]*running{},
	}
	h.dirs = plugindir.DefaultDirs()
	for _, o := range opts {
		o(h)
	}
	if h.logger == nil {
		h.logger = hclog.NewNullLogger()
	}
	if h.self == "" {
		if exe, err := os.Executable(); err == nil {
			h.self = exe
		}
	}
	return h
}

// Names returns every harness name the host can start: the built-ins in
// their given order, then the external plugins that add a harness, sorted.
// An external plugin with a built-in's name overrides it in place.
func (h *Host) Names() []string {
	var names []string
	for _, c := range h.candidates() {
		names = append(names, c.name)
	}
	return names
}

func (h *Host) candidates() []candidate {
	out := make([]candidate, 0, len(h.builtins))
	at := map[string]int{}
	for _, b := range h.builtins {
		at[b] = len(out)
		out = append(out, candidate{name: b, source: SourceBuiltin})
	}
	added := len(out)
	for _, c := range discoverExternal(h.dirs) {
		if i, ok := at[c.name]; ok {
			out[i] = c
			continue
		}
		at[c.name] = len(out)
		out = append(out, c)
	}
	sort.Slice(out[added:], func(i, j int) bool { return out[added+i].name < out[added+j].name })
	return out
}

func (h *Host) candidate(name string) (candidate, bool) {
	for _, c := range h.candidates() {
		if c.name == name {
			return c, true
		}
	}
	return candidate{}, false
}

// Harness returns the named harness, starting its plugin if it is not
// running. Every call through the returned value carries the host's
// deadlines and names the plugin in its errors.
func (h *Host) Harness(ctx context.Context, name string) (contract.Harness, error) {
	r, err := h.get(ctx, name)
	if err != nil {
		return nil, err
	}
	return &guarded{h: h, r: r}, nil
}

// Describe returns the fingerprint taken when the harness's plugin started.
func (h *Host) Describe(ctx context.Context, name string) (contract.Description, string, error) {
	r, err := h.get(ctx, name)
	if err != nil {
		return contract.Description{}, "", err
	}
	return r.desc, r.cand.source, nil
}

func (h *Host) get(ctx context.Context, name string) (*running, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errors.New("notesoup host is closed")
	}
	if r, ok := h.running[name]; ok && !r.client.Exited() {
		h.mu.Unlock()
		return r, nil
	}
	h.mu.Unlock()

	cand, ok := h.candidate(name)
	if !ok {
		return nil, fmt.Errorf("harness %q: %w (known: %v; external plugins are executables named %s<name> in %v)",
			name, ErrUnknownHarness, h.Names(), plugindir.Prefix, h.dirs)
	}
	r, err := h.start(ctx, cand)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.stop(r, true)
		return nil, errors.New("notesoup host is closed")
	}
	if old, ok := h.running[name]; ok && !old.client.Exited() {
		// Another caller started it first; keep theirs.
		h.mu.Unlock()
		h.stop(r, true)
		return old, nil
	}
	h.running[name] = r
	h.mu.Unlock()
	return r, nil
}

// start launches, handshakes and fingerprints one plugin.
func (h *Host) start(ctx context.Context, cand candidate) (*running, error) {
	fail := func(op string, err error) error {
		return &PluginError{Name: cand.name, Source: cand.source, Op: op, Err: err}
	}
	var cmd *exec.Cmd
	if cand.source == SourceBuiltin {
		if h.self == "" {
			return nil, fail("start", errors.New("cannot locate the notesoup executable to serve built-in harnesses"))
		}
		cmd = exec.Command(h.self, PluginModeArg, cand.name)
	} else {
		cmd = exec.Command(cand.source)
	}
	// Its own process group, so its children die with it; and no plugin
	// outlives its host: see pluginProcAttr, per platform.
	cmd.SysProcAttr = pluginProcAttr()
	// go-plugin reads the plugin's stdout and stderr until EOF before it
	// calls Wait, so the bound that matters is stop's; this one keeps Wait
	// itself from ever blocking on a pipe a leftover child holds.
	cmd.WaitDelay = pipeTimeout

	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginrpc.Handshake,
		VersionedPlugins: pluginrpc.PluginSets(nil),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           h.logger.Named(cand.name),
		StartTimeout:     h.startTimeout,
		Managed:          false,
	})
	rpc, err := client.Client()
	// Client returns (with or without an error) after Start ran in this
	// goroutine, so cmd.Process is settled here.
	r := &running{cand: cand, client: client}
	if cmd.Process != nil {
		r.pgid = cmd.Process.Pid
	}
	if err != nil {
		h.stop(r, false)
		return nil, fail("start", explainStart(err))
	}
	raw, err := rpc.Dispense(pluginrpc.PluginName)
	if err != nil {
		h.stop(r, false)
		return nil, fail("start", err)
	}
	impl, ok := raw.(contract.Harness)
	if !ok {
		h.stop(r, false)
		return nil, fail("start", fmt.Errorf("dispensed %T, not a harness", raw))
	}
	r.impl = impl
	dctx, cancel := context.WithTimeout(ctx, h.callTimeout)
	defer cancel()
	desc, err := impl.Describe(dctx)
	if err != nil {
		h.stop(r, false)
		return nil, fail("describe", err)
	}
	if err := checkDescription(cand.name, desc, client.NegotiatedVersion()); err != nil {
		h.stop(r, false)
		return nil, fail("describe", err)
	}
	r.desc = desc
	h.logger.Debug("harness plugin started", "name", cand.name, "source", cand.source, "version", desc.PluginVersion)
	return r, nil
}

// explainStart turns go-plugin's version-mismatch text into one that names
// both sides' contract versions.
func explainStart(err error) error {
	msg := err.Error()
	if strings.Contains(strings.ToLower(msg), "incompatible api version") {
		return fmt.Errorf("speaks no contract version this host speaks (host speaks version %d): %v", contract.Version, err)
	}
	return err
}

// checkDescription refuses a fingerprint that contradicts how the plugin was
// found or negotiated: answering garbage is a failure, not a harness.
func checkDescription(name string, d contract.Description, negotiated int) error {
	if d.Name != name {
		return fmt.Errorf("plugin calls itself %q but was loaded as %q: rename the executable to %s%s or fix its Describe", d.Name, name, plugindir.Prefix, d.Name)
	}
	if !slices.Contains(d.ContractVersions, negotiated) {
		return fmt.Errorf("negotiated contract version %d but the plugin describes versions %v", negotiated, d.ContractVersions)
	}
	return nil
}

// forget kills a plugin that failed so the next use starts a fresh one.
func (h *Host) forget(r *running) {
	h.mu.Lock()
	if cur, ok := h.running[r.cand.name]; ok && cur == r {
		delete(h.running, r.cand.name)
	}
	h.mu.Unlock()
	h.stop(r, false)
}

// stop ends one plugin and every process in its group, and returns within
// about stopGrace+stopWait whatever the plugin or its children do. A
// graceful stop first lets go-plugin ask the plugin to exit (a healthy one
// does at once); a failed plugin gets no such chance. The group is killed
// either way, so a child the plugin left behind is not orphaned.
func (h *Host) stop(r *running, graceful bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.client.Kill()
	}()
	if graceful {
		select {
		case <-done:
		case <-time.After(h.stopGrace):
		}
	}
	killGroup(r.pgid)
	select {
	case <-done:
	case <-time.After(h.stopWait):
		// go-plugin's Kill stays blocked (one goroutine) until the holder
		// closes the pipes; the host does not wait for it.
		h.logger.Warn("harness plugin killed, but a process outside its process group still holds its output open; not waiting for it",
			"name", r.cand.name, "source", r.cand.source, "pgid", r.pgid)
	}
}

// Close kills every plugin the host started, side by side, each within
// stop's bound. It is safe to call twice.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	rs := make([]*running, 0, len(h.running))
	for _, r := range h.running {
		rs = append(rs, r)
	}
	h.running = map[string]*running{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.stop(r, true)
		}()
	}
	wg.Wait()
}

// Each calls fn for every harness (or the named ones), concurrently, and
// returns every failure collected in a *multierror.Error, each naming its
// plugin. A harness that fails never stops the others.
func (h *Host) Each(ctx context.Context, names []string, fn func(name string, hz contract.Harness) error) error {
	if len(names) == 0 {
		names = h.Names()
	}
	var (
		mu   sync.Mutex
		errs *multierror.Error
		wg   sync.WaitGroup
	)
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hz, err := h.Harness(ctx, name)
			if err == nil {
				err = fn(name, hz)
			}
			if err != nil {
				var pe *PluginError
				if !errors.As(err, &pe) {
					err = &PluginError{Name: name, Source: h.sourceOf(name), Op: "call", Err: err}
				}
				mu.Lock()
				errs = multierror.Append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if errs != nil {
		sort.Slice(errs.Errors, func(i, j int) bool { return errs.Errors[i].Error() < errs.Errors[j].Error() })
	}
	return errs.ErrorOrNil()
}

func (h *Host) sourceOf(name string) string {
	if c, ok := h.candidate(name); ok {
		return c.source
	}
	return "unknown"
}
