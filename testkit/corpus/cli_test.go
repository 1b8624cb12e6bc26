package corpus

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64 // 0: refused
	}{
		{"123", 123},
		{"10K", 10 << 10},
		{"300M", 300 << 20},
		{"2G", 2 << 30},
		{"1.5M", 3 << 19},
		{"0", 0},
		{"-1M", 0},
		{"0.1", 0}, // under a byte
		{"", 0},
		{"M", 0},
		{"10T", 0},
		{"10k", 0}, // suffixes are upper case, as the flags' docs say
		{"NaN", 0},
		{"NaNG", 0},
		{"Inf", 0},
		{"1e300G", 0},
		{"9e18", 0}, // above maxSize
	} {
		got, err := ParseSize(c.in)
		if c.want == 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", c.in, got)
			} else if !strings.Contains(err.Error(), "10M") {
				t.Errorf("ParseSize(%q): error %q does not say how to write a size", c.in, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestPrintJSON(t *testing.T) {
	var b bytes.Buffer
	if err := PrintJSON(&b, map[string]any{"bytes": 3, "layout": map[string]string{"claude": "/x"}}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"bytes\": 3,\n  \"layout\": {\n    \"claude\": \"/x\"\n  }\n}\n"
	if b.String() != want {
		t.Errorf("PrintJSON wrote %q, want %q", b.String(), want)
	}
}
