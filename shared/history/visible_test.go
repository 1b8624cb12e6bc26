package history

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTitleMasksBeforeClipping: a title is masked before it is cut, so a
// token the clip (or the bound on the text masked) splits shows no more
// than redact keeps of it. Clipping first, then masking, left the token's
// start unrecognisable and printed it.
func TestTitleMasksBeforeClipping(t *testing.T) {
	const tok = "ghp_Zx9QwErTyUiOpAsDfGhJkLzXcVbNm1234567"
	hidden := tok[8:] // after "ghp_" and the 4 kept characters
	w := func(n int) string { return strings.Repeat("w", n) }
	cases := []struct {
		name, in string
		want     string // the title holds it
	}{
		{"clip inside the token", "Print " + w(90) + " " + tok + " and more", "ghp_Zx9Q[REDACTED"},
		{"clip right after the marker", w(115) + " " + tok, "ghp_"},
		{"assignment cut by the clip", w(100) + " GITHUB_PASSWORD=" + hidden, "GITHUB_PASSWORD"},
		{"a key block shrinks, bringing the bound's cut into view",
			// 32 + 13×1254 + 30 bytes: the bound falls 20 bytes into the token.
			"-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("QUJDREVGR0g=\n", 1254) + "-----END RSA PRIVATE KEY----- " + tok,
			"[REDACTED private key] …"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, max := range []int{120, 60} {
				got := Title(tc.in, max)
				for i := 0; i+8 <= len(hidden); i++ {
					if strings.Contains(got, hidden[i:i+8]) {
						t.Fatalf("Title(max %d) = %q shows %q of the token", max, got, hidden[i:i+8])
					}
				}
				if max == 120 && !strings.Contains(got, tc.want) {
					t.Errorf("Title = %q, want it to hold %q", got, tc.want)
				}
				if n := utf8.RuneCountInString(got); n > max+1 {
					t.Errorf("Title = %d runes, bound %d plus the cut mark", n, max)
				}
			}
		})
	}
}

// TestVisibleSessionIsIdempotent: a title masked by its harness passes the
// service's mask again unchanged.
func TestVisibleSessionIsIdempotent(t *testing.T) {
	title := Title("use ghp_Zx9QwErTyUiOpAsDfGhJkLzXcVbNm1234567 now", 120)
	if got := VisibleSession(Session{Title: title}).Title; got != title {
		t.Errorf("masking twice: %q, then %q", title, got)
	}
}
