package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Codex 0.171.0 runs a hook from hooks.json only once it is trusted:
// config.toml holds, per hook,
//
//	[hooks.state."<hooks.json path>:<event in snake case>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// and the hash is of the hook's normalized identity, not of the file's
// text: the JSON object {event_name, matcher (only for events that take
// one), hooks: [{type, command, timeout, async, statusMessage}]} with its
// keys sorted, compact, hashed with SHA-256. That is what Codex's "Trust
// all and continue" writes (observed: the three hashes it wrote for
// notesoup's hooks are the ones hookTrustHash computes, and a codex exec
// without --dangerously-bypass-hook-trust then runs them: e2e/codex).
// So install records the trust itself, as a person choosing "Trust all"
// would; Codex asks again as soon as a hook changes.

// trustComment opens each trust table install writes; uninstall recognises
// them by it.
const trustComment = "# notesoup: Codex runs notesoup's hooks (trusted by notesoup install codex)\n"

// untrustedNote says, in plain words, what is missing while Codex does not
// trust the hooks and how to trust them.
const untrustedNote = "Codex runs hooks only once they are trusted, and until then no notes boot block, no budget warning and no boot after a compaction reaches the model. " +
	"Trust them: start codex once and choose \"Trust all and continue\" (or /hooks), or pass --dangerously-bypass-hook-trust to codex exec."

// defaultHookTimeout is Codex's timeout for a hook that sets none; the
// hash holds the timeout Codex will use.
const defaultHookTimeout = 600

// hookTrust is one of notesoup's hooks in hooks.json and the trust Codex
// needs to see recorded for it.
type hookTrust struct {
	Key  string // the [hooks.state."<key>"] name
	Hash string // its trusted_hash
}

// eventTakesMatcher reports whether Codex keeps a matcher group's matcher
// for an event (and so hashes it): UserPromptSubmit and Stop ignore it.
func eventTakesMatcher(event string) bool {
	return event != UserPromptSubmit && event != "Stop"
}

// notesoupHookTrust returns the trust entries of notesoup's hooks in the
// hooks.json text raw, kept in the folder home, sorted by key. A hook whose
// hash notesoup cannot compute exactly as Codex does (a command with
// control characters or invalid UTF-8, where JSON encoders differ) makes
// the whole answer an error: install then says how to trust by hand.
func notesoupHookTrust(home string, raw []byte) ([]hookTrust, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string  `json:"type"`
				Command       string  `json:"command"`
				Timeout       *int64  `json:"timeout"`
				Async         bool    `json:"async"`
				StatusMessage *string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("hooks.json: %w", err)
	}
	path := filepath.Join(home, hooksFile)
	var out []hookTrust
	for ev, groups := range doc.Hooks {
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				if !isNotesoupHook(h.Command, ev) {
					continue
				}
				if !hashable(h.Command) || h.StatusMessage != nil && !hashable(*h.StatusMessage) {
					return nil, fmt.Errorf("hooks.json %s: the command %q holds characters notesoup cannot hash as Codex does", ev, h.Command)
				}
				timeout := int64(defaultHookTimeout)
				if h.Timeout != nil {
					timeout = max(*h.Timeout, 1)
				}
				handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
				if h.StatusMessage != nil {
					handler["statusMessage"] = *h.StatusMessage
				}
				identity := map[string]any{"event_name": snake(ev), "hooks": []any{handler}}
				if g.Matcher != nil && eventTakesMatcher(ev) {
					identity["matcher"] = *g.Matcher
				}
				hash, err := trustHash(identity)
				if err != nil {
					return nil, err
				}
				out = append(out, hookTrust{Key: fmt.Sprintf("%s:%s:%d:%d", path, snake(ev), gi, hi), Hash: hash})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// hashable reports whether s encodes to the same JSON in Go as in Codex's
// serde_json: valid UTF-8 with no control characters and no U+2028/U+2029
// (which Go escapes and serde_json does not).
func hashable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 })
}

