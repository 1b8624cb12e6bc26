package reset

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// exploreDepth is the length of the event sequences TestExhaustive walks.
var exploreDepth = flag.Int("explore.depth", 15, "event sequence depth for TestExhaustive")

// shadow is the invariant checker's own record of what happened, kept from
// the events alone (never from the machine's flags), per request id.
type shadow struct {
	inputPending bool
	stop         map[uint64]bool
	firstTerm    map[uint64]bool // present once the first valid tool call was recorded
	natural      map[uint64]bool
	outstanding  map[uint64]bool
	done         map[uint64]bool
	continued    map[uint64]bool
	seen         map[uint64]bool
}

func newShadow() shadow {
	return shadow{stop: map[uint64]bool{}, firstTerm: map[uint64]bool{}, natural: map[uint64]bool{},
		outstanding: map[uint64]bool{}, done: map[uint64]bool{}, continued: map[uint64]bool{}, seen: map[uint64]bool{}}
}

func (sh shadow) clone() shadow {
	return shadow{inputPending: sh.inputPending, stop: maps.Clone(sh.stop), firstTerm: maps.Clone(sh.firstTerm),
		natural: maps.Clone(sh.natural), outstanding: maps.Clone(sh.outstanding), done: maps.Clone(sh.done),
		continued: maps.Clone(sh.continued), seen: maps.Clone(sh.seen)}
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
	pre, sh := n.s, n.sh.clone()
	if len(acts) == 0 {
		return sh, fmt.Errorf("no action at all")
	}
	if ev.Kind == EvSessionChanged && ev.Session != pre.Session || ev.Kind == EvSessionEnded {
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
			sh.natural[s2.Request.ID] = true
		}
	case EvInputDelivered:
		sh.inputPending = false
	case EvTurnStarted:
		if ev.Origin == OriginNatural {
			sh.inputPending = false
		}
	case EvManualStop:
		if s2.Request != nil && acts[0].Kind != ActRefuse {
			sh.stop[s2.Request.ID] = true
		}
	case EvTurnAborted, EvTurnFailed, EvTurnRefused:
		if pre.Commit != nil {
			sh.stop[pre.Commit.RequestID] = true
		}
	case EvResetRequested:
		if acts[0].Kind != ActRefuse && s2.Request != nil {
			if _, ok := sh.firstTerm[s2.Request.ID]; !ok {
				term, _ := optionalBool(ev.Terminate)
				sh.firstTerm[s2.Request.ID] = term
			}
		}
	}
	if s2.Request != nil && !sh.seen[s2.Request.ID] {
		sh.seen[s2.Request.ID] = true
		if sh.inputPending {
			sh.natural[s2.Request.ID] = true
		}
	}
	// A reset happens: a matched commit with evidence, or native compaction.
	if ev.Kind == EvCompactionCommitted && matched && ev.Evidence {
		id := pre.Commit.RequestID
		if sh.done[id] {
			return sh, fmt.Errorf("request %d reset twice", id)
		}
		sh.done[id] = true
		sh.outstanding[id] = false
	}
	if ev.Kind == EvNativeCompaction && pre.Request != nil {
		if sh.done[pre.Request.ID] {
			return sh, fmt.Errorf("request %d reset twice", pre.Request.ID)
		}
		sh.done[pre.Request.ID] = true
		sh.outstanding[pre.Request.ID] = false
	}
	if (ev.Kind == EvCompactionFailed || ev.Kind == EvCompactionVetoed) && matched {
		sh.outstanding[pre.Commit.RequestID] = false
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
			if sh.outstanding[a.RequestID] {
				return sh, fmt.Errorf("second compaction while one is in flight for request %d", a.RequestID)
			}
			if sh.done[a.RequestID] {
				return sh, fmt.Errorf("compaction for request %d that was already reset", a.RequestID)
			}
			if sh.inputPending {
				return sh, fmt.Errorf("reset work started with undelivered natural input")
			}
			if s2.TurnRunning {
				return sh, fmt.Errorf("reset work started inside a running turn")
			}
			sh.outstanding[a.RequestID] = true
		case ActSendContinuation:
			if !(ev.Kind == EvCompactionCommitted && ev.Evidence && matched && a.RequestID == pre.Commit.RequestID) {
				return sh, fmt.Errorf("continuation without a confirmed commit of its request")
			}
			id := a.RequestID
			switch {
			case sh.stop[id]:
				return sh, fmt.Errorf("continuation after STOP")
			case sh.firstTerm[id]:
				return sh, fmt.Errorf("continuation after terminate:true")
			case sh.natural[id] || sh.inputPending:
				return sh, fmt.Errorf("continuation over natural input (replay)")
			case sh.continued[id]:
				return sh, fmt.Errorf("second continuation for request %d", id)
			}
			sh.continued[id] = true
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
			if ev.Kind == EvCompactionStarted && (!matched || sh.done[a.RequestID]) {
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

// canonical is a node's key for pruning: states equal up to renaming of
// request ids, markers, generation and window ordinal have the same
// futures, so one is explored.
func canonical(n node) string {
	s := n.s.Clone()
	ids := map[uint64]uint64{}
	ren := func(id uint64) uint64 {
		if id == 0 {
			return 0
		}
		if _, ok := ids[id]; !ok {
			ids[id] = uint64(len(ids) + 1)
		}
		return ids[id]
	}
	if s.Request != nil {
		s.Request.ID = ren(s.Request.ID)
	}
	if s.Commit != nil {
		s.Commit.RequestID = ren(s.Commit.RequestID)
		s.Commit.Marker = "current"
	}
	if s.Cutoff != nil {
		s.Cutoff.RequestID = ren(s.Cutoff.RequestID)
	}
	s.Continuation = ren(s.Continuation)
	// The cap only moves the budget points, which the flow never reads.
	s.NextID, s.Generation, s.Window, s.Session, s.Cap = 0, 0, 0, "", 0
	last := ""
	if n.lastMarker != "" && (n.s.Commit == nil || n.lastMarker != n.s.Commit.Marker) {
		last = "stale"
	}
	type flags struct{ Stop, Natural, Outstanding, Done, Continued, Seen, HasTerm, Term bool }
	sh := map[uint64]flags{}
	for old, nw := range ids {
		t, has := n.sh.firstTerm[old]
		sh[nw] = flags{n.sh.stop[old], n.sh.natural[old], n.sh.outstanding[old], n.sh.done[old], n.sh.continued[old], n.sh.seen[old], has, t}
	}
	b, _ := json.Marshal(struct {
		S     State
		Last  string
		Input bool
		Sh    map[uint64]flags
	}{s, last, n.sh.inputPending, sh})
	return string(b)
}

// TestExhaustive walks every event sequence up to exploreDepth (pruning
// states already explored at a smaller depth) and checks the invariants:
// never two compactions for one request, never a continuation without a
// confirmed commit, never a continuation after STOP or terminate:true, never
// a reset from a subagent, never replayed input.
func TestExhaustive(t *testing.T) {
	root := node{s: NewState("s1", exploreSeed), sh: newShadow()}
	seen := map[string]bool{canonical(root): true}
	frontier := []node{root}
	transitions := 0
	for depth := 1; depth <= *exploreDepth; depth++ {
		var next []node
		for _, n := range frontier {
			for _, ev := range alphabet(n) {
				s2, acts := Step(n.s, ev)
				transitions++
				sh, err := check(n, ev, s2, acts)
				if err != nil {
					t.Fatalf("invariant broken at depth %d: %v\n  sequence: %s\n  then: %s\n  actions: %+v",
						depth, err, describe(n.path), describe([]Event{ev}), acts)
				}
				child := node{s: s2, sh: sh, lastMarker: n.lastMarker, path: append(slices.Clip(n.path), ev)}
				for _, a := range acts {
					if a.Kind == ActRunCompaction {
						child.lastMarker = a.Marker
					}
				}
				if k := canonical(child); !seen[k] {
					seen[k] = true
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
	t.Logf("depth %d: %d transitions checked, %d distinct states", *exploreDepth, transitions, len(seen))
	if len(seen) < 100 {
		t.Fatalf("only %d states reached: the alphabet does not exercise the flow", len(seen))
	}
}

func describe(evs []Event) string {
	out := ""
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		out += string(b) + " "
	}
	return out
}
