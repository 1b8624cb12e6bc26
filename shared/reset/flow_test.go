package reset

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// run feeds events to Step from a fresh state and returns the final state
// and every action, in order, with its event index.
func run(t *testing.T, s State, evs ...Event) (State, [][]Action) {
	t.Helper()
	var all [][]Action
	for _, ev := range evs {
		var acts []Action
		s, acts = Step(s, ev)
		all = append(all, acts)
	}
	return s, all
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func kinds(acts [][]Action) []ActionKind {
	var out []ActionKind
	for _, as := range acts {
		for _, a := range as {
			if a.Kind != ActNothing {
				out = append(out, a.Kind)
			}
		}
	}
	return out
}

func find(acts [][]Action, k ActionKind) []Action {
	var out []Action
	for _, as := range acts {
		for _, a := range as {
			if a.Kind == k {
				out = append(out, a)
			}
		}
	}
	return out
}

var (
	start     = Event{Kind: EvTurnStarted, Origin: OriginNatural}
	step      = Event{Kind: EvStep}
	subStep   = Event{Kind: EvStep, Subagent: true}
	completed = Event{Kind: EvTurnCompleted}
	native    = Event{Kind: EvNativeCompaction}
	stop      = Event{Kind: EvManualStop}
)

func tool(lastWord, terminate string) Event {
	ev := Event{Kind: EvResetRequested}
	if lastWord != "" {
		ev.LastWord = raw(lastWord)
	}
	if terminate != "" {
		ev.Terminate = raw(terminate)
	}
	return ev
}

// commitFlow drives a state that has just emitted run_compaction through
// start and a committed-with-evidence result, returning the actions.
func commitFlow(t *testing.T, s State) (State, [][]Action) {
	t.Helper()
	if s.Commit == nil {
		t.Fatalf("no compaction attempt in flight: %+v", s)
	}
	m := s.Commit.Marker
	return run(t, s, Event{Kind: EvCompactionStarted, Marker: m}, Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true})
}

func TestTerminateOptionalDefaultExplicit(t *testing.T) {
	cases := []struct {
		name         string
		terminate    string
		continuation bool
	}{
		{"omitted defaults to false", "", true},
		{"null is omitted", "null", true},
		{"explicit false", "false", true},
		{"explicit true", "true", false},
		{"explicit true with spaces", " true ", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, acts := run(t, NewState("s", 7), start, tool(`"next: run tests"`, c.terminate), step, completed)
			if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActEndTurn, ActRunCompaction}) {
				t.Fatalf("actions %v, want end_turn then run_compaction", got)
			}
			s, acts = commitFlow(t, s)
			boot := find(acts, ActInstallBoot)
			if len(boot) != 1 || boot[0].Pool != PoolNormal || boot[0].LastWord != "next: run tests" || boot[0].Window != 1 {
				t.Fatalf("boot %+v, want one normal boot for window 1 with the sticky", boot)
			}
			if got := len(find(acts, ActSendContinuation)) == 1; got != c.continuation {
				t.Fatalf("continuation %v, want %v (actions %v)", got, c.continuation, kinds(acts))
			}
			if s.Window != 1 || s.Request != nil || s.Commit != nil {
				t.Fatalf("after commit: %+v", s)
			}
		})
	}
}

func TestInvalidArgumentsRefusedBeforeRecording(t *testing.T) {
	for _, bad := range []Event{
		tool("", `"true"`), tool("", `1`), tool("", `"yes"`), tool("", `{}`), tool("", `[true]`),
		tool(`42`, ""), tool(`{"a":1}`, "false"),
	} {
		s0, _ := run(t, NewState("s", 1), start)
		s, acts := run(t, s0, bad)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRefuse}) {
			t.Fatalf("%s/%s: actions %v, want refuse", bad.LastWord, bad.Terminate, got)
		}
		if !reflect.DeepEqual(s, s0) {
			t.Fatalf("%s/%s: state changed on refusal: %+v", bad.LastWord, bad.Terminate, s)
		}
		if msg := acts[0][0].Message; !strings.Contains(msg, "nothing was recorded") {
			t.Fatalf("refusal message %q does not say nothing was recorded", msg)
		}
	}
	// A refused call does not own the arguments: the next valid one does.
	s, _ := run(t, NewState("s", 1), start, tool(`"A"`, `"true"`), tool(`"B"`, "true"))
	if s.Request == nil || s.Request.LastWord != "B" || !s.Request.Terminate {
		t.Fatalf("request after invalid then valid call: %+v", s.Request)
	}
}

