package reset

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// WarningText is the budget warning, one text for every harness. It is
// addressed to the model, says what to do in order, and ends with the reset
// tool's name and the countdown of tokens left before the automatic reset.
func WarningText(resetTool string, tokensLeft int64) string {
	if tokensLeft < 0 {
		tokensLeft = 0
	}
	return "notesoup budget warning: this context window is nearly full. " +
		"When it reaches its limit notesoup will empty it automatically, and anything that is only in this window will be gone. " +
		"Act now, before starting anything new: " +
		"(1) finish or safely park the step you are on; " +
		"(2) write down in your notes what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; " +
		"(3) then reset the window yourself, passing a short last_word for your next self, rather than waiting to be cut off mid-task. " +
		"Reset tool: " + resetTool + " — " + GroupDigits(tokensLeft) + " tokens left before the automatic reset."
}

// GroupDigits writes 123456 as "123,456" so a token count reads at a glance.
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Pool selects a handoff pool.
type Pool string

// The two handoff pools: normal when the model asked for the reset (a tool
// call), forced when the budget or a command did.
const (
	PoolNormal Pool = "normal"
	PoolForced Pool = "forced"
)

// normalHandoffs follow a reset the model asked for.
var normalHandoffs = []string{
	"You emptied your context window on purpose, and this is the fresh one. Nothing from the previous window is here except what you wrote down: the notes above are your memory now. Read them before you act, trust them over any guess about what you were doing, and pick up at the next step they name. If a note is unclear, check the files or the history tools rather than redoing work.",
	"This window starts clean because you asked for it. Your earlier self left you the notes above and, if there is one, a last word; together they are the whole handoff. Begin by re-reading the open items, confirm the state of anything half-done by looking at the files themselves, then continue the work. Keep the notes current as you go, so the next reset costs nothing.",
	"A reset you requested has just completed. The conversation that came before is no longer in view, but it is not lost: your notes carry what you chose to keep, and the history tools can read back the old transcript if you need an exact detail. Orient yourself from the notes, state to yourself what the next concrete step is, and take it.",
	"Fresh window, by your own choice. Treat the notes above as a briefing from a colleague who knew exactly what you know now minus the clutter: the goal, the decisions, what is finished and what is not. Verify before you rely on anything that may have changed, avoid repeating finished work, and carry on from where the notes leave off.",
}

// forcedHandoffs follow a reset the budget (or a command) forced.
var forcedHandoffs = []string{
	"Your previous context window filled up, and notesoup emptied it so you can keep working with room to think. You did not choose this moment, so the last step may be unfinished: read your notes, then check the files and any command you were running before assuming it completed. Continue from the most recent next step the notes record.",
	"The window was reset automatically when it reached its budget. Everything you had written to your notes is above; anything you had not written down is gone from view, though the history tools can still read the old transcript. Reconstruct where you were from the notes and the working tree, fix up any half-finished edit, and then carry on.",
	"notesoup cleared a full context window. This is a clean start with your notes as the only carry-over. Take a moment to re-establish the goal and the current state — what is done, what is in progress, what is next — by reading the notes and inspecting the files, then resume. Update the notes early in this window so a future reset lands more softly.",
	"You ran out of room in the last window, so it has been replaced with this one. Do not restart the task from scratch: your notes hold the plan and the progress so far. Verify the state of the last thing you touched, since the reset may have come in the middle of it, and then continue with the next step.",
}

// Handoffs returns the paragraphs of a pool (a copy).
func Handoffs(p Pool) []string {
	if p == PoolNormal {
		return append([]string(nil), normalHandoffs...)
	}
	return append([]string(nil), forcedHandoffs...)
}

// HandoffIndex chooses one paragraph of a pool for a window. The choice is
// pseudo-random over windows but a pure function of (seed, generation,
// window, pool), so it is made once per window and the same paragraph comes
// back when a failed compaction is retried or another process asks.
func HandoffIndex(p Pool, seed uint64, generation uint64, window int64) int {
	h := fnv.New64a()
	var buf [24]byte
	binary.LittleEndian.PutUint64(buf[0:], seed)
	binary.LittleEndian.PutUint64(buf[8:], generation)
	binary.LittleEndian.PutUint64(buf[16:], uint64(window))
	h.Write(buf[:])
	h.Write([]byte(p))
	n := len(Handoffs(p))
	return int(h.Sum64() % uint64(n))
}

// Handoff returns the text of one paragraph, or an error for an index out of
// range (for example one persisted by a build with a longer pool).
func Handoff(p Pool, index int) (string, error) {
	ps := Handoffs(p)
	if index < 0 || index >= len(ps) {
		return "", fmt.Errorf("handoff %s/%d: no such paragraph (pool has %d)", p, index, len(ps))
	}
	return ps[index], nil
}
