//go:build amd64 && !purego

package search

// kernelVariants names the kernels this CPU can run, for the tests.
func kernelVariants() map[string]bool {
	v := map[string]bool{"sse2": false}
	if hasAVX2() {
		v["avx2"] = true
	}
	return v
}

// setKernel selects the kernel (tests only) and returns the previous one.
func setKernel(avx2 bool) bool {
	old := useAVX2
	useAVX2 = avx2
	return old
}
