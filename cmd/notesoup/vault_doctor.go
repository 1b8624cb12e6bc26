package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/notesoup/notesoup/harness"
)

// vaultDoctorCheck is notesoup doctor's vault row: what the vault keeps,
// and which harnesses will delete transcripts and when. A vault missing
// while a harness deletes is worth a warning (doctor's exit stays 0: the
// harness's own retention row is the problem to fix).
func vaultDoctorCheck(ctx context.Context) harness.Check {
	c := harness.Check{Subject: "notesoup", Item: "vault", Status: harness.CheckOK}
	var deleting []string
	for _, r := range retentions(ctx, historyRoots{}) {
		if r.Known && r.Deletes {
			deleting = append(deleting, r.Harness+" "+retentionNext(r))
		}
	}
	svc, done, err := historyService(historyRoots{})
	if err != nil {
		c.Status, c.Detail = harness.CheckWarn, err.Error()
		return c
	}
	defer done()
	hs, err := svc.VaultStatus()
	if err != nil {
		c.Status, c.Detail, c.Fix = harness.CheckWarn, err.Error(), "notesoup vault status"
		return c
	}
	var kept, gone int
	var last time.Time
	for _, h := range hs {
		kept += h.Sessions
		gone += h.Gone
		if h.LastSync.After(last) {
			last = h.LastSync
		}
	}
	switch {
	case kept == 0 && len(deleting) > 0:
		c.Status = harness.CheckWarn
		c.Detail = "the vault keeps nothing, and transcripts will be deleted (" + strings.Join(deleting, "; ") + ")"
		c.Fix = "notesoup vault sync"
	case kept == 0:
		c.Detail = "the vault keeps nothing yet; no harness is known to delete transcripts"
	default:
		c.Detail = fmt.Sprintf("%d sessions kept (%d whose originals are gone), last copy %s", kept, gone, histStamp(last))
		if len(deleting) > 0 {
			c.Detail += "; next deletions: " + strings.Join(deleting, "; ")
		}
	}
	return c
}
