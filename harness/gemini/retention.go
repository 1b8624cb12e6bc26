package gemini

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/notesoup/notesoup/vault"
)

// defaultMaxAge is the Gemini CLI's general.sessionRetention.maxAge when
// unset (its docs/cli/session-management.md): chats older are deleted.
const defaultMaxAge = "30d"

// maxSettingsBytes bounds the user settings file read.
const maxSettingsBytes = 4 << 20

// Retention says how the Gemini CLI deletes chats: general.sessionRetention
// in ~/.gemini/settings.json (enabled by default, maxAge "30d" by default,
// optionally maxCount). roots are the session roots to find the oldest
// chat under (nil: the default root). Only the user settings file is read;
// a project's .gemini/settings.json may say otherwise for its chats.
func Retention(_ context.Context, roots []string) vault.Retention {
	r := vault.Retention{Harness: Name, Known: true}
	if len(roots) == 0 {
		def, err := DefaultRoots()
		if err != nil {
			r.Note = err.Error()
			return r
		}
		roots = def
	}
	h, err := Home()
	if err != nil {
		r.Note = err.Error()
		return r
	}
	path := filepath.Join(h, settingsFile)
	enabled, maxAge, from := true, defaultMaxAge, "default"
	var maxCount float64
	if sr, err := sessionRetention(path); err != nil {
		r.Note = fmt.Sprintf("%v; the Gemini CLI's defaults apply", err)
	} else if sr != nil {
		from = path
		if v, ok := sr["enabled"].(bool); ok {
			enabled = v
		}
		if v, ok := sr["maxAge"].(string); ok && v != "" {
			maxAge = v
		}
		if v, ok := sr["maxCount"]; ok && v != nil {
			// A number, however the JSON parser typed it.
			maxCount, _ = strconv.ParseFloat(fmt.Sprint(v), 64)
		}
	}
	r.Setting = fmt.Sprintf("general.sessionRetention enabled = %v, maxAge = %s (%s)", enabled, maxAge, from)
	if !enabled {
		return r
	}
	r.Deletes = true
	if maxCount > 0 {
		r.Note = strings.TrimPrefix(r.Note+fmt.Sprintf("; also keeps only the newest %g chats", maxCount), "; ")
	}
	period, err := parseAge(maxAge)
	if err != nil {
		r.Note = strings.TrimPrefix(r.Note+"; "+err.Error(), "; ")
		return r
	}
	r.Period = period
	// Chats sit in tmp/<project>/chats/.
	r.Oldest = vault.OldestModTime(roots, 2, func(n string) bool { return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl") })
	r.Next = vault.NextDelete(r.Oldest, r.Period)
	return r
}

// sessionRetention returns general.sessionRetention of the settings file
// at path (JSON with comments), nil when the file or the key is absent.
func sessionRetention(path string) (map[string]any, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSettingsBytes {
		return nil, fmt.Errorf("%s is not a regular file under %d bytes", path, maxSettingsBytes)
	}
	data := make([]byte, maxSettingsBytes+1)
	n, _ := f.Read(data)
	m, err := parseSettings(data[:n])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g, _ := m["general"].(map[string]any)
	sr, _ := g["sessionRetention"].(map[string]any)
	return sr, nil
}

// parseAge reads a maxAge such as "24h", "7d" or "4w".
func parseAge(s string) (time.Duration, error) {
	units := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	if len(s) >= 2 {
		if u, ok := units[s[len(s)-1]]; ok {
			if n, err := strconv.ParseFloat(s[:len(s)-1], 64); err == nil && n >= 0 {
				return time.Duration(n * float64(u)), nil
			}
		}
	}
	return 0, fmt.Errorf("general.sessionRetention.maxAge %q is not a number followed by h, d or w", s)
}
