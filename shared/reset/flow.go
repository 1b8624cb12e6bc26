package reset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
)

// StateVersion is the format version of a persisted State. A file from a
// newer version is refused rather than half-understood.
const StateVersion = 1

// EventKind names one event of the reset flow's alphabet.
type EventKind string

// The event alphabet. Every event a harness integration observes that
// matters to a reset maps to exactly one of these.
const (
	// EvResetRequested: the reset tool (empty_brain) was called, with its
	// raw last_word and terminate arguments.
	EvResetRequested EventKind = "reset_requested"
	// EvTurnStarted: a turn began; Origin says who started it.
	EvTurnStarted EventKind = "turn_started"
	// EvStep: a step boundary (the next model request of a turn).
	EvStep EventKind = "step"
	// EvTurnCompleted, EvTurnAborted, EvTurnFailed, EvTurnRefused: a turn
	// ended with an answer, was interrupted, errored, or was refused.
	EvTurnCompleted EventKind = "turn_completed"
	EvTurnAborted   EventKind = "turn_aborted"
	EvTurnFailed    EventKind = "turn_failed"
	EvTurnRefused   EventKind = "turn_refused"
	// EvInputAccepted: natural (user) input was accepted by the harness but
	// not yet delivered to a model request. EvInputDelivered: it was.
	EvInputAccepted  EventKind = "input_accepted"
	EvInputDelivered EventKind = "input_delivered"
	// EvCompactionStarted: a manual-trigger compaction reached the
	// harness's compaction hook with instructions carrying Marker (ours, or
	// a user's /compact with none).
	EvCompactionStarted EventKind = "compaction_started"
	// EvCompactionCommitted: the harness kept the boot; Evidence is true
	// only with proof (kept rows), never for a command receipt alone.
	EvCompactionCommitted EventKind = "compaction_committed"
	// EvCompactionFailed: the attempt with Marker failed (rejected command,
	// missing or rewritten boot); the request is kept for retry.
	EvCompactionFailed EventKind = "compaction_failed"
	// EvCompactionVetoed: another hook, or a failed boot build, vetoed the
	// attempt with Marker; the request is cancelled.
	EvCompactionVetoed EventKind = "compaction_vetoed"
	// EvNativeCompaction: the harness's automatic compaction (threshold or
	// prompt-too-long) is about to run in the main conversation.
	EvNativeCompaction EventKind = "native_compaction"
	// EvManualStop: /empty or /fresh-window.
	EvManualStop EventKind = "manual_stop"
	// EvCloseOutFailed: the hidden close-out prompt could not be submitted
	// (warning failed to load, submission failed, a hook dropped it).
	EvCloseOutFailed EventKind = "closeout_failed"
	// EvContinuationDropped: the continuation prompt was dropped or failed.
	EvContinuationDropped EventKind = "continuation_dropped"
	// EvSessionChanged: the session identity is (re)read; a different
	// Session discards the flow and starts a new generation.
	EvSessionChanged EventKind = "session_changed"
	// EvBudgetHard: the measured main context crossed the hard point.
	EvBudgetHard EventKind = "budget_hard"
	// EvWarningDelivered: the budget warning was accepted downstream.
	EvWarningDelivered EventKind = "warning_delivered"
	// EvCapSet: /notesoup cap set the runtime cap (Cap tokens, 0 = off).
	EvCapSet EventKind = "cap_set"
	// EvSessionEnded: the session ended or the plugin reloaded; the flow and
	// the runtime cap are forgotten and pending asynchronous work is
	// invalidated. The window ordinal is kept for a resume.
	EvSessionEnded EventKind = "session_ended"
)

// EventKinds lists the whole alphabet, in a stable order.
var EventKinds = []EventKind{
	EvResetRequested, EvTurnStarted, EvStep, EvTurnCompleted, EvTurnAborted, EvTurnFailed, EvTurnRefused,
	EvInputAccepted, EvInputDelivered, EvCompactionStarted, EvCompactionCommitted, EvCompactionFailed,
	EvCompactionVetoed, EvNativeCompaction, EvManualStop, EvCloseOutFailed, EvContinuationDropped,
	EvSessionChanged, EvBudgetHard, EvWarningDelivered, EvCapSet, EvSessionEnded,
}

