package pluginrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/contract/harnesspb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// eventBatch is how many events the server packs into one DecodeFrame: large
// enough that per-message gRPC overhead is small, small enough that a frame
// stays far below gRPC's 4 MiB default message limit for ordinary text.
const eventBatch = 256

// maxFrameBytes caps the text carried in one frame, so a batch of very long
// events is split before it reaches gRPC's message size limit.
const maxFrameBytes = 2 << 20

// GRPCPlugin is the go-plugin glue for contract.Harness over gRPC.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl is the implementation served; nil on the host side.
	Impl contract.Harness
}

// GRPCServer registers the server shim.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	harnesspb.RegisterHarnessServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the client shim, which implements contract.Harness.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (interface{}, error) {
	return &GRPCClient{client: harnesspb.NewHarnessClient(c)}, nil
}

// GRPCClient is the host-side shim: it implements contract.Harness by calling the
// plugin over gRPC.
type GRPCClient struct {
	client harnesspb.HarnessClient
}

var _ contract.Harness = (*GRPCClient)(nil)

// Describe implements contract.Harness.
func (c *GRPCClient) Describe(ctx context.Context) (contract.Description, error) {
	r, err := c.client.Describe(ctx, &harnesspb.DescribeRequest{})
	if err != nil {
		return contract.Description{}, err
	}
	d := contract.Description{
		Name:             r.GetName(),
		PluginVersion:    r.GetPluginVersion(),
		Capabilities:     r.GetCapabilities(),
		DefaultRoots:     r.GetDefaultRoots(),
		SynthesizedWords: r.GetSynthesizedWords(),
		SessionMetaKey:   r.GetSessionMetaKey(),
	}
	for _, v := range r.GetContractVersions() {
		d.ContractVersions = append(d.ContractVersions, int(v))
	}
	return d, nil
}

// ListSessions implements contract.Harness.
func (c *GRPCClient) ListSessions(ctx context.Context, f contract.SessionFilter, fn func(contract.Session) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.ListSessions(ctx, &harnesspb.ListSessionsRequest{Roots: f.Roots, IdPrefix: f.IDPrefix, FilesOnly: f.FilesOnly})
	if err != nil {
		return err
	}
	for {
		s, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(sessionFromPB(s)); err != nil {
			return err
		}
	}
}

// Decode implements contract.Harness.
func (c *GRPCClient) Decode(ctx context.Context, req contract.DecodeRequest, emit contract.EmitFunc) (contract.Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.client.Decode(ctx, &harnesspb.DecodeRequest{
		Session: sessionToPB(req.Session),
		Head:    req.Head,
		Roots:   req.Roots,
	})
	if err != nil {
		return contract.Summary{}, err
	}
	var (
		lastSeq int64
		stopped error // contract.ErrStopped once the consumer stopped
	)
	for {
		f, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return contract.Summary{}, errors.New("plugin ended the decode stream without a summary frame")
		}
		if st, ok := status.FromError(err); ok && st.Code() == codes.Aborted {
			return contract.Summary{}, &contract.Refusal{Reason: st.Message(), Retry: true}
		}
		if err != nil {
			return contract.Summary{}, err
		}
		for _, e := range f.GetEvents() {
			ev := eventFromPB(e)
			// Seqs are addresses: a plugin that sends them out of order or
			// reuses one is answering garbage, and readers must not page on it.
			if ev.Seq <= lastSeq {
				return contract.Summary{}, fmt.Errorf("plugin sent event seq %d after seq %d: events must ascend", ev.Seq, lastSeq)
			}
			lastSeq = ev.Seq
			if stopped != nil {
				continue
			}
			if err := emit(ev); err != nil {
				if !errors.Is(err, contract.ErrStopped) {
					return contract.Summary{}, err
				}
				// The consumer has what it needs, but still wants the
				// summary (windows, head, the harness notice), which only
				// the last frame carries: drain without emitting.
				stopped = err
			}
		}
		if s := f.GetSummary(); s != nil {
			return summaryFromPB(s), stopped
		}
	}
}

