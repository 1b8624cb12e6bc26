package reset

// ThresholdInput is everything a harness plugin may need to resolve its
// native auto-compaction point. Fields a harness does not use are ignored.
// Raw JSON fields are passed through untouched so each harness can type-check
// its own undocumented fields and fall through to the next source.
type ThresholdInput struct {
	Model       string            // model id as the harness names it
	ModelWindow int64             // the model's context window in tokens, 0 if unknown
	Settings    []byte            // merged settings JSON (Claude: $.settings.read(); Pi: merged settings.json), may be empty
	Env         map[string]string // relevant environment variables
	Usage       []byte            // harness usage report JSON (Claude: $.session.usage({breakdown:"summary"})), may be empty
	Cwd         string            // project directory, for project-level settings files
	Home        string            // the user's home (or HOME override), for user-level settings files
	Overrides   []string          // harness CLI overrides, e.g. Codex "-c key=value" pairs and "--profile name"
}

// NativePoint is a harness's native auto-compaction point and where it came from.
type NativePoint struct {
	// Resolved is false when no source produced a point; Reason then says why,
	// and callers must not guess.
	Resolved bool
	Tokens   int64  // the native auto-compaction point in tokens
	Window   int64  // the effective context window the point was derived from
	Source   string // which source produced it, e.g. "usage.autoCompactThreshold"
	// AutoCompactEnabled is false when the harness's automatic compaction is
	// off; warnings still apply but automatic notesoup resets do not.
	AutoCompactEnabled bool
	Reason             string
}
