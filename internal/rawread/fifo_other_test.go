//go:build !unix

package rawread

import "testing"

// fifo stands in a folder where FIFOs cannot be made: another special file
// that must be refused.
func fifo(_ *testing.T, dir string) string { return dir }