func TestFirstValidCallWinsArguments(t *testing.T) {
	s, acts := run(t, NewState("s", 1), start, tool(`"first"`, "false"), tool(`"second"`, "true"), step, completed)
	if s.Request.LastWord != "first" || s.Request.Terminate {
		t.Fatalf("request %+v, want the first call's arguments", s.Request)
	}
	if n := len(find(acts, ActRunCompaction)); n != 1 {
		t.Fatalf("%d compactions, want 1", n)
	}
	_, acts = commitFlow(t, s)
	if len(find(acts, ActSendContinuation)) != 1 {
		t.Fatalf("second call's terminate:true replaced the first's false")
	}
}

func TestDuplicateCutoff(t *testing.T) {
	// Natural input releases the cutoff for the rest of the turn: a
	// duplicate call in the same turn does not re-arm it.
	s, acts := run(t, NewState("s", 1), start, tool("", ""), Event{Kind: EvInputAccepted}, step, Event{Kind: EvInputDelivered}, step)
	if len(find(acts, ActEndTurn)) != 0 {
		t.Fatalf("natural input did not release the cutoff: %v", kinds(acts))
	}
	s, acts = run(t, s, tool(`"again"`, ""), step)
	if len(find(acts, ActEndTurn)) != 0 || s.Request.LastWord != "" {
		t.Fatalf("a duplicate re-armed a released cutoff or replaced the arguments: %v %+v", kinds(acts), s.Request)
	}
	// A retained request called for again in a later turn re-arms it.
	s, _ = run(t, NewState("s", 1), start, tool("", ""), step, completed)
	m := s.Commit.Marker
	s, _ = run(t, s, Event{Kind: EvCompactionFailed, Marker: m}, start, step)
	_, acts = run(t, s, tool("", ""), step)
	if len(find(acts, ActEndTurn)) != 1 {
		t.Fatalf("a duplicate in a later turn did not re-arm the cutoff: %v", kinds(acts))
	}
	// After a native compaction consumed the request, a new call in the same
	// turn is a new request with its own fresh cutoff, even after input
	// released the old one.
	s, _ = run(t, NewState("s", 1), start, tool("", "true"), native, Event{Kind: EvInputAccepted}, step, Event{Kind: EvInputDelivered})
	s, acts = run(t, s, tool(`"new"`, ""), step)
	if len(find(acts, ActEndTurn)) != 1 || s.Request.LastWord != "new" || s.Request.Terminate {
		t.Fatalf("new request after consumption: %v %+v", kinds(acts), s.Request)
	}
}

