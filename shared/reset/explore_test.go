package reset

import (
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// exploreDepth is the length of the event sequences TestExhaustive walks.
var exploreDepth = flag.Int("explore.depth", 15, "event sequence depth for TestExhaustive")

// idFlags are the checker's facts about one request id.
type idFlags uint16

const (
	fStop        idFlags = 1 << iota // manual STOP (or a cancelled turn) while it was pending
	fTermSet                         // its first valid tool call was recorded
	fTerm                            // ... with terminate:true
	fNatural                         // natural input was accepted while it was pending
	fOutstanding                     // a compaction attempt for it is in flight
	fDone                            // it was reset (committed or consumed)
	fContinued                       // a continuation was sent for it
	fSeen                            // it has been observed
)

// shadowSlots bounds the request ids the checker tracks. Ids only grow, so
// when the table is full the oldest is forgotten; a 15-event sequence never
// creates that many requests.
const shadowSlots = 8

// shadow is the invariant checker's own record of what happened, kept from
// the events alone (never from the machine's flags), per request id. It is
// a value: copying it is cloning it.
type shadow struct {
	inputPending bool
	ids          [shadowSlots]uint64
	fl           [shadowSlots]idFlags
}

func newShadow() shadow { return shadow{} }

func (sh *shadow) slot(id uint64, create bool) int {
	oldest := 0
	for i, v := range sh.ids {
		if v == id {
			return i
		}
		if sh.ids[i] < sh.ids[oldest] {
			oldest = i
		}
	}
	if !create {
		return -1
	}
	sh.ids[oldest], sh.fl[oldest] = id, 0
	return oldest
}

func (sh *shadow) has(id uint64, f idFlags) bool {
	i := sh.slot(id, false)
	return i >= 0 && sh.fl[i]&f != 0
}

func (sh *shadow) set(id uint64, f idFlags) { i := sh.slot(id, true); sh.fl[i] |= f }

func (sh *shadow) unset(id uint64, f idFlags) {
	if i := sh.slot(id, false); i >= 0 {
		sh.fl[i] &^= f
	}
}

type node struct {
	s          State
	sh         shadow
	lastMarker string
	path       []Event
}

const exploreSeed = 42

// alphabet is every concrete event tried from a node: the whole event
// alphabet with main and subagent variants, valid and invalid tool
// arguments, and compaction results for the current, a stale and a bogus
// marker.
func alphabet(n node) []Event {
	evs := []Event{
		tool("", ""), tool("", "true"), tool(`"lw"`, "false"), tool("", `"yes"`),
		{Kind: EvResetRequested, Subagent: true},
		{Kind: EvTurnStarted, Origin: OriginNatural}, {Kind: EvTurnStarted, Origin: OriginContinuation},
		{Kind: EvTurnStarted, Origin: OriginCloseOut},
		step, subStep,
		completed, {Kind: EvTurnAborted}, {Kind: EvTurnRefused}, {Kind: EvTurnCompleted, Subagent: true},
		{Kind: EvInputAccepted}, {Kind: EvInputDelivered},
		native, {Kind: EvNativeCompaction, Subagent: true},
		stop, {Kind: EvCloseOutFailed}, {Kind: EvContinuationDropped},
		{Kind: EvSessionChanged, Session: n.s.Session, Seed: exploreSeed},
		{Kind: EvSessionChanged, Session: fmt.Sprintf("s%d", n.s.Generation+1), Seed: exploreSeed},
		{Kind: EvBudgetHard}, {Kind: EvBudgetHard, AutoResetOff: true}, {Kind: EvBudgetHard, Subagent: true},
		{Kind: EvWarningDelivered},
		{Kind: EvCapSet, Cap: 100_000}, {Kind: EvCapSet}, {Kind: EvSessionEnded},
		{Kind: EvCompactionStarted}, // a user's /compact
	}
	// One subagent variant of every kind: none may touch the main flow.
	for _, k := range EventKinds {
		evs = append(evs, Event{Kind: k, Subagent: true, Origin: OriginNatural, Session: "sub", Cap: 1000})
	}
	markers := []string{"notesoup-reset:999:999"}
	if n.s.Commit != nil {
		markers = append(markers, n.s.Commit.Marker)
	}
	if n.lastMarker != "" && (n.s.Commit == nil || n.lastMarker != n.s.Commit.Marker) {
		markers = append(markers, n.lastMarker)
	}
	for _, m := range markers {
		evs = append(evs,
			Event{Kind: EvCompactionStarted, Marker: m},
			Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true},
			Event{Kind: EvCompactionCommitted, Marker: m},
			Event{Kind: EvCompactionFailed, Marker: m},
			Event{Kind: EvCompactionVetoed, Marker: m},
		)
	}
	return evs
}

