package walk

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestNotice(t *testing.T) {
	for _, tc := range []struct {
		level string
		want  []string // substrings; nil: nothing written
	}{
		{"", []string{"[WARN]", "claude: folder left out:", `path="/a b"`, `error="denied"`}},
		{"warn", []string{"[WARN]"}},
		{"ERROR", nil},
		{"off", nil},
	} {
		t.Run(tc.level, func(t *testing.T) {
			t.Setenv("NOTESOUP_LOG", tc.level)
			var buf bytes.Buffer
			old := noticeOut
			noticeOut = &buf
			defer func() { noticeOut = old }()
			Notice("claude", "folder left out", "path", "/a b", "error", errors.New("denied"))
			got := buf.String()
			if tc.want == nil {
				if got != "" {
					t.Fatalf("NOTESOUP_LOG=%s wrote %q", tc.level, got)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("notice %q lacks %q", got, w)
				}
			}
			if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
				t.Errorf("notice %q is not one line", got)
			}
		})
	}
}