// TurnOrigin says who started a turn.
type TurnOrigin string

// Turn origins.
const (
	OriginNatural      TurnOrigin = "natural"      // user input
	OriginContinuation TurnOrigin = "continuation" // our one continuation after a commit
	OriginCloseOut     TurnOrigin = "closeout"     // our hidden close-out for /empty while idle
)

// Event is one input to Step. Only the fields of its Kind are read.
type Event struct {
	Kind EventKind `json:"type"`
	// Subagent is true when the event comes from a subagent's loop rather
	// than the main conversation.
	Subagent bool `json:"subagent,omitempty"`
	// LastWord and Terminate are the reset tool's raw arguments, checked by
	// Step before anything is recorded.
	LastWord  json.RawMessage `json:"last_word,omitempty"`
	Terminate json.RawMessage `json:"terminate,omitempty"`
	// Origin is the origin of a started turn.
	Origin TurnOrigin `json:"origin,omitempty"`
	// Marker identifies a compaction attempt.
	Marker string `json:"marker,omitempty"`
	// Evidence marks a commit proven by the kept boot.
	Evidence bool `json:"evidence,omitempty"`
	// Session, Seed and CompactDisabled come with EvSessionChanged. Seed
	// drives the handoff choice; the caller supplies it so Step stays pure.
	Session         string `json:"session,omitempty"`
	Seed            uint64 `json:"seed,omitempty"`
	CompactDisabled bool   `json:"compact_disabled,omitempty"`
	// AutoResetOff comes with EvBudgetHard when the harness's automatic
	// compaction is off: the crossing is then measured but never resets.
	AutoResetOff bool `json:"auto_reset_off,omitempty"`
	// Cap comes with EvCapSet: the runtime cap in tokens, 0 to clear it.
	Cap int64 `json:"cap,omitempty"`
}

// ActionKind names one action Step asks the caller to perform.
type ActionKind string

// The actions.
const (
	// ActNothing: nothing to do (Message may say why, for the log).
	ActNothing ActionKind = "nothing"
	// ActEndTurn: answer this step with a synthetic end_turn, without a
	// model request and without aborting tools.
	ActEndTurn ActionKind = "end_turn"
	// ActRunCompaction: start the harness's compaction command with Marker
	// in its instructions.
	ActRunCompaction ActionKind = "run_compaction"
	// ActInstallBoot: answer the compaction with the fresh notes boot
	// followed by handoff paragraph Handoff of Pool and the LastWord sticky;
	// Window is the new window's ordinal.
	ActInstallBoot ActionKind = "install_boot"
	// ActSendContinuation: send the one plugin-origin continuation prompt.
	ActSendContinuation ActionKind = "send_continuation"
	// ActReportDropped: tell the user the continuation was dropped; do not
	// compact again.
	ActReportDropped ActionKind = "report_dropped"
	// ActSubmitCloseOut: submit the hidden close-out prompt (the budget
	// warning) so the model can save notes before a manual reset.
	ActSubmitCloseOut ActionKind = "submit_closeout"
	// ActRefuse: refuse the event's request with Message (a tool error, a
	// compaction veto, a command's refusal).
	ActRefuse ActionKind = "refuse"
)

// Action is one output of Step.
type Action struct {
	Kind      ActionKind `json:"kind"`
	RequestID uint64     `json:"request_id,omitempty"`
	Marker    string     `json:"marker,omitempty"`
	Pool      Pool       `json:"pool,omitempty"`
	Handoff   int        `json:"handoff,omitempty"`
	LastWord  string     `json:"last_word,omitempty"`
	Window    int64      `json:"window,omitempty"`
	Message   string     `json:"message,omitempty"`
}

// RequestOrigin says what first created a request.
type RequestOrigin string

// Request origins.
const (
	RequestTool   RequestOrigin = "tool"   // the reset tool
	RequestBudget RequestOrigin = "budget" // the hard point
	RequestManual RequestOrigin = "manual" // /empty or /fresh-window
)

