// Package fileio holds the file handling shared by the on-disk formats:
// read-only memory maps for large inputs and atomic replacement on write.
package fileio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WithMapped maps path read-only for the duration of fn. Parameter and
// circuit files reach tens of GiB; mapping avoids a second copy in memory
// and lets decoding goroutines fault pages in in parallel. fn must not keep
// data after it returns.
func WithMapped(path string, fn func(data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == 0 {
		return fn(nil)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap %s: %w", path, err)
	}
	defer syscall.Munmap(data)
	return fn(data)
}

// WriteAtomic writes through a temporary file in the same directory, syncs
// it and renames it over path, so a reader never sees a half-written file.
func WriteAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Decode maps path and runs decode on its bytes. Errors from opening or
// mapping the file are prefixed with pkg ("params: open …"); decode's own
// errors, which carry their package's prefix already, come back unchanged.
func Decode(pkg, path string, decode func(data []byte) error) error {
	var decodeErr error
	err := WithMapped(path, func(data []byte) error {
		decodeErr = decode(data)
		return decodeErr
	})
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

// StampOf returns path's stamp.
func StampOf(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	s := Stamp{Size: st.Size(), ModTime: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ChangeTime = sys.Ctim.Nano()
		s.Inode, s.Device = sys.Ino, uint64(sys.Dev)
	}
	return s, nil
}
