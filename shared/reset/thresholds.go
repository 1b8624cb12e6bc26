// Package reset holds the one harness-neutral definition of when and how a
// context window is reset: the budget policy (native point, hard and warning
// points, the runtime cap), the budget warning and handoff texts, and the
// reset flow's state machine with its per-session persisted state. Harness
// plugins only supply their native auto-compaction point.
package reset

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/shared/jsonedit"
)

// ThresholdInput is everything a harness plugin may need to resolve its
// native auto-compaction point; the type is the harness contract's own.
type ThresholdInput = contract.ThresholdInput

// NativePoint is a harness's native auto-compaction point and where it came
// from; the type is the harness contract's own.
type NativePoint = contract.NativePoint

// ClampWindow applies the runtime cap to an effective window: the smaller of
// the two, or the window unchanged when cap is 0 (no cap).
func ClampWindow(window, capTokens int64) (int64, bool) {
	if capTokens > 0 && (window <= 0 || capTokens < window) {
		return capTokens, true
	}
	return window, false
}

// ParseJSONObject decodes settings or usage JSON into a generic object. Empty
// input is an empty object; anything but a JSON object is an error so the
// caller can note it and fall through.
func ParseJSONObject(data []byte) (map[string]any, error) { return jsonedit.DecodeObject(data) }

// Lookup walks nested objects by key; ok is false when any step is missing
// or not an object.
func Lookup(v any, path ...string) (any, bool) {
	cur := v
	for _, k := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = obj[k]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// PositiveTokens type-checks an undocumented numeric field: it accepts a
// finite JSON number (json.Number, float64 or an integer type) greater than
// zero and returns it floored to whole tokens. Anything else is rejected so
// the caller falls through to its next source.
func PositiveTokens(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 1 || f > math.MaxInt64/2 {
		return 0, false
	}
	return int64(math.Floor(f)), true
}

// NonNegativeTokens is PositiveTokens that also accepts zero.
func NonNegativeTokens(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > math.MaxInt64/2 {
		return 0, false
	}
	return int64(math.Floor(f)), true
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// EnvTruthy reports whether an environment variable is set to a true value
// the way Claude Code reads its boolean switches ("1", "true", "yes", "on",
// case-insensitive).
func EnvTruthy(env map[string]string, name string) bool {
	switch strings.ToLower(strings.TrimSpace(env[name])) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// EnvPresent reports a presence-style switch (DISABLE_COMPACT,
// NOTESOUP_DISABLED): set to any non-empty value.
func EnvPresent(env map[string]string, name string) bool {
	return env[name] != ""
}

// ParseTokenCount parses a whole positive token count from an environment
// variable or flag value.
func ParseTokenCount(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}
