// Package mcpserver is notesoup's stdio MCP server: the five notes tools and
// the two history tools, over the official MCP Go SDK, for any MCP client
// (Codex, Claude Code without the mod, others). Tool names, descriptions and
// schemas come from the same Go definitions the Claude Code mod is generated
// from, and every call goes through the service the helper protocol uses, so
// answers and refusals are the same everywhere.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/history"
	"github.com/notesoup/notesoup/shared/notes"
	"github.com/notesoup/notesoup/shared/tooldef"
	"github.com/notesoup/notesoup/version"
)

// ServerName is the name the server reports; clients register it as
// "notesoup", so Claude Code shows its tools as mcp__notesoup__<tool>.
const ServerName = "notesoup"

// Config binds the server to a caller.
type Config struct {
	// Caller is the default caller: harness, cwd and, when the client says
	// so at start, its session. Otherwise a tool call's own _meta binds the
	// session per call, under the key the harness names (see sessionKeys).
	Caller service.Caller
	Logger hclog.Logger
}

// Tool is one tool the server registers (shared/tooldef's shape).
type Tool = tooldef.Def

// Tools returns the tools the server registers, from the one definition of
// each in shared/notes and shared/history.
func Tools() []Tool {
	return append(notes.Tools(), history.Tools()...)
}

// New returns the MCP server. Its instructions carry the boot block for the
// caller's project, so a client that shows server instructions starts with
// the notes.
func New(ctx context.Context, s *service.Service, cfg Config) *mcp.Server {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: version.Version},
		&mcp.ServerOptions{Instructions: instructions(ctx, s, cfg)})
	keys := newSessionKeys(s.Harnesses(), cfg.Logger)
	for _, t := range Tools() {
		tool := t
		destructive := t.Destructive
		open := false
		srv.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    t.ReadOnly,
				DestructiveHint: &destructive,
				IdempotentHint:  t.Idempotent,
				OpenWorldHint:   &open,
			},
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c := keys.callerFor(ctx, cfg.Caller, req.Params.Meta)
			text, err := call(ctx, s, c, tool.Name, req.Params.Arguments)
			if err != nil {
				cfg.Logger.Debug("tool refused", "tool", tool.Name, "error", err)
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	}
	return srv
}

// instructions is the server's instructions text: a one-line purpose and the
// boot block. Without a bound session the boot names the window
// "<harness>:unbound:0"; a harness hook that knows the session supplies the
// real one (docs/harnesses.md).
func instructions(ctx context.Context, s *service.Service, cfg Config) string {
	const purpose = "notesoup: your notes (notes_* tools) outlive this context window; history_list and history_read search and read the persisted transcripts of this and other sessions."
	c := cfg.Caller
	if c.Harness == "" {
		return purpose
	}
	var notices []string
	if c.Session == "" {
		c.Session = "unbound"
		// One boot per window: where the harness's own hooks bring the
		// window's boot block, bound to the session, the server's
		// instructions (in every request) carry none; where they are
		// not running, the boot says what the model will miss.
		if running := hooksBoot[c.Harness]; running != nil {
			ok, why := running()
			if ok {
				return purpose + "\nYour notes' boot block comes from notesoup's " + c.Harness + " hooks, at session start and after each compaction."
			}
			notices = append(notices, "notesoup's "+c.Harness+" hooks are not running ("+why+"), so no boot block comes after a compaction and no budget warning comes at all: "+
				"after a compaction, call notes_list and read your notes first; tell the person that `notesoup install "+c.Harness+"` fixes it.")
		}
	}
	// This server serves no empty_brain, so its boot must not name one.
	b, err := s.Boot(ctx, c, service.BootRequest{NoResetTool: true, Notices: notices})
	if err != nil {
		cfg.Logger.Warn("boot block for server instructions", "error", err)
		return purpose + "\n(notes boot unavailable: " + err.Error() + ")"
	}
	return purpose + "\n\n" + b.Text
}

// hooksBoot says, per harness, whether that harness's hooks bring each
// window its boot block (and why not): Codex's run only once trusted.
var hooksBoot = map[string]func() (bool, string){
	codex.Name: codex.HooksBoot,
}

// sessionKeys binds the session a tool call comes from. A harness whose
// client sends its session id with every call says under which _meta key
// (contract.Description.SessionMetaKey; Codex: threadId); each harness's
// description is asked for once, when a call first carries _meta.
type sessionKeys struct {
	hs  service.Harnesses
	log hclog.Logger

	mu   sync.Mutex
	keys map[string]string // harness → its key ("" for none), once described
}

func newSessionKeys(hs service.Harnesses, log hclog.Logger) *sessionKeys {
	return &sessionKeys{hs: hs, log: log, keys: map[string]string{}}
}

// callerFor returns base with the session the call's _meta names: under
// base's harness's key when the server was started for a harness, else
// under the first harness's key found there, in Names order (which then
// also binds the harness). A session given at start wins.
func (k *sessionKeys) callerFor(ctx context.Context, base service.Caller, meta mcp.Meta) service.Caller {
	if base.Session != "" || len(meta) == 0 {
		return base
	}
	names := []string{base.Harness}
	if base.Harness == "" {
		names = k.hs.Names()
	}
	for _, name := range names {
		key := k.key(ctx, name)
		if key == "" {
			continue
		}
		if id, ok := meta[key].(string); ok && id != "" {
			c := base
			c.Session, c.Harness = id, name
			return c
		}
	}
	return base
}

// key returns the harness's session meta key. A harness that cannot
// describe itself now (its plugin failed to start) binds no session from
// this call and is asked again on the next.
func (k *sessionKeys) key(ctx context.Context, name string) string {
	k.mu.Lock()
	key, ok := k.keys[name]
	k.mu.Unlock()
	if ok {
		return key
	}
	h, err := k.hs.Harness(ctx, name)
	var d contract.Description
	if err == nil {
		d, err = h.Describe(ctx)
	}
	if err != nil {
		k.log.Debug("session meta key unknown", "harness", name, "error", err)
		return ""
	}
	k.mu.Lock()
	k.keys[name] = d.SessionMetaKey
	k.mu.Unlock()
	return d.SessionMetaKey
}

// call runs one tool through the service and returns the text the model sees.
func call(ctx context.Context, s *service.Service, c service.Caller, tool string, raw json.RawMessage) (string, error) {
	switch tool {
	case history.ToolList:
		a, err := history.ParseListArgs(raw)
		if err != nil {
			return "", err
		}
		p, _, err := s.HistoryList(ctx, c, a, nil)
		return p.Text, err
	case history.ToolRead:
		a, err := history.ParseReadArgs(raw)
		if err != nil {
			return "", err
		}
		r, _, err := s.HistoryRead(ctx, c, a, nil)
		return r.Text, err
	}
	r, err := s.Notes(ctx, c, tool, raw)
	if err != nil {
		return "", err
	}
	return r.Render(), nil
}

// Run serves MCP on stdin/stdout until the client disconnects: every
// request read before stdin ends is answered, and a malformed line is
// answered with a JSON-RPC error instead of ending the server (see
// stdioTransport).
func Run(ctx context.Context, s *service.Service, cfg Config) error {
	return Serve(ctx, s, cfg, os.Stdin, os.Stdout)
}

// Serve is Run over any reader and writer (tests use pipes).
func Serve(ctx context.Context, s *service.Service, cfg Config, in io.Reader, out io.Writer) error {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	t := &stdioTransport{in: in, out: out, maxLine: MaxLineBytes, drain: DrainTimeout, log: cfg.Logger}
	if err := New(ctx, s, cfg).Run(ctx, t); err != nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}
