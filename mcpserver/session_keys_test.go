package mcpserver

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/service"
)

// describer is a harness that only describes itself, counting the calls.
type describer struct {
	contract.Harness // nil: only Describe is called
	key              string
	err              error
	calls            *int
}

func (d describer) Describe(context.Context) (contract.Description, error) {
	*d.calls++
	return contract.Description{SessionMetaKey: d.key}, d.err
}

// fakeHarnesses serves describers by name, in order.
type fakeHarnesses struct {
	names  []string
	byName map[string]describer
}

func (f fakeHarnesses) Names() []string { return f.names }

func (f fakeHarnesses) Harness(_ context.Context, name string) (contract.Harness, error) {
	d, ok := f.byName[name]
	if !ok {
		return nil, errors.New("no such harness " + name)
	}
	return d, nil
}

func TestCallerForBindsTheSessionUnderTheHarnessKey(t *testing.T) {
	const thread = "01a236a9-0434-7ac0-a8e9-12093dfbf4fa"
	tests := []struct {
		name        string
		base        service.Caller
		meta        mcp.Meta
		wantHarness string
		wantSession string
	}{
		{"codex server, its key", service.Caller{Harness: "codex"}, mcp.Meta{"threadId": thread}, "codex", thread},
		{"claude server ignores codex's key", service.Caller{Harness: "claude"}, mcp.Meta{"threadId": thread}, "claude", ""},
		{"no harness: the harness whose key is there", service.Caller{}, mcp.Meta{"threadId": thread}, "codex", thread},
		{"no harness: another harness's key", service.Caller{}, mcp.Meta{"sessionKey": "s9"}, "other", "s9"},
		{"session given at start wins", service.Caller{Harness: "codex", Session: "start"}, mcp.Meta{"threadId": thread}, "codex", "start"},
		{"no meta", service.Caller{Harness: "codex"}, nil, "codex", ""},
		{"empty id", service.Caller{Harness: "codex"}, mcp.Meta{"threadId": ""}, "codex", ""},
		{"not a string", service.Caller{Harness: "codex"}, mcp.Meta{"threadId": 42}, "codex", ""},
		{"unknown harness", service.Caller{Harness: "emacs"}, mcp.Meta{"threadId": thread}, "emacs", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			hs := fakeHarnesses{names: []string{"claude", "broken", "codex", "other"}, byName: map[string]describer{
				"claude": {calls: &calls},
				"broken": {err: errors.New("plugin did not start"), calls: &calls},
				"codex":  {key: "threadId", calls: &calls},
				"other":  {key: "sessionKey", calls: &calls},
			}}
			k := newSessionKeys(hs, hclog.NewNullLogger())
			c := k.callerFor(context.Background(), tc.base, tc.meta)
			if c.Harness != tc.wantHarness || c.Session != tc.wantSession {
				t.Errorf("caller %s:%s, want %s:%s", c.Harness, c.Session, tc.wantHarness, tc.wantSession)
			}
			// The same call again asks no harness that described itself.
			before := calls
			k.callerFor(context.Background(), tc.base, tc.meta)
			broken := 0
			if tc.base.Harness == "" && tc.base.Session == "" && len(tc.meta) > 0 {
				broken = 1 // "broken" is passed on the way, and asked again
			}
			if calls-before != broken {
				t.Errorf("second call described %d harnesses, want %d", calls-before, broken)
			}
		})
	}
}
