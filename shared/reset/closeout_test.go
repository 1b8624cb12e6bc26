package reset

import (
	"strings"
	"testing"
)

// TestCloseOutTextFitsItsCause: the close-out of a person's request names
// the request and the reset tool, and none of the budget warning's claims
// (a full window, an automatic reset, a countdown), which are false at a
// few thousand tokens.
func TestCloseOutTextFitsItsCause(t *testing.T) {
	got := CloseOutText("empty_brain")
	for _, want := range []string{"asked for this context window to be emptied", "notes", "need not call empty_brain", "nothing continues"} {
		if !strings.Contains(got, want) {
			t.Errorf("close-out lacks %q:\n%s", want, got)
		}
	}
	for _, wrong := range []string{"nearly full", "filled up", "automatic", "tokens left", "budget"} {
		if strings.Contains(got, wrong) {
			t.Errorf("close-out says %q, which does not fit a person's request:\n%s", wrong, got)
		}
	}
}
