package rawread

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is Open's refusal of anything but a regular file reached
// without a symbolic link: a FIFO, a device, a directory, a link.
var ErrNotRegular = errors.New("not a regular file")

// Open opens the regular file at path for reading, as every transcript
// read must: a symbolic link in its last component is not followed (a link
// planted in a harness's roots could lead anywhere on the machine), a FIFO
// or device is refused without blocking on it, and the check is made on
// the open file (fstat), so the file read is the file checked. The error
// of a refusal wraps ErrNotRegular and names the path; a missing file's
// wraps fs.ErrNotExist. The caller closes the file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock|openNoFollow, 0)
	if err != nil {
		if isLinkRefusal(err) {
			return nil, nil, fmt.Errorf("%s is a symbolic link: %w (only files inside the roots are read)", path, ErrNotRegular)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is a %s, %w", path, kindName(fi.Mode()), ErrNotRegular)
	}
	return f, fi, nil
}

// kindName names a file's type for a refusal.
func kindName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