// check verifies one transition against the invariants and returns the
// shadow after it.
func check(n node, ev Event, s2 State, acts []Action) (shadow, error) {
	pre, sh := n.s, n.sh
	if len(acts) == 0 {
		return sh, fmt.Errorf("no action at all")
	}
	if !ev.Subagent && (ev.Kind == EvSessionChanged && ev.Session != pre.Session || ev.Kind == EvSessionEnded) {
		sh = newShadow()
	}
	if ev.Subagent {
		if !reflect.DeepEqual(pre, s2) {
			return sh, fmt.Errorf("a subagent event changed the main flow")
		}
		for _, a := range acts {
			if a.Kind != ActNothing && a.Kind != ActRefuse {
				return sh, fmt.Errorf("a subagent event caused %s", a.Kind)
			}
		}
		return sh, nil
	}
	if ev.Kind == EvResetRequested {
		if _, ok := optionalBool(ev.Terminate); !ok && !reflect.DeepEqual(pre, s2) {
			return sh, fmt.Errorf("a non-boolean terminate was recorded")
		}
	}
	// Shadow bookkeeping from the event.
	matched := pre.Commit != nil && ev.Marker == pre.Commit.Marker
	switch ev.Kind {
	case EvInputAccepted:
		sh.inputPending = true
		if s2.Request != nil {
			sh.set(s2.Request.ID, fNatural)
		}
	case EvInputDelivered:
		sh.inputPending = false
	case EvTurnStarted:
		if ev.Origin == OriginNatural {
			sh.inputPending = false
		}
	case EvManualStop:
		if s2.Request != nil && acts[0].Kind != ActRefuse {
			sh.set(s2.Request.ID, fStop)
		}
	case EvTurnAborted, EvTurnFailed, EvTurnRefused:
		if pre.Commit != nil {
			sh.set(pre.Commit.RequestID, fStop)
		}
	case EvResetRequested:
		if acts[0].Kind != ActRefuse && s2.Request != nil {
			if id := s2.Request.ID; !sh.has(id, fTermSet) {
				sh.set(id, fTermSet)
				if term, _ := optionalBool(ev.Terminate); term {
					sh.set(id, fTerm)
				}
			}
		}
	}
	if s2.Request != nil && !sh.has(s2.Request.ID, fSeen) {
		sh.set(s2.Request.ID, fSeen)
		if sh.inputPending {
			sh.set(s2.Request.ID, fNatural)
		}
	}
	// A reset happens: a matched commit with evidence, or native compaction.
	if ev.Kind == EvCompactionCommitted && matched && ev.Evidence {
		id := pre.Commit.RequestID
		if sh.has(id, fDone) {
			return sh, fmt.Errorf("request %d reset twice", id)
		}
		sh.set(id, fDone)
		sh.unset(id, fOutstanding)
	}
	if ev.Kind == EvNativeCompaction && pre.Request != nil {
		if sh.has(pre.Request.ID, fDone) {
			return sh, fmt.Errorf("request %d reset twice", pre.Request.ID)
		}
		sh.set(pre.Request.ID, fDone)
		sh.unset(pre.Request.ID, fOutstanding)
	}
	if (ev.Kind == EvCompactionFailed || ev.Kind == EvCompactionVetoed) && matched {
		sh.unset(pre.Commit.RequestID, fOutstanding)
	}
	if d := s2.Window - pre.Window; d != 0 && !(d == 1 && (ev.Kind == EvNativeCompaction || ev.Kind == EvCompactionCommitted && matched && ev.Evidence)) {
		if !((ev.Kind == EvSessionChanged || ev.Kind == EvSessionEnded) && s2.Window == 0) {
			return sh, fmt.Errorf("window moved by %d on %s", d, ev.Kind)
		}
	}
	runs := 0
	for _, a := range acts {
		switch a.Kind {
		case ActRunCompaction:
			runs++
			if runs > 1 {
				return sh, fmt.Errorf("two compactions in one step")
			}
			if s2.Request == nil || s2.Commit == nil || a.RequestID != s2.Request.ID || a.Marker != s2.Commit.Marker {
				return sh, fmt.Errorf("run_compaction does not match the recorded attempt")
			}
			if sh.has(a.RequestID, fOutstanding) {
				return sh, fmt.Errorf("second compaction while one is in flight for request %d", a.RequestID)
			}
			if sh.has(a.RequestID, fDone) {
				return sh, fmt.Errorf("compaction for request %d that was already reset", a.RequestID)
			}
			if sh.inputPending {
				return sh, fmt.Errorf("reset work started with undelivered natural input")
			}
			if s2.TurnRunning {
				return sh, fmt.Errorf("reset work started inside a running turn")
			}
			sh.set(a.RequestID, fOutstanding)
		case ActSendContinuation:
			if !(ev.Kind == EvCompactionCommitted && ev.Evidence && matched && a.RequestID == pre.Commit.RequestID) {
				return sh, fmt.Errorf("continuation without a confirmed commit of its request")
			}
			id := a.RequestID
			switch {
			case sh.has(id, fStop):
				return sh, fmt.Errorf("continuation after STOP")
			case sh.has(id, fTerm):
				return sh, fmt.Errorf("continuation after terminate:true")
			case sh.has(id, fNatural) || sh.inputPending:
				return sh, fmt.Errorf("continuation over natural input (replay)")
			case sh.has(id, fContinued):
				return sh, fmt.Errorf("second continuation for request %d", id)
			}
			sh.set(id, fContinued)
		case ActEndTurn:
			if ev.Kind != EvStep {
				return sh, fmt.Errorf("end_turn outside a step")
			}
			if n.sh.inputPending {
				return sh, fmt.Errorf("end_turn at a step that delivers natural input")
			}
		case ActInstallBoot:
			if a.Window != pre.Window+1 {
				return sh, fmt.Errorf("boot for window %d, current %d", a.Window, pre.Window)
			}
			if ev.Kind == EvCompactionStarted && (!matched || sh.has(a.RequestID, fDone)) {
				return sh, fmt.Errorf("boot installed for a stale attempt")
			}
			want := HandoffIndex(a.Pool, pre.Seed, pre.Generation, a.Window)
			if a.Handoff != want {
				return sh, fmt.Errorf("handoff %d, want the window's choice %d", a.Handoff, want)
			}
		case ActNothing, ActRefuse, ActReportDropped, ActSubmitCloseOut:
		default:
			return sh, fmt.Errorf("unknown action %q", a.Kind)
		}
	}
	if err := s2.validate(); err != nil {
		return sh, fmt.Errorf("ill-formed state: %v", err)
	}
	return sh, nil
}

