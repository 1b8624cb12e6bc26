package service

import (
	"context"
	"errors"
	"testing"

	"github.com/notesoup/notesoup/shared/history"
)

func TestRetrying(t *testing.T) {
	retry := &history.Refusal{Reason: "head not on disk yet", Retry: true}
	final := errors.New("malformed line")
	tests := []struct {
		name      string
		fails     []error // errors returned by successive calls, then success
		wantCalls int
		wantErr   error
	}{
		{name: "succeeds at once", wantCalls: 1},
		{name: "retryable then success", fails: []error{retry, retry}, wantCalls: 3},
		{name: "final error is not retried", fails: []error{final}, wantCalls: 1, wantErr: final},
		{name: "gives up after the last delay", fails: []error{retry, retry, retry, retry, retry, retry, retry}, wantCalls: len(retryDelays) + 1, wantErr: retry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			_, err := retrying(context.Background(), func() (int, error) {
				calls++
				if calls <= len(tc.fails) {
					return 0, tc.fails[calls-1]
				}
				return 1, nil
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) {
				t.Fatalf("calls %d err %v, want %d %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
