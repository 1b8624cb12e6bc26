package reset

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Default margins of the budget policy. The reset margin leaves room for the
// turn that is running when the hard point is crossed to finish its tool
// batch before the harness's own compaction would fire; the warning runway
// gives the model enough room to write its notes before the hard point.
const (
	DefaultResetMarginTokens   = 8192
	DefaultWarningRunwayTokens = 16384
)

// MaxCapTokens bounds /notesoup cap: no harness has a window anywhere near
// this, so a larger value is a typo, not a ceiling.
const MaxCapTokens = 1_000_000_000

// maxCapDigits bounds the digits ParseCap reads, so a pasted blob cannot
// make it do big arithmetic.
const maxCapDigits = 24

// Margins are the two distances of the budget policy: hard point = native
// point − ResetMargin, warning point = hard point − WarningRunway.
type Margins struct {
	ResetMargin   int64 `json:"reset_margin_tokens"`
	WarningRunway int64 `json:"warning_runway_tokens"`
	// Notes lists settings values that were present but ignored.
	Notes []string `json:"notes,omitempty"`
}

// SettingsKey is the key of notesoup's own object in a harness's settings.
const SettingsKey = "notesoup"

// PolicySettings returns the part of a harness's parsed settings that
// MarginsFromSettings reads: a JSON object holding only their notesoup
// object, or nil when there is none. A harness reports it with its native
// point (NativePoint.PolicySettings), so the margins set in its settings
// files count even when the caller passed no settings, and nothing else of
// the settings leaves the harness.
func PolicySettings(settings map[string]any) []byte {
	v, ok := settings[SettingsKey]
	if !ok {
		return nil
	}
	b, err := json.Marshal(map[string]any{SettingsKey: v})
	if err != nil {
		return nil
	}
	return b
}

// DefaultMargins returns the policy's default margins.
func DefaultMargins() Margins {
	return Margins{ResetMargin: DefaultResetMarginTokens, WarningRunway: DefaultWarningRunwayTokens}
}

// MarginsFromSettings reads resetMarginTokens and warningRunwayTokens from
// the `notesoup` object of a harness's merged settings JSON. Only whole,
// non-negative numbers are used; any other value (and any other key) is
// ignored and noted, leaving the default in place.
func MarginsFromSettings(settings []byte) Margins {
	m := DefaultMargins()
	obj, err := ParseJSONObject(settings)
	if err != nil {
		m.Notes = append(m.Notes, "settings ignored: "+err.Error())
		return m
	}
	ns, ok := obj[SettingsKey]
	if !ok {
		return m
	}
	nsObj, ok := ns.(map[string]any)
	if !ok {
		m.Notes = append(m.Notes, "settings.notesoup ignored: not an object")
		return m
	}
	read := func(key string, dst *int64) {
		v, ok := nsObj[key]
		if !ok {
			return
		}
		n, ok := NonNegativeTokens(v)
		if !ok || !isWhole(v) {
			m.Notes = append(m.Notes, fmt.Sprintf("settings.notesoup.%s ignored: want a whole non-negative number of tokens, got %v", key, v))
			return
		}
		*dst = n
	}
	read("resetMarginTokens", &m.ResetMargin)
	read("warningRunwayTokens", &m.WarningRunway)
	return m
}

func isWhole(v any) bool {
	f, ok := number(v)
	return ok && f == float64(int64(f))
}

// ErrCapTooSmall is returned (wrapped) when a cap leaves no room for the
// harness's reserves and the policy's margins.
var ErrCapTooSmall = errors.New("cap too small")

