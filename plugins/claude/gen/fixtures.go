package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/notesoup/notesoup/shared/reset"
)

// fixtureSeed is the handoff seed of every fixture session; any value
// works, a fixed one keeps the generated file stable.
const fixtureSeed = 42

// fixtureStep is one event of a scenario, as the caller's session sees it.
// The module sends every one except a step after an answer that said steps
// cannot matter (step_needed false); RenderFixtures leaves those out.
type fixtureStep struct {
	Session string `json:"session"`
	Event   string `json:"-"`
	// Subagent marks an event a subagent's tool call sends (the caller's
	// subagent flag, not a field of the event).
	Subagent bool `json:"-"`
}

// scenario is an ordered list of events the hooks module must send to the
// helper for one sequence of Claude Code events (the TypeScript test drives
// the Claude side, plugins/claude/tests/flow.test.ts).
type scenario struct {
	Name  string
	Steps []fixtureStep
}

func s1(ev string) fixtureStep { return fixtureStep{Session: "s1", Event: ev} }

// The opening every main-loop scenario shares: the identity binding at
// session.start, a natural turn and its first step.
var opening = []fixtureStep{
	s1(`{"type":"session_changed","session":"s1"}`),
	s1(`{"type":"turn_started","origin":"natural"}`),
	s1(`{"type":"step"}`),
}

func with(steps ...fixtureStep) []fixtureStep {
	return append(append([]fixtureStep{}, opening...), steps...)
}

// resetTail is a tool reset's cutoff, completion, compaction and commit.
func resetTail(marker string) []fixtureStep {
	return []fixtureStep{
		s1(`{"type":"step"}`),
		s1(`{"type":"turn_completed"}`),
		s1(`{"type":"compaction_started","marker":"` + marker + `"}`),
		s1(`{"type":"compaction_committed","marker":"` + marker + `","evidence":true}`),
	}
}

