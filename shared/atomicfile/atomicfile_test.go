package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	refuse := errors.New("changed meanwhile")
	tests := []struct {
		name     string
		existing string
		opts     Options
		wantErr  error
		want     string
		wantPerm os.FileMode
	}{
		{name: "creates", want: "new", wantPerm: 0o600},
		{name: "replaces", existing: "old", want: "new", wantPerm: 0o600},
		{name: "mode", opts: Options{Perm: 0o644}, want: "new", wantPerm: 0o644},
		{name: "refused before rename keeps the old file", existing: "old",
			opts: Options{BeforeRename: func() error { return refuse }}, wantErr: refuse, want: "old", wantPerm: 0o600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.md")
			if tc.existing != "" {
				if err := os.WriteFile(path, []byte(tc.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, []byte("new"), tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			st, _ := os.Stat(path)
			if st.Mode().Perm() != tc.wantPerm {
				t.Fatalf("mode %v, want %v", st.Mode().Perm(), tc.wantPerm)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("temporary files left: %v", ents)
			}
		})
	}
	if err := Write(filepath.Join(t.TempDir(), "missing", "f"), nil, Options{}); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}