// canonKey is a node's key for pruning: states equal up to renaming of
// request ids, markers, generation, session name, window ordinal and cap
// have the same futures (the cap only moves budget points, which the flow
// never reads), so one of them is explored.
type canonKey struct {
	TurnRunning, CompactDisabled, InputPending, Warned, CloseOutPending bool

	HasReq                                    bool
	ReqID                                     uint8
	ReqOrigin                                 RequestOrigin
	ReqToolArgs, ReqTerm, ReqStop, ReqNatural bool
	ReqLastWord                               string
	HasCommit, CommitStarted                  bool
	CommitReq                                 uint8
	HasCutoff, CutoffReleased                 bool
	CutoffReq, Continuation                   uint8
	StaleMarker, ShadowInput                  bool
	Flags                                     [5]idFlags // by renamed id
}

func canonical(n node) canonKey {
	var k canonKey
	var ids []uint64
	ren := func(id uint64) uint8 {
		if id == 0 {
			return 0
		}
		for i, v := range ids {
			if v == id {
				return uint8(i + 1)
			}
		}
		ids = append(ids, id)
		return uint8(len(ids))
	}
	s := n.s
	k.TurnRunning, k.CompactDisabled, k.InputPending, k.Warned, k.CloseOutPending =
		s.TurnRunning, s.CompactDisabled, s.InputPending, s.Warned, s.CloseOutPending
	if r := s.Request; r != nil {
		k.HasReq, k.ReqID, k.ReqOrigin = true, ren(r.ID), r.Origin
		k.ReqToolArgs, k.ReqTerm, k.ReqStop, k.ReqNatural, k.ReqLastWord = r.ToolArgs, r.Terminate, r.Stop, r.NaturalInput, r.LastWord
	}
	if c := s.Commit; c != nil {
		k.HasCommit, k.CommitStarted, k.CommitReq = true, c.Started, ren(c.RequestID)
	}
	if c := s.Cutoff; c != nil {
		k.HasCutoff, k.CutoffReleased, k.CutoffReq = true, c.Released, ren(c.RequestID)
	}
	k.Continuation = ren(s.Continuation)
	k.StaleMarker = n.lastMarker != "" && (s.Commit == nil || n.lastMarker != s.Commit.Marker)
	k.ShadowInput = n.sh.inputPending
	for i, id := range ids {
		if j := n.sh.slot(id, false); j >= 0 {
			k.Flags[i+1] = n.sh.fl[j]
		}
	}
	return k
}