// trustHash is Codex's hash of a hook identity: "sha256:" and the hex
// SHA-256 of its compact JSON with sorted keys (Go sorts map keys) and no
// HTML escaping (serde_json has none).
func trustHash(identity map[string]any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(identity); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// trustTable is the TOML install writes to trust one hook.
func trustTable(t hookTrust) string {
	return trustComment + "[hooks.state." + tomlString(t.Key) + "]\ntrusted_hash = " + tomlString(t.Hash) + "\n"
}

// hookStates returns config.toml's [hooks.state] tables by key.
func hookStates(cfg map[string]any) map[string]any {
	hooks, _ := cfg["hooks"].(map[string]any)
	states, _ := hooks["state"].(map[string]any)
	return states
}

// withoutStates returns cfg without the hooks.state tables named by keys,
// dropping a hooks.state and a hooks left empty (TOML cannot tell those
// from absent ones once their tables are gone).
func withoutStates(cfg map[string]any, keys []string) map[string]any {
	out := make(map[string]any, len(cfg))
	for k, v := range cfg {
		out[k] = v
	}
	hooks, ok := out["hooks"].(map[string]any)
	if !ok {
		return out
	}
	h := make(map[string]any, len(hooks))
	for k, v := range hooks {
		h[k] = v
	}
	if states, ok := h["state"].(map[string]any); ok {
		s := make(map[string]any, len(states))
		for k, v := range states {
			s[k] = v
		}
		for _, k := range keys {
			delete(s, k)
		}
		h["state"] = s
		if len(s) == 0 {
			delete(h, "state")
		}
	}
	out["hooks"] = h
	if len(h) == 0 {
		delete(out, "hooks")
	}
	return out
}

// mergeTrust records in a config.toml text the trust of each hook in want,
// keeping every other byte: a hook already trusted with the same hash is
// left alone, a hook a person disabled (enabled = false) stays disabled
// and untrusted, and a hook trusted for an older command has its table
// replaced. ok is false when the trust could not be written by editing
// lines (hooks.state written inline, say): out is then old, and the
// messages say how to trust by hand.
func mergeTrust(old string, want []hookTrust) (out string, msgs []string, ok bool) {
	cur, err := decodeTOML([]byte(old))
	if err != nil {
		return old, []string{untrustedNote}, false
	}
	if why := inlineHookState(old); why != "" {
		return old, []string{"could not record the hooks' trust in config.toml: " + why + ", and a [hooks.state.\"...\"] table cannot be added to that; " + untrustedNote}, false
	}
	states := hookStates(cur)
	out = old
	var wrote []string
	for _, t := range want {
		st, _ := states[t.Key].(map[string]any)
		if enabled, isBool := st["enabled"].(bool); isBool && !enabled {
			msgs = append(msgs, fmt.Sprintf("hook %s: disabled in Codex by you, left off and untrusted (enable it with /hooks in codex)", t.Key))
			continue
		}
		if st != nil && st["trusted_hash"] == t.Hash {
			continue
		}
		if st != nil {
			out = cutTables(out, "hooks.state."+tomlString(t.Key))
			out, _ = cutLine(out, trustComment)
		}
		// As the server table goes: one newline first, which uninstall
		// takes back with the table.
		if out != "" {
			out += "\n"
		}
		out += trustTable(t)
		wrote = append(wrote, t.Key)
	}
	if len(wrote) == 0 {
		if len(want) > 0 && len(msgs) == 0 {
			msgs = append(msgs, "Codex already trusts notesoup's hooks")
		}
		return out, msgs, true
	}
	check, err := decodeTOML([]byte(out))
	good := err == nil && sameJSON(withoutStates(check, wrote), withoutStates(cur, wrote))
	for _, k := range wrote {
		st, _ := hookStates(check)[k].(map[string]any)
		good = good && st != nil
		for _, t := range want {
			if t.Key == k {
				good = good && st["trusted_hash"] == t.Hash
			}
		}
	}
	if !good {
		return old, []string{"could not record the hooks' trust in config.toml by editing lines (is [hooks.state] written inline?); " + untrustedNote}, false
	}
	msgs = append(msgs, fmt.Sprintf("hooks trusted: recorded %d of notesoup's hooks in [hooks.state] as Codex's \"Trust all\" does, so Codex runs them (it asks again if a hook is edited)", len(wrote)))
	return out, msgs, true
}

// unmergeTrust takes out of a config.toml text the [hooks.state] tables of
// notesoup's hooks (keys): the ones install wrote, with their comment and
// the blank line before, and the ones Codex wrote when a person trusted
// them. A person's other hook states stay.
func unmergeTrust(old string, keys []string) (string, []string) {
	cur, err := decodeTOML([]byte(old))
	if err != nil {
		return old, nil
	}
	states := hookStates(cur)
	out := old
	n := 0
	for _, k := range keys {
		st, ok := states[k].(map[string]any)
		if !ok {
			continue
		}
		h, _ := st["trusted_hash"].(string)
		// As install writes it, or as Codex's "Trust all" does (no
		// comment), each with the newline before it; else the table
		// whatever its layout.
		table := "[hooks.state." + tomlString(k) + "]\ntrusted_hash = " + tomlString(h) + "\n"
		cut := false
		for _, exact := range []string{trustComment + table, table} {
			if i := strings.Index(out, exact); i >= 0 && (i == 0 || out[i-1] == '\n') {
				from := i
				if i > 0 {
					from = i - 1
				}
				out, cut = out[:from]+out[i+len(exact):], true
				break
			}
		}
		if !cut {
			out = cutTables(out, "hooks.state."+tomlString(k))
		}
		n++
	}
	if n == 0 {
		return old, nil
	}
	out, _ = cutLine(out, trustComment)
	return out, []string{fmt.Sprintf("[hooks.state]: removed the trust of %d notesoup hooks", n)}
}

// inlineHookState says why a [hooks.state."<key>"] table cannot be added
// to a config.toml text ("" when it can): hooks or hooks.state defined by
// a dotted key or an inline table, which TOML does not let a later table
// header extend (BurntSushi/toml accepts it; Codex's parser does not).
func inlineHookState(text string) string {
	table := ""
	for _, l := range splitLines(text) {
		if name, ok := headerName(l); ok {
			table = name
			continue
		}
		key := strings.TrimLeft(l, " \t")
		var name string
		switch table {
		case "":
			name = "hooks"
		case "hooks":
			name = "state"
		default:
			continue
		}
		if rest, ok := strings.CutPrefix(key, name); ok {
			if r := strings.TrimLeft(rest, " \t"); strings.HasPrefix(r, "=") || strings.HasPrefix(r, ".") {
				return "it sets " + strings.TrimPrefix(table+"."+name, ".") + " with a dotted key or an inline table"
			}
		}
	}
	return ""
}