// scenarios covers the seed's validation list at the hooks-module layer; the
// flow's own exhaustive properties are tested in shared/reset.
func scenarios() []scenario {
	m := reset.Marker(1, 2) // generation 1, attempt 2 (request 1 came first)
	return []scenario{
		{"reset_terminate_omitted", with(append([]fixtureStep{s1(`{"type":"reset_requested"}`)}, resetTail(m)...)...)},
		{"reset_terminate_false", with(append([]fixtureStep{s1(`{"type":"reset_requested","last_word":"check the plan","terminate":false}`)}, resetTail(m)...)...)},
		{"reset_terminate_true", with(append([]fixtureStep{s1(`{"type":"reset_requested","last_word":"bye","terminate":true}`)}, resetTail(m)...)...)},
		{"invalid_boolean", with(s1(`{"type":"reset_requested","terminate":"yes"}`), s1(`{"type":"step"}`), s1(`{"type":"turn_completed"}`))},
		{"first_request_wins", with(append([]fixtureStep{
			s1(`{"type":"reset_requested","last_word":"first"}`),
			s1(`{"type":"reset_requested","last_word":"second","terminate":true}`),
		}, resetTail(m)...)...)},
		{"manual_stop_idle", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"manual_stop"}`),
			s1(`{"type":"turn_started","origin":"closeout"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
			s1(`{"type":"compaction_started","marker":"` + m + `"}`),
			s1(`{"type":"compaction_committed","marker":"` + m + `","evidence":true}`),
		}},
		{"stop_consumed_by_native", with(
			s1(`{"type":"reset_requested"}`),
			s1(`{"type":"manual_stop"}`),
			s1(`{"type":"native_compaction"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
		)},
		{"natural_input", with(
			s1(`{"type":"reset_requested"}`),
			s1(`{"type":"input_accepted"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"input_delivered"}`),
			s1(`{"type":"turn_completed"}`),
			s1(`{"type":"compaction_started","marker":"`+m+`"}`),
			s1(`{"type":"compaction_committed","marker":"`+m+`","evidence":true}`),
		)},
		{"failed_commit_retried", with(
			s1(`{"type":"reset_requested"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
			s1(`{"type":"compaction_failed","marker":"`+m+`"}`),
			s1(`{"type":"turn_started","origin":"natural"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
		)},
		{"closeout_submission_fails", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"manual_stop"}`),
			s1(`{"type":"closeout_failed"}`),
			s1(`{"type":"manual_stop"}`),
		}},
		{"session_change", append(with(s1(`{"type":"reset_requested"}`)),
			fixtureStep{Session: "s2", Event: `{"type":"session_changed","session":"s2"}`},
			fixtureStep{Session: "s2", Event: `{"type":"step"}`},
		)},
		// A subagent's empty_brain is applied first (refused: steps still
		// need not be sent) and the main one second (the cutoff is armed),
		// but their answers come back in the other order.
		{"overlapping_answers", with(append([]fixtureStep{
			{Session: "s1", Event: `{"type":"reset_requested"}`, Subagent: true},
			s1(`{"type":"reset_requested"}`),
		}, resetTail(m)...)...)},
		{"session_only", []fixtureStep{s1(`{"type":"session_changed","session":"s1"}`)}},
		{"compact_disabled", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1","compact_disabled":true}`),
			s1(`{"type":"reset_requested"}`),
			s1(`{"type":"manual_stop"}`),
		}},
		{"user_compact_vetoed", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"compaction_started"}`),
		}},
		// /clear ends s1 (no session.start follows) and the process goes on
		// as s2, where a tool reset commits and continues.
		{"clear_then_reset", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"session_ended"}`),
			s2(`{"type":"session_changed","session":"s2"}`),
			s2(`{"type":"turn_started","origin":"natural"}`),
			s2(`{"type":"step"}`),
			s2(`{"type":"reset_requested"}`),
			s2(`{"type":"step"}`),
			s2(`{"type":"turn_completed"}`),
			s2(`{"type":"compaction_started","marker":"` + m + `"}`),
			s2(`{"type":"compaction_committed","marker":"` + m + `","evidence":true}`),
			s2(`{"type":"turn_started","origin":"continuation"}`),
		}},
		// DISABLE_COMPACT stays in force after /clear: s2 is bound with it,
		// and empty_brain is refused there too.
		{"clear_compact_disabled", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1","compact_disabled":true}`),
			s1(`{"type":"session_ended"}`),
			s2(`{"type":"session_changed","session":"s2","compact_disabled":true}`),
			s2(`{"type":"reset_requested"}`),
		}},
		// The hard point resets the window; the next window gets no
		// warning made for the old one, and its own warning still comes.
		{"budget_reset_then_prompt", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"turn_started","origin":"natural"}`),
			s1(`{"type":"budget_hard","auto_reset_off":false}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
			s1(`{"type":"budget_hard","auto_reset_off":false}`),
			s1(`{"type":"compaction_started","marker":"` + m + `"}`),
			s1(`{"type":"compaction_committed","marker":"` + m + `","evidence":true}`),
			s1(`{"type":"input_accepted"}`),
			s1(`{"type":"turn_started","origin":"natural"}`),
			s1(`{"type":"warning_delivered"}`),
		}},
		// A warning delivered on a tool result the mod does not serve.
		{"warning_delivered", []fixtureStep{
			s1(`{"type":"session_changed","session":"s1"}`),
			s1(`{"type":"warning_delivered"}`),
		}},
		// The compaction ran but the session never showed the boot
		// unchanged: the attempt is reported failed and retried.
		{"commit_never_completes", with(
			s1(`{"type":"reset_requested"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
			s1(`{"type":"compaction_started","marker":"`+m+`"}`),
			s1(`{"type":"compaction_failed","marker":"`+m+`"}`),
			s1(`{"type":"turn_started","origin":"natural"}`),
			s1(`{"type":"step"}`),
			s1(`{"type":"turn_completed"}`),
		)},
	}
}

func s2(ev string) fixtureStep { return fixtureStep{Session: "s2", Event: ev} }

// fixtureOut is one step as the TypeScript fake helper replays it.
type fixtureOut struct {
	Session string          `json:"session"`
	Event   json.RawMessage `json:"event"`
	Actions []actionOut     `json:"actions"`
	// Window and Warned are the persisted state after the step (reset.state).
	Window int64 `json:"window"`
	Warned bool  `json:"warned"`
	// StepNeeded is reset.event's step_needed: false lets the module leave
	// the next steps out.
	StepNeeded bool `json:"step_needed"`
	// Subagent is the caller's subagent flag the event must come with.
	Subagent bool `json:"subagent,omitempty"`
}

// actionOut is a reset action as reset.event returns it.
type actionOut struct {
	reset.Action
	HandoffText string `json:"handoff_text,omitempty"`
}

// RenderFixtures runs every scenario through shared/reset (one state per
// session, as the helper's store keeps them) and returns the TypeScript
// module the plugin tests import.
func RenderFixtures() ([]byte, error) {
	all := map[string][]fixtureOut{}
	var names []string
	for _, sc := range scenarios() {
		states := map[string]reset.State{}
		var steps []fixtureOut
		for i, st := range sc.Steps {
			ev, err := reset.DecodeEvent([]byte(st.Event))
			if err != nil {
				return nil, fmt.Errorf("scenario %s step %d: %w", sc.Name, i, err)
			}
			s, ok := states[st.Session]
			if !ok {
				s = reset.NewState(st.Session, fixtureSeed)
			}
			ev.Subagent = st.Subagent
			if ok && ev.Kind == reset.EvStep && !s.StepNeeded() {
				// The last answer said steps cannot matter, so the module
				// does not send this one (shared/reset proves it a no-op).
				continue
			}
			next, acts := reset.Step(s, ev)
			states[st.Session] = next
			out := fixtureOut{Session: st.Session, Event: json.RawMessage(st.Event), Window: next.Window, Warned: next.Warned, StepNeeded: next.StepNeeded(), Subagent: st.Subagent}
			for _, a := range acts {
				o := actionOut{Action: a}
				if a.Kind == reset.ActInstallBoot {
					t, err := reset.Handoff(a.Pool, a.Handoff)
					if err != nil {
						return nil, err
					}
					o.HandoffText = t
				}
				out.Actions = append(out.Actions, o)
			}
			steps = append(steps, out)
		}
		all[sc.Name] = steps
		names = append(names, sc.Name)
	}
	js, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by plugins/claude/gen from shared/reset (scenarios in gen/fixtures.go); DO NOT EDIT.\n\n")
	b.WriteString("/** One event the hooks module must send, the actions and state the real flow answers with. */\n")
	b.WriteString("export type FixtureStep = {\n  session: string\n  event: Record<string, unknown>\n  actions: Record<string, unknown>[]\n  window: number\n  warned: boolean\n  step_needed: boolean\n  subagent?: boolean\n}\n\n")
	b.WriteString("/** Scenario name → the steps, in order. */\nexport const SCENARIOS: Record<string, readonly FixtureStep[]> = ")
	b.Write(js)
	b.WriteString("\n")
	return b.Bytes(), nil
}
