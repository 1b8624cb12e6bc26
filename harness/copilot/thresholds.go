package copilot

import "github.com/notesoup/notesoup/shared/reset"

// noThresholds says why Thresholds resolves no point. What was seen of the
// CLI (1.0.102) against a loopback provider with a 16,000-token prompt
// limit: a background compaction (trigger "threshold") started once its own
// estimate of the context passed the limit, and a truncation cut the
// messages sent meanwhile; the fraction it uses below the limit, and the
// limit of each model in its catalog, are inside the closed-source CLI.
const noThresholds = "the Copilot CLI compacts in the background (trigger \"threshold\") and truncates at its model's prompt-token limit (COPILOT_PROVIDER_MAX_PROMPT_TOKENS for a custom provider, else its catalog's); notesoup does not resolve that point, so it neither warns nor resets on a guessed one"

// Thresholds is unresolved, with the reason.
func Thresholds(reset.ThresholdInput) reset.NativePoint {
	return reset.NativePoint{Source: Name, Reason: noThresholds, AutoCompactEnabled: true}
}
