package gemini

import "github.com/notesoup/notesoup/shared/reset"

// Thresholds does not resolve the Gemini CLI's compression point yet: it
// compresses once the last prompt passes model.compressionThreshold (0.5
// by default, or a remote experiment's value) of the model's token limit,
// and which of those applies is not known from here.
func Thresholds(reset.ThresholdInput) reset.NativePoint {
	return reset.NativePoint{Reason: Name + ": the compression point (model.compressionThreshold of the model's token limit) is not resolved yet"}
}
