// Package fileio holds the file handling shared by the on-disk formats and
// the command line: read-only memory maps for large inputs, read under a
// guard against the file shrinking underneath; inputs refused unless they
// are regular files; and atomic replacement on write.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error for an input that is not a regular
// file (a FIFO, a device, a socket, a directory). Such a path is refused
// before it is opened: opening a FIFO blocks until a writer comes, and
// opening some devices has side effects.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading if it is a regular file, without
// blocking. It stats first so that nothing else is opened; the open itself
// is non-blocking and the descriptor checked again, in case the path was
// replaced between the two.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st)
	}
	return f, st, nil
}

func notRegular(path string, st os.FileInfo) error {
	kind := "special file"
	switch m := st.Mode(); {
	case m.IsDir():
		kind = "directory"
	case m&os.ModeNamedPipe != 0:
		kind = "FIFO"
	case m&os.ModeSocket != 0:
		kind = "socket"
	case m&os.ModeDevice != 0:
		kind = "device"
	}
	return fmt.Errorf("%s: %w (a %s)", path, ErrNotRegular, kind)
}

// ReadFile reads a small input whole: path must be a regular file of at
// most limit bytes (a bound stated by the caller for what the format can
// hold, so that a wrong path cannot make it read gigabytes).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d this input can hold", path, st.Size(), limit)
	}
	// Read one byte past the limit: the file may have grown since Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: more than the %d bytes this input can hold", path, limit)
	}
	return data, nil
}

// WithMapped maps path read-only for the duration of fn. Parameter and
// circuit files reach tens of GiB; mapping avoids a second copy in memory
// and lets decoding goroutines fault pages in in parallel. fn must not keep
// data after it returns, and must read data only inside Guard (fn itself
// runs inside one; goroutines it starts need their own).
func WithMapped(path string, fn func(data []byte) error) error {
	return WithOpened(path, func(o *Opened) error { return fn(o.Data) })
}

// Opened is a file WithOpened opened and mapped: its bytes and its stamp,
// both from the one descriptor, so that they describe the same file
// whatever the path names meanwhile (a symlink flipped, a file renamed
// over it).
type Opened struct {
	Data  []byte
	Stamp Stamp // the descriptor's, when it was opened
	f     *os.File
}

// Restamp returns the descriptor's stamp now: it differs from Stamp when
// the file was written since it was opened.
func (o *Opened) Restamp() (Stamp, error) {
	st, err := o.f.Stat()
	if err != nil {
		return Stamp{}, err
	}
	return StampOfInfo(st), nil
}

// Keep returns a second descriptor of the opened file, which outlives
// WithOpened (the caller closes it): the file read again later through
// it (WithFile) is this one, whatever the path names by then or if it is
// removed.
func (o *Opened) Keep() (*os.File, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, o.f.Fd(), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return nil, fmt.Errorf("%s: keeping the file open: %w", o.f.Name(), errno)
	}
	return os.NewFile(fd, o.f.Name()), nil
}

// WithOpened is WithMapped, giving fn the descriptor's stamp beside the
// bytes.
func WithOpened(path string, fn func(o *Opened) error) error {
	f, st, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return withFile(path, f, st, fn)
}

// WithFile is WithOpened for a file kept open (Opened.Keep): the stamp
// is the descriptor's now.
func WithFile(f *os.File, fn func(o *Opened) error) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return withFile(f.Name(), f, st, fn)
}

func withFile(path string, f *os.File, st os.FileInfo, fn func(o *Opened) error) error {
	o := &Opened{Stamp: StampOfInfo(st), f: f}
	if st.Size() == 0 {
		return fn(o)
	}
	if int64(int(st.Size())) != st.Size() {
		return fmt.Errorf("%s: %d bytes is too large to map", path, st.Size())
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %s: %w", path, err)
	}
	defer syscall.Munmap(data)
	o.Data = data
	err = Guard(data, func() error { return fn(o) })
	if err != nil && !errors.Is(err, ErrShrank) {
		// A cut inside a page faults nowhere: the rest of that page reads
		// as zeros. Whatever error that caused, the cause is the cut.
		if now, serr := f.Stat(); serr == nil && now.Size() < st.Size() {
			return &shrankError{mapped: st.Size(), now: now.Size()}
		}
	}
	return err
}

// Decode maps path and runs decode on its bytes. Errors from opening or
// mapping the file are prefixed with pkg ("params: open …"), as is a read
// that faulted because the file shrank underneath (which names the file);
// decode's own errors, which carry their package's prefix already, come
// back unchanged.
func Decode(pkg, path string, decode func(data []byte) error) error {
	return DecodeOpened(pkg, path, func(o *Opened) error { return decode(o.Data) })
}

// DecodeOpened is Decode, giving decode the opened file (its stamp too).
func DecodeOpened(pkg, path string, decode func(o *Opened) error) error {
	return decodeWith(pkg, path, func(fn func(o *Opened) error) error { return WithOpened(path, fn) }, decode)
}

// DecodeFile is DecodeOpened for a file kept open (Opened.Keep).
func DecodeFile(pkg string, f *os.File, decode func(o *Opened) error) error {
	return decodeWith(pkg, f.Name(), func(fn func(o *Opened) error) error { return WithFile(f, fn) }, decode)
}

func decodeWith(pkg, path string, with func(func(o *Opened) error) error, decode func(o *Opened) error) error {
	var decodeErr error
	err := with(func(o *Opened) error {
		decodeErr = decode(o)
		return decodeErr
	})
	var shrank *shrankError
	if errors.As(err, &shrank) {
		return fmt.Errorf("%s: %s: %w: %s", pkg, path, ErrShrank, shrank.detail())
	}
	if decodeErr != nil {
		return decodeErr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return nil
}

// Stamp identifies one version of a file without reading it: a rewrite in
// place changes the size or the times, a replacement by rename changes the
// inode. Equal stamps are taken to mean equal contents.
type Stamp struct {
	Size          int64
	ModTime       int64 // ns
	ChangeTime    int64 // ns; also moves on chmod, link and rename
	Inode, Device uint64
}

// Unwritten reports whether now, a later stamp of the descriptor s was
// taken from, shows no write since: the same file (inode, device), size
// and modification time. The change time is not compared: it also moves
// when the file is linked, renamed or removed, which leaves its bytes as
// they were. (A path opened again is compared whole: its stamp equal.)
func (s Stamp) Unwritten(now Stamp) bool {
	return s.Size == now.Size && s.ModTime == now.ModTime && s.Inode == now.Inode && s.Device == now.Device
}

// StampOf returns path's stamp. A stamp that must describe the bytes read
// comes from the descriptor read (Opened), not from the path.
func StampOf(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return StampOfInfo(st), nil
}

// StampOfInfo is the stamp of a file's status (from an open descriptor's
// Stat, say).
func StampOfInfo(st os.FileInfo) Stamp {
	s := Stamp{Size: st.Size(), ModTime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ChangeTime = sys.Ctim.Nano()
		s.Inode, s.Device = sys.Ino, uint64(sys.Dev)
	}
	return s
}
