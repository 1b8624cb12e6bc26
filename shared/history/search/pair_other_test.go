//go:build !amd64 || purego

package search

// kernelVariants names the kernels this CPU can run, for the tests.
func kernelVariants() map[string]bool { return map[string]bool{"portable": false} }

// setKernel is a no-op: there is one kernel.
func setKernel(bool) bool { return false }
