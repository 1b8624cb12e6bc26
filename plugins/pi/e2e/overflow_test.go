//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// overflowPrompt is the prompt whose request overflows the window.
const overflowPrompt = "Summarize this long deploy log: OVERFLOW-MARKER-7731"

// TestOverflowKeepsTheTurnsInput: a 400 "exceeds the context window" makes
// Pi compact and retry at once. notesoup answers the compaction with the
// boot, and the retried request must still hold the prompt that overflowed
// (it held only the system prompt and the boot). RPC mode: print mode
// reports the error and exits before Pi's retry (Pi's own behaviour).
func TestOverflowKeepsTheTurnsInput(t *testing.T) {
	e := setup(t, "overflow.json", nil)
	e.runRPC(t, []string{prompt(overflowPrompt)}, until(func(ev []rpcEvent) bool { return count(ev, "agent_end") >= 2 }))
	if p := e.srv.Problems(); len(p) > 0 {
		t.Fatalf("model server problems: %v", p)
	}
	bodies := e.bodies()
	if len(bodies) != 2 {
		t.Fatalf("model requests = %d, want 2 (the one that overflowed, the retry)", len(bodies))
	}
	retry := bodies[1]
	if !strings.Contains(retry, "OVERFLOW-MARKER-7731") {
		t.Errorf("the retried request lost the prompt that overflowed:\n%.3000s", retry)
	}
	if n := bootsIn(retry); n != 1 {
		t.Errorf("the retried request carries %d boot blocks, want 1", n)
	}
	if strings.Contains(retry, "exceeds the context window") {
		t.Errorf("the retried request carries the overflow error")
	}
	es := e.entries(t)
	sid, _ := es[0]["id"].(string)
	comps := ofType(es, "compaction")
	if len(comps) != 1 {
		t.Fatalf("compaction entries = %d, want 1", len(comps))
	}
	if s, _ := comps[0]["summary"].(string); !strings.Contains(s, `<notesoup-boot window="pi:`+sid+`:1">`) || comps[0]["fromHook"] != true {
		t.Errorf("the overflow compaction was not answered with the window-1 boot:\n%s", s)
	}
}