// Request is the first lifetime: it lasts until a successful reset or a
// cancellation, and owns the first valid tool call's arguments and the
// continuation policy.
type Request struct {
	ID     uint64        `json:"id"`
	Origin RequestOrigin `json:"origin"`
	// ToolArgs is true once a valid tool call owns the arguments; later
	// calls cannot replace them. It also selects the normal handoff pool.
	ToolArgs  bool   `json:"tool_args,omitempty"`
	LastWord  string `json:"last_word,omitempty"`
	Terminate bool   `json:"terminate,omitempty"`
	// Stop is manual STOP (or a cancelled turn while a commit is in
	// flight): no continuation.
	Stop bool `json:"stop,omitempty"`
	// NaturalInput is true once accepted natural input owns the
	// continuation: no continuation from us.
	NaturalInput bool `json:"natural_input,omitempty"`
}

// Commit is the second lifetime: one compaction attempt, identified by its
// unique marker, until it commits with evidence, fails or is vetoed.
type Commit struct {
	Marker    string `json:"marker"`
	RequestID uint64 `json:"request_id"`
	Started   bool   `json:"started,omitempty"`
}

// Cutoff is the third lifetime: the per-turn cutoff that ends the current
// main turn at its next step. It can outlive its request when native
// automatic compaction consumes the request first.
type Cutoff struct {
	RequestID uint64 `json:"request_id"`
	// Released is true once natural input delivered within the turn took
	// the turn over.
	Released bool `json:"released,omitempty"`
}

// State is the reset flow's whole state for one session. It is plain data
// so it can be persisted between processes.
type State struct {
	Version    int    `json:"version"`
	Session    string `json:"session,omitempty"`
	Generation uint64 `json:"generation"`
	Seed       uint64 `json:"seed"`
	// Window is the current window ordinal (the boot's ":N").
	Window int64 `json:"window"`
	// NextID numbers requests and compaction attempts; never reused, so
	// markers stay unique.
	NextID          uint64 `json:"next_id"`
	TurnRunning     bool   `json:"turn_running,omitempty"`
	CompactDisabled bool   `json:"compact_disabled,omitempty"`
	// InputPending is true while accepted natural input has not reached a
	// model request.
	InputPending bool `json:"input_pending,omitempty"`
	// Warned is true once the budget warning was delivered in this window.
	Warned          bool     `json:"warned,omitempty"`
	CloseOutPending bool     `json:"closeout_pending,omitempty"`
	Request         *Request `json:"request,omitempty"`
	Commit          *Commit  `json:"commit,omitempty"`
	Cutoff          *Cutoff  `json:"cutoff,omitempty"`
	// Continuation is the request whose continuation was sent and has not
	// started yet (0 for none).
	Continuation uint64 `json:"continuation,omitempty"`
	// Cap is the runtime cap (/notesoup cap) in tokens, 0 for none. It
	// survives rollovers and model changes and is cleared when the session
	// ends, reloads or changes identity. Pass it as ThresholdInput.Cap.
	Cap int64 `json:"cap,omitempty"`
}

// NewState returns the initial state of a session.
func NewState(session string, seed uint64) State {
	return State{Version: StateVersion, Session: session, Generation: 1, Seed: seed, NextID: 1}
}

// Clone returns a deep copy.
func (s State) Clone() State {
	c := s
	if s.Request != nil {
		r := *s.Request
		c.Request = &r
	}
	if s.Commit != nil {
		m := *s.Commit
		c.Commit = &m
	}
	if s.Cutoff != nil {
		k := *s.Cutoff
		c.Cutoff = &k
	}
	return c
}

// CutoffArmed reports whether the next main step must end the turn.
func (s State) CutoffArmed() bool { return s.Cutoff != nil && !s.Cutoff.Released }

// StepNeeded reports whether a step event could change this state or ask
// for an action. It cannot while a turn runs with no cutoff armed, and
// then a harness may leave step events out until another event's answer
// says otherwise: each one is a helper process before a model request, on
// every request of every turn. TestExhaustive holds Step to this.
func (s State) StepNeeded() bool { return !s.TurnRunning || s.CutoffArmed() }