// Thresholds implements contract.Harness.
func (c *GRPCClient) Thresholds(ctx context.Context, in contract.ThresholdInput) (contract.NativePoint, error) {
	r, err := c.client.Thresholds(ctx, &harnesspb.ThresholdsRequest{
		Model:        in.Model,
		ModelWindow:  in.ModelWindow,
		SettingsJson: in.Settings,
		Env:          in.Env,
		UsageJson:    in.Usage,
		Cwd:          in.Cwd,
		Home:         in.Home,
		Overrides:    in.Overrides,
		Cap:          in.Cap,
	})
	if err != nil {
		return contract.NativePoint{}, err
	}
	return contract.NativePoint{
		Resolved:           r.GetResolved(),
		Tokens:             r.GetTokens(),
		Window:             r.GetWindow(),
		Source:             r.GetSource(),
		AutoCompactEnabled: r.GetAutoCompactEnabled(),
		Reason:             r.GetReason(),
		CapApplied:         r.GetCapApplied(),
		CompactDisabled:    r.GetCompactDisabled(),
		Notes:              r.GetNotes(),
		Files:              r.GetFiles(),
		PolicySettings:     r.GetPolicySettingsJson(),
	}, nil
}

// BootBinding implements contract.Harness.
func (c *GRPCClient) BootBinding(ctx context.Context, sessionID string, ordinal int) (contract.Binding, error) {
	r, err := c.client.BootBinding(ctx, &harnesspb.BootBindingRequest{SessionId: sessionID, Ordinal: int32(ordinal)})
	if err != nil {
		return contract.Binding{}, err
	}
	return contract.Binding{WindowID: r.GetWindowId(), ResetTool: r.GetResetTool()}, nil
}

// grpcServer is the plugin-side shim: it serves harnesspb by calling impl.
type grpcServer struct {
	harnesspb.UnimplementedHarnessServer
	impl contract.Harness
}

func (s *grpcServer) Describe(ctx context.Context, _ *harnesspb.DescribeRequest) (*harnesspb.DescribeResponse, error) {
	d, err := s.impl.Describe(ctx)
	if err != nil {
		return nil, err
	}
	r := &harnesspb.DescribeResponse{
		Name:             d.Name,
		PluginVersion:    d.PluginVersion,
		Capabilities:     d.Capabilities,
		DefaultRoots:     d.DefaultRoots,
		SynthesizedWords: d.SynthesizedWords,
		SessionMetaKey:   d.SessionMetaKey,
	}
	for _, v := range d.ContractVersions {
		r.ContractVersions = append(r.ContractVersions, int32(v))
	}
	return r, nil
}

func (s *grpcServer) ListSessions(req *harnesspb.ListSessionsRequest, stream harnesspb.Harness_ListSessionsServer) error {
	return s.impl.ListSessions(stream.Context(), contract.SessionFilter{Roots: req.GetRoots(), IDPrefix: req.GetIdPrefix(), FilesOnly: req.GetFilesOnly()}, func(sess contract.Session) error {
		return stream.Send(sessionToPB(sess))
	})
}

func (s *grpcServer) Decode(req *harnesspb.DecodeRequest, stream harnesspb.Harness_DecodeServer) error {
	frame := &harnesspb.DecodeFrame{}
	size := 0
	flush := func() error {
		if len(frame.Events) == 0 {
			return nil
		}
		err := stream.Send(frame)
		frame, size = &harnesspb.DecodeFrame{}, 0
		return err
	}
	sum, err := s.impl.Decode(stream.Context(), contract.DecodeRequest{
		Session: sessionFromPB(req.GetSession()),
		Head:    req.GetHead(),
		Roots:   req.GetRoots(),
	}, func(ev contract.Event) error {
		frame.Events = append(frame.Events, eventToPB(ev))
		size += len(ev.Text)
		if len(frame.Events) >= eventBatch || size >= maxFrameBytes {
			return flush()
		}
		return nil
	})
	if err != nil {
		if contract.IsRetryable(err) {
			// Aborted, not Unavailable: the plugin is healthy and the
			// caller may retry; the host must not restart it.
			return status.Error(codes.Aborted, err.Error())
		}
		return err
	}
	frame.Summary = summaryToPB(sum)
	return stream.Send(frame)
}

