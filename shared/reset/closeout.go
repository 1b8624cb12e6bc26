package reset

// CloseOutText is the hidden close-out prompt of a reset a person asked for
// while the model was idle (/notesoup empty in Pi, /notesoup:empty in Claude
// Code): one turn to save notes, after which the window is emptied and
// nothing continues. Unlike WarningText it says nothing of a full window or
// a countdown, since the window may hold a few thousand tokens: the cause is
// the person's request, not the budget. resetTool is named only to say it
// need not be called.
func CloseOutText(resetTool string) string {
	return "notesoup: the person you are working with asked for this context window to be emptied now. " +
		"When this turn ends the window is emptied and nothing continues on its own: anything that is only in this window will be gone, and the next window starts from your notes. " +
		"In this turn, do not start anything new: " +
		"(1) write down in your notes what the next window must know — the goal, decisions and why, what is done, what is half-done, open questions, and the exact next step with file paths; " +
		"(2) then end your turn with one short line saying what you saved. " +
		"You need not call " + resetTool + ": the reset follows this turn."
}