// Messages the flow gives to users and models.
const (
	msgSubagentReset  = ToolEmptyBrain + " resets the main conversation's window, and a subagent cannot do that. Put what matters in the notes instead; the main agent decides when its window is reset."
	msgCompactOff     = "Compaction is disabled in this harness (DISABLE_COMPACT), so the context window cannot be reset. Remove DISABLE_COMPACT to use " + ToolEmptyBrain + ", /empty or /fresh-window."
	msgBadTerminate   = ToolEmptyBrain + ": terminate must be true or false (a JSON boolean); nothing was recorded. Call it again with terminate omitted, true or false."
	msgBadLastWord    = ToolEmptyBrain + ": last_word must be a string; nothing was recorded. Call it again with last_word as text, or omit it."
	msgUserCompact    = "notesoup replaces compaction summaries with clean resets; /compact is vetoed here. Use /empty (or /fresh-window) to save notes and start a fresh window."
	msgStaleMarker    = "this compaction belongs to a reset that is no longer pending (already done, cancelled or from an earlier session); vetoed so the window is not reset twice."
	msgRequestDropped = "the pending reset was cancelled because the turn did not complete"
)

// Step is the reset flow: a pure, deterministic function of a state and an
// event, returning the next state and the actions to perform in order. It
// never mutates its input.
func Step(in State, ev Event) (State, []Action) {
	s := in.Clone()
	if s.Version == 0 {
		s.Version = StateVersion
	}
	if ev.Kind == EvResetRequested {
		return resetRequested(in, s, ev)
	}
	if ev.Subagent {
		// Subagent steps, turns, compactions, measurements and commands pass
		// through: nothing a subagent does can reset, cut off or reconfigure
		// the main window.
		return in, nothing("subagent event passes through")
	}
	switch ev.Kind {
	case EvSessionChanged:
		return sessionChanged(s, ev)
	case EvSessionEnded:
		// The window ordinal and its warned flag belong to the persisted
		// transcript, not to the flow: a resumed session continues in the
		// same window, so they are kept.
		next := State{Version: StateVersion, Session: s.Session, Generation: s.Generation + 1, Seed: s.Seed,
			NextID: max(s.NextID, 1), CompactDisabled: s.CompactDisabled, Window: s.Window, Warned: s.Warned}
		return next, nothing("session ended: the flow and the cap are forgotten")
	case EvCapSet:
		if ev.Cap < 0 || ev.Cap > MaxCapTokens {
			return in, refuse(fmt.Sprintf("cap %d out of range 0..%d", ev.Cap, MaxCapTokens))
		}
		// A pending reset keeps its continuation/STOP policy: only the
		// points move.
		s.Cap = ev.Cap
		return s, nothing("")
	case EvWarningDelivered:
		s.Warned = true
		return s, nothing("")
	case EvTurnStarted:
		s.TurnRunning = true
		s.Cutoff = nil
		switch ev.Origin {
		case OriginContinuation:
			s.Continuation = 0
		case OriginCloseOut:
			s.CloseOutPending = false
		case OriginNatural:
			s.InputPending = false
		}
		return s, nothing("")
	case EvStep:
		s.TurnRunning = true
		if s.CutoffArmed() {
			if s.InputPending {
				// Natural input is about to be delivered with this very
				// request: it owns the rest of the turn.
				s.Cutoff.Released = true
				return s, nothing("cutoff released by natural input")
			}
			return s, []Action{{Kind: ActEndTurn, RequestID: s.Cutoff.RequestID}}
		}
		return s, nothing("")
	case EvTurnCompleted:
		s = endTurn(s)
		return tryStart(s)
	case EvTurnAborted, EvTurnFailed, EvTurnRefused:
		s = endTurn(s)
		if s.Request != nil {
			if s.Commit == nil {
				s.Request = nil
				return s, nothing(msgRequestDropped)
			}
			// The compaction is already in flight and may commit; it must
			// not be followed by a continuation.
			s.Request.Stop = true
		}
		return s, nothing("")
	case EvInputAccepted:
		s.InputPending = true
		if s.Request != nil {
			s.Request.NaturalInput = true
		}
		return s, nothing("")
	case EvInputDelivered:
		s.InputPending = false
		if s.TurnRunning && s.Cutoff != nil {
			s.Cutoff.Released = true
		}
		return s, nothing("")
	case EvCompactionStarted:
		if s.Commit != nil && ev.Marker == s.Commit.Marker {
			s.Commit.Started = true
			return s, []Action{s.bootAction(s.Commit.RequestID)}
		}
		if ev.Marker == "" {
			return in, refuse(msgUserCompact)
		}
		return in, refuse(msgStaleMarker)
	case EvCompactionCommitted:
		if s.Commit == nil || ev.Marker != s.Commit.Marker {
			return in, nothing("commit of an unknown or finished attempt ignored")
		}
		if !ev.Evidence {
			return in, nothing("no commit evidence yet: a command receipt is not proof")
		}
		req := s.Request
		s.Window++
		s.Warned = false
		s.Request, s.Commit, s.Cutoff = nil, nil, nil
		if req == nil {
			return s, nothing("committed")
		}
		switch {
		case req.Stop:
			return s, nothing("committed; STOP: no continuation")
		case req.ToolArgs && req.Terminate:
			return s, nothing("committed; terminate: no continuation")
		case req.NaturalInput || s.InputPending:
			return s, nothing("committed; natural input owns the continuation")
		}
		s.Continuation = req.ID
		return s, []Action{{Kind: ActSendContinuation, RequestID: req.ID, Window: s.Window}}
	case EvCompactionFailed:
		if s.Commit == nil || ev.Marker != s.Commit.Marker {
			return in, nothing("failure of an unknown or finished attempt ignored")
		}
		s.Commit = nil
		return s, nothing("compaction failed; the request is kept for retry")
	case EvCompactionVetoed:
		if s.Commit == nil || ev.Marker != s.Commit.Marker {
			return in, nothing("veto of an unknown or finished attempt ignored")
		}
		s.Commit = nil
		s.Request = nil
		return s, nothing("compaction vetoed; the request is cancelled and the window kept")
	case EvNativeCompaction:
		reqID := uint64(0)
		if s.Request != nil {
			reqID = s.Request.ID
		}
		boot := s.bootAction(reqID)
		// The native compaction is this request's reset: consume it (and
		// orphan any attempt not yet started, whose marker is now stale).
		// The cutoff stays armed until the turn ends or input arrives.
		s.Window++
		s.Warned = false
		s.Request, s.Commit = nil, nil
		return s, []Action{boot}
	case EvManualStop:
		if s.CompactDisabled {
			return in, refuse(msgCompactOff)
		}
		if s.Request != nil {
			s.Request.Stop = true
			return tryStart(s)
		}
		s.Request = s.newRequest(RequestManual)
		s.Request.Stop = true
		if s.TurnRunning || s.InputPending {
			// The running (or about to run) turn is the close-out; the
			// reset starts when it completes.
			return s, nothing("STOP recorded; the current turn is the close-out")
		}
		s.CloseOutPending = true
		return s, []Action{{Kind: ActSubmitCloseOut, RequestID: s.Request.ID}}
	case EvCloseOutFailed:
		if !s.CloseOutPending {
			return in, nothing("no close-out pending")
		}
		s.CloseOutPending = false
		if s.Request != nil && s.Commit == nil {
			s.Request = nil
		}
		return s, nothing("close-out could not be submitted; the request is cancelled so the command can be retried")
	case EvContinuationDropped:
		if s.Continuation == 0 {
			return in, nothing("no continuation outstanding")
		}
		id := s.Continuation
		s.Continuation = 0
		return s, []Action{{Kind: ActReportDropped, RequestID: id,
			Message: "notesoup: the window was reset, but the continuation prompt was dropped; send a message to continue."}}
	case EvBudgetHard:
		if ev.AutoResetOff || s.CompactDisabled {
			return in, nothing("automatic resets are off")
		}
		if s.Request != nil {
			return in, nothing("a reset is already pending")
		}
		s.Request = s.newRequest(RequestBudget)
		if s.TurnRunning {
			s.Cutoff = &Cutoff{RequestID: s.Request.ID}
			return s, nothing("hard point: the turn ends at its next step")
		}
		return tryStart(s)
	}
	return in, refuse(fmt.Sprintf("unknown event %q", ev.Kind))
}