func (s *grpcServer) Thresholds(ctx context.Context, r *harnesspb.ThresholdsRequest) (*harnesspb.ThresholdsResponse, error) {
	p, err := s.impl.Thresholds(ctx, contract.ThresholdInput{
		Model:       r.GetModel(),
		ModelWindow: r.GetModelWindow(),
		Settings:    r.GetSettingsJson(),
		Env:         r.GetEnv(),
		Usage:       r.GetUsageJson(),
		Cwd:         r.GetCwd(),
		Home:        r.GetHome(),
		Overrides:   r.GetOverrides(),
		Cap:         r.GetCap(),
	})
	if err != nil {
		return nil, err
	}
	return &harnesspb.ThresholdsResponse{
		Resolved:           p.Resolved,
		Tokens:             p.Tokens,
		Window:             p.Window,
		Source:             p.Source,
		AutoCompactEnabled: p.AutoCompactEnabled,
		Reason:             p.Reason,
		CapApplied:         p.CapApplied,
		CompactDisabled:    p.CompactDisabled,
		Notes:              p.Notes,
		Files:              p.Files,
		PolicySettingsJson: p.PolicySettings,
	}, nil
}

func (s *grpcServer) BootBinding(ctx context.Context, r *harnesspb.BootBindingRequest) (*harnesspb.BootBindingResponse, error) {
	b, err := s.impl.BootBinding(ctx, r.GetSessionId(), int(r.GetOrdinal()))
	if err != nil {
		return nil, err
	}
	return &harnesspb.BootBindingResponse{WindowId: b.WindowID, ResetTool: b.ResetTool}, nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func sessionToPB(s contract.Session) *harnesspb.SessionInfo {
	return &harnesspb.SessionInfo{
		Harness: s.Harness, Id: s.ID, Path: s.Path, Cwd: s.Cwd, Title: s.Title,
		StartedUnixNano: unixNano(s.Started), UpdatedUnixNano: unixNano(s.Updated), Size: s.Size,
	}
}

func sessionFromPB(s *harnesspb.SessionInfo) contract.Session {
	return contract.Session{
		Harness: s.GetHarness(), ID: s.GetId(), Path: s.GetPath(), Cwd: s.GetCwd(), Title: s.GetTitle(),
		Started: fromUnixNano(s.GetStartedUnixNano()), Updated: fromUnixNano(s.GetUpdatedUnixNano()), Size: s.GetSize(),
	}
}

func eventToPB(e contract.Event) *harnesspb.Event {
	return &harnesspb.Event{
		Seq: e.Seq, Window: e.Window, Kind: string(e.Kind), Role: string(e.Role), Text: e.Text,
		ToolName: e.ToolName, ToolId: e.ToolID, PairSeq: e.PairSeq, TimeUnixNano: unixNano(e.Time), Line: int32(e.Line),
		ToolInput: e.ToolInput, IsError: e.IsError,
	}
}

func eventFromPB(e *harnesspb.Event) contract.Event {
	return contract.Event{
		Seq: e.GetSeq(), Window: e.GetWindow(), Kind: contract.Kind(e.GetKind()), Role: contract.Role(e.GetRole()),
		Text: e.GetText(), ToolName: e.GetToolName(), ToolID: e.GetToolId(), PairSeq: e.GetPairSeq(),
		Time: fromUnixNano(e.GetTimeUnixNano()), Line: int(e.GetLine()),
		ToolInput: e.GetToolInput(), IsError: e.GetIsError(),
	}
}

func summaryToPB(s contract.Summary) *harnesspb.Summary {
	r := &harnesspb.Summary{
		Windows: s.Windows, HeadWindow: s.HeadWindow, HeadKnown: s.HeadKnown, HeadOrdinal: int32(s.HeadOrdinal),
		Notice: s.Notice,
	}
	for _, n := range s.Notes {
		r.Notes = append(r.Notes, &harnesspb.ProjectionNote{Kind: string(n.Kind), Message: n.Message, Line: int32(n.Line), Ref: n.Ref})
	}
	return r
}

func summaryFromPB(s *harnesspb.Summary) contract.Summary {
	r := contract.Summary{
		Windows: s.GetWindows(), HeadWindow: s.GetHeadWindow(), HeadKnown: s.GetHeadKnown(), HeadOrdinal: int(s.GetHeadOrdinal()),
		Notice: s.GetNotice(),
	}
	for _, n := range s.GetNotes() {
		r.Notes = append(r.Notes, contract.ProjectionNote{Kind: contract.NoteKind(n.GetKind()), Message: n.GetMessage(), Line: int(n.GetLine()), Ref: n.GetRef()})
	}
	return r
}