// TestCanonKeyCoversState fails when State gains a field, so the pruning
// key is reviewed with it (a field left out would merge states whose
// futures differ).
func TestCanonKeyCoversState(t *testing.T) {
	const known = "Version Session Generation Seed Window NextID TurnRunning CompactDisabled InputPending Warned CloseOutPending Request Commit Cutoff Continuation Cap"
	var names []string
	st := reflect.TypeOf(State{})
	for i := range st.NumField() {
		names = append(names, st.Field(i).Name)
	}
	if got := strings.Join(names, " "); got != known {
		t.Fatalf("State fields changed:\n got  %s\n want %s\nupdate canonKey, then this list", got, known)
	}
}

// TestExhaustive walks every event sequence up to exploreDepth (pruning
// states already explored at a smaller depth) and checks the invariants:
// never two compactions for one request, never a continuation without a
// confirmed commit, never a continuation after STOP or terminate:true, never
// a reset from a subagent, never replayed input.
func TestExhaustive(t *testing.T) {
	root := node{s: NewState("s1", exploreSeed), sh: newShadow()}
	seen := map[canonKey]bool{canonical(root): true}
	frontier := []node{root}
	transitions, stepsSkippable := 0, 0
	for depth := 1; depth <= *exploreDepth; depth++ {
		var next []node
		for _, n := range frontier {
			if !n.s.StepNeeded() {
				// The harnesses leave step events out in such a state:
				// a step must change nothing and ask for nothing.
				stepsSkippable++
				if err := stepIsNoop(n.s); err != nil {
					t.Fatalf("StepNeeded is false but %v\n  sequence: %s", err, describe(n.path))
				}
			}
			for _, ev := range alphabet(n) {
				s2, acts := Step(n.s, ev)
				transitions++
				sh, err := check(n, ev, s2, acts)
				if err != nil {
					t.Fatalf("invariant broken at depth %d: %v\n  sequence: %s\n  then: %s\n  actions: %+v",
						depth, err, describe(n.path), describe([]Event{ev}), acts)
				}
				child := node{s: s2, sh: sh, lastMarker: n.lastMarker}
				for _, a := range acts {
					if a.Kind == ActRunCompaction {
						child.lastMarker = a.Marker
					}
				}
				if k := canonical(child); !seen[k] {
					seen[k] = true
					child.path = append(slices.Clip(n.path), ev)
					next = append(next, child)
				}
			}
		}
		frontier = next
		if len(frontier) == 0 {
			t.Logf("state space closed at depth %d", depth)
			break
		}
	}
	t.Logf("depth %d: %d transitions checked, %d distinct states, %d where a step may be left out", *exploreDepth, transitions, len(seen), stepsSkippable)
	if len(seen) < 100 {
		t.Fatalf("only %d states reached: the alphabet does not exercise the flow", len(seen))
	}
	if stepsSkippable == 0 {
		t.Fatalf("no state let a step be left out: StepNeeded was never checked")
	}
}

// stepIsNoop says how a main step event would matter in s, or nil when it
// would not: the same state (as persisted) and no action beyond a silent
// nothing.
func stepIsNoop(s State) error {
	next, acts := Step(s, Event{Kind: EvStep})
	before, _ := json.Marshal(s)
	after, _ := json.Marshal(next)
	if string(before) != string(after) {
		return fmt.Errorf("a step changes the state:\n  before %s\n  after  %s", before, after)
	}
	for _, a := range acts {
		if a.Kind != ActNothing || a.Message != "" {
			return fmt.Errorf("a step asks for %+v", a)
		}
	}
	return nil
}

func describe(evs []Event) string {
	out := ""
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		out += string(b) + " "
	}
	return out
}