func nothing(msg string) []Action { return []Action{{Kind: ActNothing, Message: msg}} }

func refuse(msg string) []Action { return []Action{{Kind: ActRefuse, Message: msg}} }

func (s *State) newRequest(origin RequestOrigin) *Request {
	r := &Request{ID: s.NextID, Origin: origin, NaturalInput: s.InputPending}
	s.NextID++
	return r
}

// endTurn closes the per-turn lifetime.
func endTurn(s State) State {
	s.TurnRunning = false
	s.Cutoff = nil
	s.CloseOutPending = false
	return s
}

// tryStart starts the reset worker when a request is pending and nothing
// holds it back: no attempt in flight, no running turn, no undelivered
// natural input (which runs first and owns the continuation).
func tryStart(s State) (State, []Action) {
	if s.Request == nil || s.Commit != nil || s.TurnRunning || s.InputPending || s.CompactDisabled || s.CloseOutPending {
		return s, nothing("")
	}
	id := s.NextID
	s.NextID++
	s.Commit = &Commit{Marker: Marker(s.Generation, id), RequestID: s.Request.ID}
	return s, []Action{{Kind: ActRunCompaction, RequestID: s.Request.ID, Marker: s.Commit.Marker}}
}

// Marker builds a compaction attempt's marker: unique per session
// generation and attempt, deterministic from the state.
func Marker(generation, attempt uint64) string {
	return fmt.Sprintf("notesoup-reset:%d:%d", generation, attempt)
}

