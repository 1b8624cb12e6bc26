package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// hooks.json: install adds one notesoup hook per event beside the
// person's own; uninstall removes notesoup's hooks and whatever held only
// them. The file is rewritten as indented JSON when it changes (JSON keeps
// no comments to lose), and left byte for byte when it does not.

// hookTimeoutSec bounds one hook run. A hook starts notesoup and reads the
// rollout: well under a second here; the slack covers a cold disk cache.
const hookTimeoutSec = 30

// hookCommand is the hooks.json command for one event.
func hookCommand(bin, event string) string {
	return shellQuote(bin) + " " + hookArgs(event)
}

// hookArgs is what follows the binary in notesoup's hook command; it is
// how uninstall and a later install recognise notesoup's hooks, whatever
// binary they run.
func hookArgs(event string) string { return "hook " + Name + " " + event }

// isNotesoupHook reports whether a hooks.json command is notesoup's.
func isNotesoupHook(cmd, event string) bool {
	return strings.HasSuffix(cmd, " "+hookArgs(event))
}

// decodeHooks parses a hooks.json into the document and its "hooks"
// object (created when absent).
func decodeHooks(old []byte) (doc, hooks map[string]any, err error) {
	doc = map[string]any{}
	if len(bytes.TrimSpace(old)) > 0 {
		if err := json.Unmarshal(old, &doc); err != nil {
			return nil, nil, fmt.Errorf("is not valid JSON (%v); fix it first, notesoup will not rewrite a file it cannot read", err)
		}
		if doc == nil {
			return nil, nil, fmt.Errorf("is not a JSON object; fix it first")
		}
	}
	hooks = map[string]any{}
	if h, ok := doc["hooks"]; ok {
		m, ok := h.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf(`"hooks" is not an object; fix it first`)
		}
		hooks = m
	}
	return doc, hooks, nil
}

// eventGroups returns the matcher groups of one event.
func eventGroups(hooks map[string]any, ev string) ([]any, error) {
	g, ok := hooks[ev]
	if !ok {
		return nil, nil
	}
	gs, ok := g.([]any)
	if !ok {
		return nil, fmt.Errorf(`"hooks.%s" is not an array; fix it first`, ev)
	}
	return gs, nil
}

// mergeHooks adds notesoup's hook to each event of a hooks.json, keeping
// every other hook; a notesoup hook with another binary path is updated and
// reported.
func mergeHooks(old []byte, bin string) ([]byte, []string, error) {
	doc, hooks, err := decodeHooks(old)
	if err != nil {
		return nil, nil, err
	}
	var msgs []string
	for _, ev := range HookEvents {
		want := hookCommand(bin, ev)
		groups, err := eventGroups(hooks, ev)
		if err != nil {
			return nil, nil, err
		}
		found := false
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				if !isNotesoupHook(cmd, ev) {
					continue
				}
				found = true
				if cmd != want {
					msgs = append(msgs, fmt.Sprintf("hooks.json %s: updated notesoup's hook from %q to %q", ev, cmd, want))
					hm["command"] = want
				}
			}
		}
		if found {
			continue
		}
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": want, "timeout": hookTimeoutSec}}}
		if ev == PostToolUse {
			entry["matcher"] = "" // every tool: the budget is measured after each
		}
		hooks[ev] = append(groups, entry)
		msgs = append(msgs, fmt.Sprintf("hooks.json %s: added notesoup's hook", ev))
	}
	if len(msgs) == 0 {
		return old, nil, nil // unchanged: keep the person's formatting
	}
	doc["hooks"] = hooks
	out, err := encodeHooks(doc)
	return out, msgs, err
}

// unmergeHooks removes notesoup's hooks from a hooks.json, then each
// matcher group and event they leave empty, keeping every other hook. It
// returns nil when nothing at all is left (the file install created), and
// old itself when there was nothing to remove.
func unmergeHooks(old []byte) ([]byte, []string, error) {
	if old == nil {
		return nil, []string{"hooks.json: none, so no notesoup hooks"}, nil
	}
	doc, hooks, err := decodeHooks(old)
	if err != nil {
		return nil, nil, err
	}
	var msgs []string
	for _, ev := range HookEvents {
		groups, err := eventGroups(hooks, ev)
		if err != nil {
			return nil, nil, err
		}
		removed := 0
		var keep []any
		for _, g := range groups {
			gm, ok := g.(map[string]any)
			hs, isList := gm["hooks"].([]any)
			if !ok || !isList {
				keep = append(keep, g) // not a group notesoup knows: not its own
				continue
			}
			var rest []any
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				if cmd, _ := hm["command"].(string); isNotesoupHook(cmd, ev) {
					removed++
					continue
				}
				rest = append(rest, h)
			}
			if len(rest) == len(hs) {
				keep = append(keep, g)
				continue
			}
			if len(rest) > 0 {
				gm["hooks"] = rest
				keep = append(keep, gm)
			}
		}
		if removed == 0 {
			continue
		}
		msgs = append(msgs, fmt.Sprintf("hooks.json %s: removed notesoup's hook", ev))
		if len(keep) == 0 {
			delete(hooks, ev)
		} else {
			hooks[ev] = keep
		}
	}
	if len(msgs) == 0 {
		return old, []string{"hooks.json: no notesoup hooks"}, nil
	}
	if len(hooks) == 0 {
		delete(doc, "hooks")
	} else {
		doc["hooks"] = hooks
	}
	if len(doc) == 0 {
		return nil, msgs, nil
	}
	out, err := encodeHooks(doc)
	return out, msgs, err
}

// encodeHooks writes a hooks.json document as indented JSON.
func encodeHooks(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// shellQuote quotes a path for the hooks.json command line (Codex runs it
// through a shell).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
