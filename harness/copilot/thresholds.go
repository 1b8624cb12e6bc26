package copilot

import "github.com/notesoup/notesoup/shared/reset"

// noThresholds says why Thresholds resolves no point. What is known of the
// CLI (1.0.102), from the real CLI (e2e/copilot/budget_test.go) and the
// package it unpacks under ~/.cache/copilot/pkg:
//   - it compacts in the background (trigger "threshold") once its own
//     token estimate of the context (system + conversation + tool
//     definitions) reaches a share of the model's prompt-token limit: with
//     a 16,000-token limit, none at 0.752 of it, one at 0.816
//     (TestCopilotThresholdCompactionPoint), as its SDK's
//     backgroundCompactionThreshold documents (default 0.80; the runtime
//     reads COPILOT_BACKGROUND_COMPACTION_THRESHOLD); it truncates at the
//     limit;
//   - the limit is COPILOT_PROVIDER_MAX_PROMPT_TOKENS for a custom provider
//     (128,000 unset, as its usage records say), else its model catalog's,
//     which is not on disk;
//   - a hook could carry a warning (postToolUse's additionalContext reaches
//     the model: TestCopilotPostToolUseContextReachesModel) but could not
//     measure: the hook's input has no token count, the estimate is an
//     ephemeral event (session.usage_info) written to events.jsonl only at
//     a compaction and at shutdown, and the provider's usage records
//     (session.usage_record, counted by the provider, not by the estimate
//     the CLI compacts on) were mostly not yet on disk when postToolUse ran.
const noThresholds = "the Copilot CLI compacts in the background (trigger \"threshold\") once its own token estimate reaches about 0.80 (COPILOT_BACKGROUND_COMPACTION_THRESHOLD) of its model's prompt-token limit (COPILOT_PROVIDER_MAX_PROMPT_TOKENS for a custom provider, else its catalog's, which is not on disk), and truncates at the limit; it writes that estimate nowhere a hook can read it while the session runs, so notesoup cannot measure against the point and neither warns nor resets on a guessed one"

// Thresholds is unresolved, with the reason.
func Thresholds(reset.ThresholdInput) reset.NativePoint {
	return reset.NativePoint{Source: Name, Reason: noThresholds, AutoCompactEnabled: true}
}