// bootAction answers a compaction for request id (0: none): the handoff
// pool follows the actual tool origin, chosen once for the new window.
func (s State) bootAction(id uint64) Action {
	pool, last := PoolForced, ""
	if s.Request != nil && s.Request.ID == id && s.Request.ToolArgs {
		pool, last = PoolNormal, s.Request.LastWord
	}
	w := s.Window + 1
	return Action{Kind: ActInstallBoot, RequestID: id, Pool: pool, LastWord: last, Window: w,
		Handoff: HandoffIndex(pool, s.Seed, s.Generation, w)}
}

func sessionChanged(s State, ev Event) (State, []Action) {
	if ev.Session == "" {
		return s, refuse("session_changed needs a session identity")
	}
	if ev.Session == s.Session && s.Generation > 0 {
		s.CompactDisabled = ev.CompactDisabled
		return s, nothing("same session")
	}
	seed := ev.Seed
	if seed == 0 {
		// No randomness supplied: derive it from the identity, so sessions
		// still differ in their handoff choices and Step stays pure.
		h := fnv.New64a()
		h.Write([]byte(ev.Session))
		seed = h.Sum64()
	}
	next := State{
		Version: StateVersion, Session: ev.Session, Generation: s.Generation + 1, Seed: seed,
		NextID: max(s.NextID, 1), CompactDisabled: ev.CompactDisabled,
	}
	return next, nothing("new session: the pending flow is discarded")
}

func resetRequested(in, s State, ev Event) (State, []Action) {
	if ev.Subagent {
		return in, refuse(msgSubagentReset)
	}
	terminate, ok := optionalBool(ev.Terminate)
	if !ok {
		return in, refuse(msgBadTerminate)
	}
	lastWord, ok := optionalString(ev.LastWord)
	if !ok {
		return in, refuse(msgBadLastWord)
	}
	if s.CompactDisabled {
		return in, refuse(msgCompactOff)
	}
	// A tool call happens inside a running main turn.
	s.TurnRunning = true
	fresh := s.Request == nil
	if fresh {
		s.Request = s.newRequest(RequestTool)
	}
	if !s.Request.ToolArgs {
		// The first valid call owns the arguments, including a close-out
		// call or one after a budget request; STOP is kept.
		s.Request.ToolArgs = true
		s.Request.LastWord = lastWord
		s.Request.Terminate = terminate
	}
	// A new request arms a fresh cutoff. A duplicate re-arms a cutoff the
	// turn does not have yet (a retained request called for again in a
	// later turn), but natural input that released this turn's cutoff keeps
	// it released for the rest of the turn.
	if fresh || s.Cutoff == nil {
		s.Cutoff = &Cutoff{RequestID: s.Request.ID}
	}
	return s, nothing("reset requested: the window is emptied when this turn ends")
}

// optionalBool accepts an absent or null argument (false) or a JSON boolean.
func optionalBool(raw json.RawMessage) (bool, bool) {
	t := bytes.TrimSpace(raw)
	switch string(t) {
	case "", "null", "false":
		return false, true
	case "true":
		return true, true
	}
	return false, false
}

// optionalString accepts an absent or null argument ("") or a JSON string.
func optionalString(raw json.RawMessage) (string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", true
	}
	var v string
	if err := json.Unmarshal(t, &v); err != nil {
		return "", false
	}
	return v, true
}
