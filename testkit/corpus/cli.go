package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// What the commands that write corpora (testkit/cmd/corpus and
// bench/cmd/replica) share: how a size is written on their command lines
// and how they print the description bench/run.sh reads. It lives here,
// beside Generate, because both commands already import this package.

// maxSize bounds a parsed size (4 EiB, far above any corpus): a float
// product above it would not convert to int64 faithfully.
const maxSize = 1 << 62

// ParseSize reads a corpus size: bytes ("123"), or a number with a K, M or
// G suffix in binary multiples ("10K", "1.5M", "2G"). Anything else, a
// size under one byte or above 4 EiB is an error that says how to write
// one.
func ParseSize(s string) (int64, error) {
	num, mult := s, float64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		num, mult = strings.TrimSuffix(s, "K"), 1<<10
	case strings.HasSuffix(s, "M"):
		num, mult = strings.TrimSuffix(s, "M"), 1<<20
	case strings.HasSuffix(s, "G"):
		num, mult = strings.TrimSuffix(s, "G"), 1<<30
	}
	v, err := strconv.ParseFloat(num, 64)
	v *= mult
	// !(v >= 1) also refuses NaN, which compares false to everything.
	if err != nil || !(v >= 1) || v > maxSize || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a positive size: write bytes, or a number with a K, M or G suffix (e.g. 10M or 1G)", s)
	}
	return int64(v), nil
}

// PrintJSON writes a command's description of what it wrote to w as
// indented JSON, the form bench/run.sh reads.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