func TestManualStop(t *testing.T) {
	t.Run("busy after a tool request: no continuation", func(t *testing.T) {
		s, _ := run(t, NewState("s", 1), start, tool(`"w"`, "false"), stop, step, completed)
		_, acts := commitFlow(t, s)
		if len(find(acts, ActSendContinuation)) != 0 {
			t.Fatalf("continuation after STOP: %v", kinds(acts))
		}
	})
	t.Run("idle: one close-out, then reset without continuation", func(t *testing.T) {
		s, acts := run(t, NewState("s", 1), stop)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActSubmitCloseOut}) {
			t.Fatalf("actions %v, want submit_closeout", got)
		}
		// The close-out model calls the tool: it selects the normal pool and
		// sticky, but cannot undo STOP.
		s, acts = run(t, s, Event{Kind: EvTurnStarted, Origin: OriginCloseOut}, tool(`"saved"`, "false"), step, completed)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActEndTurn, ActRunCompaction}) {
			t.Fatalf("close-out actions %v", got)
		}
		_, acts = commitFlow(t, s)
		boot := find(acts, ActInstallBoot)
		if len(boot) != 1 || boot[0].Pool != PoolNormal || boot[0].LastWord != "saved" {
			t.Fatalf("boot %+v, want normal pool with the close-out's sticky", boot)
		}
		if len(find(acts, ActSendContinuation)) != 0 {
			t.Fatalf("continuation after STOP")
		}
	})
	t.Run("idle close-out without a tool call uses the forced pool", func(t *testing.T) {
		s, _ := run(t, NewState("s", 1), stop, Event{Kind: EvTurnStarted, Origin: OriginCloseOut}, step, completed)
		_, acts := commitFlow(t, s)
		if b := find(acts, ActInstallBoot); len(b) != 1 || b[0].Pool != PoolForced {
			t.Fatalf("boot %+v, want forced pool", b)
		}
	})
	t.Run("STOP on an in-flight reset", func(t *testing.T) {
		s, _ := run(t, NewState("s", 1), start, tool("", ""), step, completed)
		s, acts := run(t, s, stop)
		if len(find(acts, ActRunCompaction)) != 0 {
			t.Fatalf("STOP started a second compaction")
		}
		_, acts = commitFlow(t, s)
		if len(find(acts, ActSendContinuation)) != 0 {
			t.Fatalf("continuation after STOP of an in-flight reset")
		}
	})
	t.Run("submission failure cancels so the command can retry", func(t *testing.T) {
		s, _ := run(t, NewState("s", 1), stop, Event{Kind: EvCloseOutFailed})
		if s.Request != nil || s.CloseOutPending {
			t.Fatalf("request kept after close-out failure: %+v", s)
		}
		_, acts := run(t, s, stop)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActSubmitCloseOut}) {
			t.Fatalf("retry actions %v", got)
		}
	})
}

func TestStopConsumedByNativeCompaction(t *testing.T) {
	s, acts := run(t, NewState("s", 1), start, tool(`"w"`, ""), stop, native)
	boot := find(acts, ActInstallBoot)
	if len(boot) != 1 || boot[0].Pool != PoolNormal || boot[0].Window != 1 {
		t.Fatalf("native compaction boot %+v", boot)
	}
	if s.Request != nil || !s.CutoffArmed() {
		t.Fatalf("native compaction must consume the request and keep the cutoff: %+v", s)
	}
	// Further automatic compaction does not disarm the cutoff; the next step
	// still ends the turn; turn completion starts nothing.
	s, acts = run(t, s, native, step, completed)
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActInstallBoot, ActEndTurn}) {
		t.Fatalf("actions %v, want a second boot then end_turn and no compaction", got)
	}
	// A new request owns its own policy: the consumed STOP does not carry.
	s, _ = run(t, s, start, tool(`"new"`, ""), step, completed)
	_, acts = commitFlow(t, s)
	if len(find(acts, ActSendContinuation)) != 1 {
		t.Fatalf("consumed STOP carried into the new request: %v", kinds(acts))
	}
}

func TestNativeCompactionCutoffReleasedByInput(t *testing.T) {
	s, _ := run(t, NewState("s", 1), start, tool("", ""), native, Event{Kind: EvInputAccepted}, Event{Kind: EvInputDelivered})
	_, acts := run(t, s, step, step, completed)
	if got := kinds(acts); len(got) != 0 {
		t.Fatalf("actions %v after input released a consumed request's cutoff", got)
	}
}

func TestNaturalInput(t *testing.T) {
	t.Run("within the running turn: releases the cutoff and owns the continuation", func(t *testing.T) {
		s, acts := run(t, NewState("s", 1), start, Event{Kind: EvInputAccepted}, tool("", "false"), step, Event{Kind: EvInputDelivered}, step, step, completed)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRunCompaction}) {
			t.Fatalf("actions %v, want only run_compaction at turn end", got)
		}
		_, acts = commitFlow(t, s)
		if len(find(acts, ActSendContinuation)) != 0 {
			t.Fatalf("continuation although natural input owns it")
		}
	})
	t.Run("queued input delays the reset until its turn ran", func(t *testing.T) {
		s, acts := run(t, NewState("s", 1), start, tool("", ""), step, Event{Kind: EvInputAccepted}, completed)
		if len(find(acts, ActRunCompaction)) != 0 {
			t.Fatalf("reset started with undelivered input: %v", kinds(acts))
		}
		s, acts = run(t, s, start, step, completed)
		if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRunCompaction}) {
			t.Fatalf("queued natural turn actions %v, want it to run normally then reset", got)
		}
		_, acts = commitFlow(t, s)
		if len(find(acts, ActSendContinuation)) != 0 {
			t.Fatalf("continuation replays over natural input")
		}
	})
}

