package reset

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/notesoup/notesoup/internal/rawread"
)

// MaxSettingsBytes bounds one settings, configuration or model catalog file
// a harness reads to resolve its native point. Real ones are kilobytes (a
// Codex model catalog, the largest, some hundreds); the bound only keeps a
// damaged or hostile file in a project folder from filling memory.
const MaxSettingsBytes = 16 << 20

// ReadSettingsFile reads one settings file whole: a regular file of at most
// MaxSettingsBytes (internal/rawread), so a FIFO or a huge file planted in a
// project's settings folder is an error, not a hang. A missing file is an
// error errors.Is(err, fs.ErrNotExist) recognises.
func ReadSettingsFile(path string) ([]byte, error) {
	return rawread.ReadAll(path, MaxSettingsBytes)
}

// MergeSettings overlays the layer src on dst: nested objects merge key by
// key, anything else (arrays included) replaces. This is how Claude Code
// and Pi layer their settings files and how Codex layers its configuration
// (a dotted -c override changes one key of a table). A nested object of dst
// is copied before it changes, so a layer already merged is never altered.
func MergeSettings(dst, src map[string]any) {
	for k, v := range src {
		sv, isObj := v.(map[string]any)
		dv, dstObj := dst[k].(map[string]any)
		if isObj && dstObj {
			cp := make(map[string]any, len(dv)+len(sv))
			for dk, dval := range dv {
				cp[dk] = dval
			}
			MergeSettings(cp, sv)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}

// MergeJSONSettingsFiles reads the JSON settings files at paths in order,
// later files winning key by key (MergeSettings). A missing file is
// skipped; one that cannot be read, or is not a JSON object, is skipped
// with a note saying why, so the caller can report it and fall through.
func MergeJSONSettingsFiles(paths []string) (merged map[string]any, notes []string) {
	merged = map[string]any{}
	for _, p := range paths {
		data, err := ReadSettingsFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s not read: %v", p, err))
			continue
		}
		obj, err := ParseJSONObject(data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s ignored: %v", p, err))
			continue
		}
		MergeSettings(merged, obj)
	}
	return merged, notes
}
