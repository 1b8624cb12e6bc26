package codex

import "github.com/notesoup/notesoup/shared/reset"

// resolveThresholds is set to Thresholds once thresholds.go lands; until then
// the plugin answers that its point is unresolved rather than guessing.
var resolveThresholds func(reset.ThresholdInput) reset.NativePoint