func TestFailedCommitKeepsRequestAndHandoff(t *testing.T) {
	s, _ := run(t, NewState("s", 99), start, tool(`"w"`, ""), step, completed)
	m1 := s.Commit.Marker
	s, acts := run(t, s, Event{Kind: EvCompactionStarted, Marker: m1}, Event{Kind: EvCompactionFailed, Marker: m1})
	first := find(acts, ActInstallBoot)[0]
	if s.Request == nil || s.Commit != nil || s.Window != 0 {
		t.Fatalf("after failure: %+v", s)
	}
	s, acts = run(t, s, start, step, completed)
	run2 := find(acts, ActRunCompaction)
	if len(run2) != 1 || run2[0].Marker == m1 {
		t.Fatalf("retry %+v, want one new attempt with a new marker", run2)
	}
	// The stale marker cannot commit or start anything.
	s, acts = run(t, s, Event{Kind: EvCompactionCommitted, Marker: m1, Evidence: true}, Event{Kind: EvCompactionStarted, Marker: m1})
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRefuse}) || s.Window != 0 {
		t.Fatalf("stale marker actions %v window %d", got, s.Window)
	}
	_, acts = commitFlow(t, s)
	second := find(acts, ActInstallBoot)[0]
	if second.Handoff != first.Handoff || second.Pool != first.Pool || second.Window != first.Window {
		t.Fatalf("retry chose another handoff: %+v vs %+v", second, first)
	}
	if len(find(acts, ActSendContinuation)) != 1 {
		t.Fatalf("no continuation after the retried commit")
	}
}

func TestReceiptIsNotEvidence(t *testing.T) {
	s, _ := run(t, NewState("s", 1), start, tool("", ""), step, completed)
	m := s.Commit.Marker
	s, acts := run(t, s, Event{Kind: EvCompactionStarted, Marker: m}, Event{Kind: EvCompactionCommitted, Marker: m})
	if len(find(acts, ActSendContinuation)) != 0 || s.Window != 0 || s.Commit == nil {
		t.Fatalf("a receipt without evidence committed: %v %+v", kinds(acts), s)
	}
	_, acts = run(t, s, Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true})
	if len(find(acts, ActSendContinuation)) != 1 {
		t.Fatalf("deferred kept rows did not commit")
	}
}

func TestVetoCancelsWithoutAdvancing(t *testing.T) {
	s, _ := run(t, NewState("s", 1), start, tool("", ""), step, completed)
	m := s.Commit.Marker
	s, acts := run(t, s, Event{Kind: EvCompactionVetoed, Marker: m}, Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true})
	if s.Request != nil || s.Window != 0 || len(find(acts, ActSendContinuation)) != 0 {
		t.Fatalf("veto: %+v %v", s, kinds(acts))
	}
}

func TestAbortedFailedRefusedTurnsCancel(t *testing.T) {
	for _, k := range []EventKind{EvTurnAborted, EvTurnFailed, EvTurnRefused} {
		s, acts := run(t, NewState("s", 1), start, tool("", ""), Event{Kind: k}, start, step, completed)
		if s.Request != nil || len(kinds(acts)) != 0 {
			t.Fatalf("%s: request survived or acted: %+v %v", k, s.Request, kinds(acts))
		}
		s, acts = run(t, NewState("s", 1), start, Event{Kind: EvBudgetHard}, Event{Kind: k}, completed)
		if s.Request != nil || len(find(acts, ActRunCompaction)) != 0 {
			t.Fatalf("%s: budget reset committed after a %s turn", k, k)
		}
	}
}

