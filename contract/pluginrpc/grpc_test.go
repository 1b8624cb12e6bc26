package pluginrpc_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/contract/pluginrpc"
)

// fake is a Harness whose answers are fixed per test.
type fake struct {
	sessions []contract.Session
	events   []contract.Event
	summary  contract.Summary
	err      error
	gotIn    contract.ThresholdInput
	// gotFilter is the filter ListSessions was called with.
	gotFilter contract.SessionFilter
}

func (f *fake) Describe(context.Context) (contract.Description, error) {
	return contract.Description{Name: "fake", PluginVersion: "0.1.0", ContractVersions: []int{1},
		Capabilities: []string{contract.CapDecode}, DefaultRoots: []string{"/r"},
		SynthesizedWords: []string{"ran"}, SessionMetaKey: "threadId"}, f.err
}

func (f *fake) ListSessions(_ context.Context, filter contract.SessionFilter, fn func(contract.Session) error) error {
	f.gotFilter = filter
	for _, s := range f.sessions {
		if err := fn(s); err != nil {
			return err
		}
	}
	return f.err
}

func (f *fake) Decode(_ context.Context, _ contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	for _, e := range f.events {
		if err := emit(e); err != nil {
			return contract.Summary{}, err
		}
	}
	return f.summary, f.err
}

func (f *fake) Thresholds(_ context.Context, in contract.ThresholdInput) (contract.NativePoint, error) {
	f.gotIn = in
	return contract.NativePoint{Resolved: true, Tokens: 167000, Window: 200000, Source: "test", AutoCompactEnabled: true, CapApplied: true, CompactDisabled: true, Notes: []string{"n"}, Files: []string{"/f"}, PolicySettings: []byte(`{"notesoup":{"resetMarginTokens":1}}`)}, f.err
}

func (f *fake) BootBinding(_ context.Context, id string, ord int) (contract.Binding, error) {
	return contract.Binding{WindowID: "fake:" + id + ":" + string(rune('0'+ord)), ResetTool: "empty_brain"}, f.err
}

// connect serves impl over an in-process gRPC connection and returns the
// host-side client shim.
func connect(t *testing.T, impl contract.Harness) contract.Harness {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{
		pluginrpc.PluginName: &pluginrpc.GRPCPlugin{Impl: impl},
	})
	t.Cleanup(func() { client.Close(); server.Stop() })
	raw, err := client.Dispense(pluginrpc.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(contract.Harness)
}

func TestDescribeRoundTrip(t *testing.T) {
	h := connect(t, &fake{})
	d, err := h.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := contract.Description{Name: "fake", PluginVersion: "0.1.0", ContractVersions: []int{1},
		Capabilities: []string{"decode"}, DefaultRoots: []string{"/r"},
		SynthesizedWords: []string{"ran"}, SessionMetaKey: "threadId"}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("Describe = %+v, want %+v", d, want)
	}
}

func TestListSessionsStreamsEverySession(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	var want []contract.Session
	for i := 0; i < 700; i++ { // more than one gRPC window's worth
		want = append(want, contract.Session{Harness: "fake", ID: strings.Repeat("x", i%7+1), Path: "/p", Started: ts, Size: int64(i)})
	}
	f := &fake{sessions: want}
	h := connect(t, f)
	var got []contract.Session
	filter := contract.SessionFilter{Roots: []string{"/r1", "/r2"}, IDPrefix: "0b5e", FilesOnly: true}
	if err := h.ListSessions(context.Background(), filter, func(s contract.Session) error { got = append(got, s); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d sessions, want %d (first diff somewhere)", len(got), len(want))
	}
	if !reflect.DeepEqual(f.gotFilter, filter) {
		t.Errorf("the plugin got filter %+v, want %+v", f.gotFilter, filter)
	}
}

func TestDecode(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	big := strings.Repeat("y", 3<<20) // forces a frame split on size
	events := []contract.Event{
		{Seq: 1, Window: "fake:s:0", Kind: contract.KindMessage, Role: contract.RoleUser, Text: "hi", Time: ts, Line: 1},
		{Seq: 2, Window: "fake:s:0", Kind: contract.KindToolUse, Role: contract.RoleAssistant, ToolName: "Read", ToolID: "t1", ToolInput: `{"path":"a"}`, PairSeq: 3, Line: 2},
		{Seq: 3, Window: "fake:s:0", Kind: contract.KindToolResult, Role: contract.RoleTool, Text: big, ToolID: "t1", IsError: true, PairSeq: 2, Line: 3},
		{Seq: 4, Window: "fake:s:1", Kind: contract.KindMessage, Role: contract.RoleAssistant, Text: "after", Line: 5},
	}
	for i := int64(5); i < 1000; i++ {
		events = append(events, contract.Event{Seq: i, Window: "fake:s:1", Kind: contract.KindMessage, Role: contract.RoleUser, Text: "n"})
	}
	sum := contract.Summary{Windows: []string{"fake:s:0", "fake:s:1"}, HeadWindow: "fake:s:1", HeadKnown: true, HeadOrdinal: 1, Notice: "gap",
		Notes: []contract.ProjectionNote{{Kind: contract.NoteGap, Message: "missing", Line: 4, Ref: "u"}}}

	tests := []struct {
		name    string
		impl    *fake
		wantErr string
	}{
		{name: "ok", impl: &fake{events: events, summary: sum}},
		{name: "plugin error", impl: &fake{events: events[:2], err: errors.New("line 9: bad record")}, wantErr: "line 9: bad record"},
		{name: "seq not ascending", impl: &fake{events: []contract.Event{{Seq: 2}, {Seq: 2}}}, wantErr: "must ascend"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := connect(t, tc.impl)
			var got []contract.Event
			s, err := h.Decode(context.Background(), contract.DecodeRequest{Session: contract.Session{ID: "s"}},
				func(e contract.Event) error { got = append(got, e); return nil })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.impl.events) {
				t.Fatalf("events differ: got %d want %d", len(got), len(tc.impl.events))
			}
			if !reflect.DeepEqual(s, sum) {
				t.Fatalf("summary = %+v, want %+v", s, sum)
			}
		})
	}
}

