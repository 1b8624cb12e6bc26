package vault

import (
	"errors"
	"os"
	"time"
)

// HarnessStatus sums up what the vault holds of one harness.
type HarnessStatus struct {
	Harness string `json:"harness"`
	// Sessions counts the transcripts kept; Gone those whose original is
	// no longer at its path (deleted by the harness, or by hand).
	Sessions int `json:"sessions"`
	Gone     int `json:"gone"`
	// Bytes is the transcripts' size as last copied (current generations);
	// Stored what the vault's data files take, older generations included.
	Bytes  int64 `json:"bytes"`
	Stored int64 `json:"stored"`
	// Generations counts rewritten files' older copies, kept too.
	Generations int `json:"older_generations"`
	// LastSync is the newest copy's time; zero when none.
	LastSync time.Time `json:"last_sync,omitzero"`
}

// Status sums up the vault per harness, in harness order. A gone original
// is one that lstat says does not exist; nothing is read.
func (v *Vault) Status() ([]HarnessStatus, error) {
	es, err := v.Entries()
	if err != nil {
		return nil, err
	}
	var out []HarnessStatus
	for _, e := range es {
		if len(out) == 0 || out[len(out)-1].Harness != e.Harness {
			out = append(out, HarnessStatus{Harness: e.Harness})
		}
		h := &out[len(out)-1]
		h.Sessions++
		if Gone(e) {
			h.Gone++
		}
		h.Bytes += e.Size
		h.Stored += e.CLen
		for _, g := range e.Older {
			h.Stored += g.CLen
			h.Generations++
		}
		if t := time.Unix(e.Synced, 0); e.Synced > 0 && t.After(h.LastSync) {
			h.LastSync = t
		}
	}
	return out, nil
}

// Gone reports whether e's original is no longer at its path.
func Gone(e Entry) bool {
	_, err := os.Lstat(e.Path())
	return errors.Is(err, os.ErrNotExist)
}