func TestSessionChangeDiscardsByGeneration(t *testing.T) {
	s, _ := run(t, NewState("a", 1), start, tool("", ""), step, completed)
	m := s.Commit.Marker
	s, acts := run(t, s, Event{Kind: EvSessionChanged, Session: "b", Seed: 5},
		Event{Kind: EvCompactionStarted, Marker: m}, Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true})
	if s.Request != nil || s.Generation != 2 || s.Session != "b" || s.Window != 0 {
		t.Fatalf("after session change: %+v", s)
	}
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRefuse}) {
		t.Fatalf("old attempt's events: %v, want only the veto of its compaction", got)
	}
	// Re-reading the same identity changes nothing.
	s2, _ := Step(s, Event{Kind: EvSessionChanged, Session: "b", Seed: 9})
	if s2.Generation != 2 || s2.Seed != 5 {
		t.Fatalf("same identity started a new generation: %+v", s2)
	}
}

func TestSubagentsCannotReset(t *testing.T) {
	s0, _ := run(t, NewState("s", 1), start)
	s, acts := run(t, s0, Event{Kind: EvResetRequested, Subagent: true}, Event{Kind: EvBudgetHard, Subagent: true},
		Event{Kind: EvNativeCompaction, Subagent: true}, Event{Kind: EvTurnCompleted, Subagent: true})
	if !reflect.DeepEqual(s, s0) {
		t.Fatalf("subagent events changed the state: %+v", s)
	}
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRefuse}) {
		t.Fatalf("actions %v, want only the tool refusal", got)
	}
	// A subagent's steps pass through an armed cutoff; the main step ends.
	_, acts = run(t, s, tool("", ""), subStep, subStep, step)
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActEndTurn}) {
		t.Fatalf("actions %v, want one end_turn on the main step", got)
	}
}

func TestBudgetReset(t *testing.T) {
	s, acts := run(t, NewState("s", 3), start, step, Event{Kind: EvBudgetHard}, Event{Kind: EvBudgetHard}, step, completed)
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActEndTurn, ActRunCompaction}) {
		t.Fatalf("actions %v", got)
	}
	_, acts = commitFlow(t, s)
	if b := find(acts, ActInstallBoot); len(b) != 1 || b[0].Pool != PoolForced {
		t.Fatalf("boot %+v, want forced", b)
	}
	if len(find(acts, ActSendContinuation)) != 1 {
		t.Fatalf("budget reset did not continue once")
	}
	// Idle crossing starts the worker at once; auto-reset off never does.
	_, acts = run(t, NewState("s", 3), Event{Kind: EvBudgetHard})
	if len(find(acts, ActRunCompaction)) != 1 {
		t.Fatalf("idle crossing: %v", kinds(acts))
	}
	s, acts = run(t, NewState("s", 3), start, Event{Kind: EvBudgetHard, AutoResetOff: true}, step, completed)
	if len(kinds(acts)) != 0 || s.Request != nil {
		t.Fatalf("auto reset off still reset: %v", kinds(acts))
	}
}

func TestCompactDisabled(t *testing.T) {
	s, _ := run(t, NewState("s", 1), Event{Kind: EvSessionChanged, Session: "s", CompactDisabled: true})
	_, acts := run(t, s, start, tool("", ""), stop, Event{Kind: EvBudgetHard}, step, completed)
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActRefuse, ActRefuse}) {
		t.Fatalf("actions %v, want the tool and /empty refused and nothing else", got)
	}
}

func TestUserCompactVetoed(t *testing.T) {
	_, acts := run(t, NewState("s", 1), Event{Kind: EvCompactionStarted})
	if a := acts[0][0]; a.Kind != ActRefuse || !strings.Contains(a.Message, "/empty") {
		t.Fatalf("user /compact: %+v", a)
	}
}

func TestContinuationDroppedReportedOnce(t *testing.T) {
	s, _ := run(t, NewState("s", 1), start, tool("", ""), step, completed)
	s, _ = commitFlow(t, s)
	s, acts := run(t, s, Event{Kind: EvContinuationDropped}, Event{Kind: EvContinuationDropped})
	if got := kinds(acts); !reflect.DeepEqual(got, []ActionKind{ActReportDropped}) {
		t.Fatalf("actions %v, want one report and no compaction", got)
	}
	if s.Window != 1 || s.Request != nil {
		t.Fatalf("state after drop: %+v", s)
	}
}