// ParseCap parses the /notesoup cap argument: whole tokens ("120000") or a
// decimal with a k or m suffix ("100k", "1.5m"), case-insensitive. "off"
// returns 0, meaning no cap. The result must be a whole number of tokens.
func ParseCap(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "off" {
		return 0, nil
	}
	if t == "" {
		return 0, fmt.Errorf("cap %q: empty; use whole tokens like 120000, or 100k, 1.5m, or off", s)
	}
	mult := int64(1)
	switch t[len(t)-1] {
	case 'k':
		mult, t = 1_000, t[:len(t)-1]
	case 'm':
		mult, t = 1_000_000, t[:len(t)-1]
	}
	intPart, frac, hasDot := strings.Cut(t, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) || hasDot && frac == "" {
		return 0, fmt.Errorf("cap %q: not a number; use whole tokens like 120000, or 100k, 1.5m, or off", s)
	}
	if hasDot && mult == 1 {
		return 0, fmt.Errorf("cap %q: a plain token count must be whole; use a k or m suffix for decimals", s)
	}
	if len(intPart)+len(frac) > maxCapDigits {
		return 0, fmt.Errorf("cap %q: too large; the most is %d tokens", s, MaxCapTokens)
	}
	// Exact decimal arithmetic: "1.5m" is 15 × 10^6 / 10^1, never a float.
	value, _ := new(big.Int).SetString("0"+intPart+frac, 10)
	value.Mul(value, big.NewInt(mult))
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	quo, rem := new(big.Int).QuoRem(value, scale, new(big.Int))
	if rem.Sign() != 0 {
		return 0, fmt.Errorf("cap %q: not a whole number of tokens", s)
	}
	if quo.Cmp(big.NewInt(MaxCapTokens)) > 0 {
		return 0, fmt.Errorf("cap %q: too large; the most is %d tokens", s, MaxCapTokens)
	}
	tokens := quo.Int64()
	if tokens <= 0 {
		return 0, fmt.Errorf("cap %q: must be more than zero; use off to clear the cap", s)
	}
	if tokens > MaxCapTokens {
		return 0, fmt.Errorf("cap %q: too large; the most is %d tokens", s, MaxCapTokens)
	}
	return tokens, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FormatTokens renders a token count the way /notesoup cap accepts it back
// ("120k", "1.5m", "12345").
func FormatTokens(n int64) string {
	switch {
	case n >= 1_000_000 && n%10_000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "m"
	case n >= 1_000 && n%10 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// Limits are the budget policy's resolved points for one window.
type Limits struct {
	// Resolved is false when the native point is unknown or leaves no room
	// for the margins; Reason says why, and no warning or automatic reset
	// may be based on these limits.
	Resolved bool    `json:"resolved"`
	Native   int64   `json:"native"`  // the harness's native auto-compaction point
	Hard     int64   `json:"hard"`    // automatic notesoup reset point: Native − ResetMargin
	Warning  int64   `json:"warning"` // budget warning point: Hard − WarningRunway
	Window   int64   `json:"window"`  // effective window the native point came from
	Source   string  `json:"source"`
	Reason   string  `json:"reason,omitempty"`
	Margins  Margins `json:"margins"`
	Cap      int64   `json:"cap,omitempty"` // the runtime cap in force, 0 for none
	// CapApplied is true when the cap lowered the native point.
	CapApplied bool `json:"cap_applied,omitempty"`
	// AutoReset is false when automatic notesoup resets must not run
	// (the harness's automatic compaction is off, or compaction is
	// disabled); warnings still apply unless WarningsEnabled is false.
	AutoReset bool `json:"auto_reset"`
	// WarningsEnabled is false when the harness cannot compact at all
	// (DISABLE_COMPACT): no warning, no explicit reset.
	WarningsEnabled bool `json:"warnings_enabled"`
}

// ComputeLimits applies the margins to a native point resolved with
// capTokens in force. A cap that leaves no positive warning point is refused
// with an error wrapping ErrCapTooSmall; without a cap the same condition
// yields unresolved limits with a reason.
func ComputeLimits(p NativePoint, m Margins, capTokens int64) (Limits, error) {
	l := Limits{
		Native: p.Tokens, Window: p.Window, Source: p.Source, Margins: m, Cap: capTokens,
		CapApplied: p.CapApplied, AutoReset: p.AutoCompactEnabled && !p.CompactDisabled,
		WarningsEnabled: !p.CompactDisabled,
	}
	if !p.Resolved {
		l.Reason = "native point unresolved: " + p.Reason
		if capTokens > 0 {
			return l, fmt.Errorf("cap %s: cannot apply, %s", FormatTokens(capTokens), l.Reason)
		}
		return l, nil
	}
	l.Hard = p.Tokens - m.ResetMargin
	l.Warning = l.Hard - m.WarningRunway
	if l.Warning <= 0 {
		l.Reason = fmt.Sprintf("native point %d (%s) leaves no room for the reset margin %d and warning runway %d",
			p.Tokens, p.Source, m.ResetMargin, m.WarningRunway)
		if capTokens > 0 {
			return l, fmt.Errorf("cap %s: %w: %s; choose a larger cap or off", FormatTokens(capTokens), ErrCapTooSmall, l.Reason)
		}
		return l, nil
	}
	l.Resolved = true
	return l, nil
}

// TokensLeft is the countdown shown in the budget warning: tokens left
// before the hard point, never negative.
func (l Limits) TokensLeft(contextTokens int64) int64 {
	if left := l.Hard - contextTokens; left > 0 {
		return left
	}
	return 0
}

// WarningDue reports whether the budget warning should be shown for this
// measurement: resolved limits with warnings enabled, the measured context at
// or past the warning point, and no warning delivered yet in this window.
func WarningDue(l Limits, contextTokens int64, warnedThisWindow bool) bool {
	return l.Resolved && l.WarningsEnabled && !warnedThisWindow && contextTokens >= l.Warning
}

// HardDue reports whether the measured context has crossed the hard point
// and an automatic reset is allowed.
func HardDue(l Limits, contextTokens int64) bool {
	return l.Resolved && l.AutoReset && contextTokens >= l.Hard
}