func TestThresholdsAndBinding(t *testing.T) {
	f := &fake{}
	h := connect(t, f)
	in := contract.ThresholdInput{Model: "m", ModelWindow: 200000, Settings: []byte(`{"a":1}`), Env: map[string]string{"K": "V"},
		Usage: []byte(`{}`), Cwd: "/c", Home: "/h", Overrides: []string{"x=1"}, Cap: 100000}
	p, err := h.Thresholds(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.gotIn, in) {
		t.Fatalf("plugin saw %+v, want %+v", f.gotIn, in)
	}
	if want := (contract.NativePoint{Resolved: true, Tokens: 167000, Window: 200000, Source: "test", AutoCompactEnabled: true, CapApplied: true, CompactDisabled: true, Notes: []string{"n"}, Files: []string{"/f"}, PolicySettings: []byte(`{"notesoup":{"resetMarginTokens":1}}`)}); !reflect.DeepEqual(p, want) {
		t.Fatalf("point = %+v, want %+v", p, want)
	}
	b, err := h.BootBinding(context.Background(), "abc", 2)
	if err != nil {
		t.Fatal(err)
	}
	if b != (contract.Binding{WindowID: "fake:abc:2", ResetTool: "empty_brain"}) {
		t.Fatalf("binding = %+v", b)
	}
}

// TestDecodeStoppedConsumerStillGetsSummary: a consumer that stops early
// (history_read found its address) still receives the summary, which
// carries the harness notice every response must show.
func TestDecodeStoppedConsumerStillGetsSummary(t *testing.T) {
	events := []contract.Event{{Seq: 1, Text: "a"}, {Seq: 2, Text: "b"}, {Seq: 3, Text: "c"}}
	sum := contract.Summary{Windows: []string{"w"}, Notice: "[incomplete history] gap"}
	h := connect(t, &fake{events: events, summary: sum})
	n := 0
	got, err := h.Decode(context.Background(), contract.DecodeRequest{}, func(contract.Event) error {
		n++
		return contract.ErrStopped
	})
	if !errors.Is(err, contract.ErrStopped) || n != 1 {
		t.Fatalf("err = %v after %d events, want ErrStopped after 1", err, n)
	}
	if !reflect.DeepEqual(got, sum) {
		t.Fatalf("summary = %+v, want %+v", got, sum)
	}
}

type retryableErr struct{}

func (retryableErr) Error() string   { return "the live head is not on disk yet; retry shortly" }
func (retryableErr) Retryable() bool { return true }

// TestDecodeRetryableCrossesTheContract: a refusal about a write in
// progress stays recognisable as retryable on the host's side.
func TestDecodeRetryableCrossesTheContract(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "retryable", err: retryableErr{}, want: true},
		{name: "final", err: errors.New("line 3: malformed"), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := connect(t, &fake{err: tc.err})
			_, err := h.Decode(context.Background(), contract.DecodeRequest{}, func(contract.Event) error { return nil })
			if err == nil || contract.IsRetryable(err) != tc.want || !strings.Contains(err.Error(), tc.err.Error()) {
				t.Fatalf("err = %v (retryable %v), want %q retryable %v", err, contract.IsRetryable(err), tc.err, tc.want)
			}
		})
	}
}