func TestStepIsPure(t *testing.T) {
	s, _ := run(t, NewState("s", 1), start, tool(`"w"`, ""), step, completed)
	snapshot := s.Clone()
	m := s.Commit.Marker
	a1s, a1 := Step(s, Event{Kind: EvCompactionStarted, Marker: m})
	a2s, a2 := Step(s, Event{Kind: EvCompactionStarted, Marker: m})
	if !reflect.DeepEqual(s, snapshot) {
		t.Fatalf("Step mutated its input")
	}
	if !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(a1s, a2s) {
		t.Fatalf("Step is not deterministic")
	}
}

func TestCapLifetime(t *testing.T) {
	s, acts := run(t, NewState("s", 1), Event{Kind: EvCapSet, Cap: 100_000}, start, tool("", "true"), step, completed)
	if s.Cap != 100_000 {
		t.Fatalf("cap %d", s.Cap)
	}
	// The cap survives the rollover; a change keeps the pending policy.
	s, _ = run(t, s, Event{Kind: EvCapSet, Cap: 150_000})
	s, acts = commitFlow(t, s)
	if s.Cap != 150_000 || len(find(acts, ActSendContinuation)) != 0 {
		t.Fatalf("after rollover cap %d, actions %v", s.Cap, kinds(acts))
	}
	// Off clears it; out of range is refused.
	s2, _ := Step(s, Event{Kind: EvCapSet})
	if s2.Cap != 0 {
		t.Fatalf("cap off left %d", s2.Cap)
	}
	if _, a := Step(s, Event{Kind: EvCapSet, Cap: -1}); a[0].Kind != ActRefuse {
		t.Fatalf("negative cap accepted")
	}
	// A new identity or the end of the session clears it and the flow.
	s3, _ := Step(s, Event{Kind: EvSessionChanged, Session: "other"})
	if s3.Cap != 0 {
		t.Fatalf("cap survived a new session identity")
	}
	s4, _ := run(t, s, start, tool("", ""), step, completed)
	m, window := s4.Commit.Marker, s4.Window
	s4, acts = run(t, s4, Event{Kind: EvSessionEnded}, Event{Kind: EvCompactionStarted, Marker: m},
		Event{Kind: EvCompactionCommitted, Marker: m, Evidence: true})
	// The stale commit neither advances the (kept) window nor continues.
	if s4.Cap != 0 || s4.Request != nil || s4.Window != window || len(find(acts, ActSendContinuation)) != 0 {
		t.Fatalf("after session end: %+v %v", s4, kinds(acts))
	}
}

func TestSessionSeed(t *testing.T) {
	a, _ := Step(NewState("x", 1), Event{Kind: EvSessionChanged, Session: "a"})
	b, _ := Step(NewState("x", 1), Event{Kind: EvSessionChanged, Session: "b"})
	a2, _ := Step(NewState("y", 9), Event{Kind: EvSessionChanged, Session: "a"})
	if a.Seed == 0 || a.Seed == b.Seed || a.Seed != a2.Seed {
		t.Fatalf("seeds a=%d b=%d a again=%d: want non-zero, per identity, reproducible", a.Seed, b.Seed, a2.Seed)
	}
	c, _ := Step(NewState("x", 1), Event{Kind: EvSessionChanged, Session: "a", Seed: 77})
	if c.Seed != 77 {
		t.Fatalf("a supplied seed was not used: %d", c.Seed)
	}
}

// TestSessionEndKeepsWindow: a resumed session continues in the window it
// ended in, so the next reset's boot is numbered after it (the Claude mod
// and the Pi extension both saw ":1" again after a resume).
func TestSessionEndKeepsWindow(t *testing.T) {
	s := NewState("s", 1)
	s.Window, s.Warned, s.Cap = 3, true, 100_000
	s.Request = &Request{ID: 1}
	next, _ := Step(s, Event{Kind: EvSessionEnded})
	if next.Window != 3 || !next.Warned {
		t.Fatalf("window %d warned %v after session end, want 3 true", next.Window, next.Warned)
	}
	if next.Request != nil || next.Cap != 0 || next.Generation != s.Generation+1 {
		t.Fatalf("flow, cap or generation not reset: %+v", next)
	}
}
