package fileio

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// tmpInfix marks WriteAtomic's temporary files: ".NAME.cuzk-tmp-RANDOM"
// beside NAME, hidden, and recognisable as ours when a killed run leaves
// one behind.
const tmpInfix = ".cuzk-tmp-"

// StaleAfter is how long a temporary file may go unmodified before a later
// write of the same destination removes it as left by a killed run. A live
// writer moves its file's modification time with every buffer it writes
// (1 MiB at a time); 15 minutes is far beyond any pause between two.
const StaleAfter = 15 * time.Minute

// oldTmp matches the temporaries of earlier versions of WriteAtomic
// ("NAME.tmp" and random digits), cleaned the same way.
var oldTmp = regexp.MustCompile(`^\.tmp[0-9]+$`)

// WriteAtomic writes path through a temporary file in the same directory,
// syncs it and renames it over path: a reader, or a run killed at any
// point, sees the old file or the new one, never a partial one. On failure
// the temporary file is removed and path is untouched. The file gets mode
// 0644.
//
// If path is a symbolic link, the rename replaces the link itself with the
// new file; the link's target is never written. Stale temporary files of
// earlier, killed writes of path (older than StaleAfter) are removed.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	cleanStale(dir, base)
	tmp, err := os.CreateTemp(dir, "."+base+tmpInfix+"*")
	if err != nil {
		return writeErr(path, "", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
			err = writeErr(path, tmp.Name(), err)
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	// Make the rename itself durable; a failure here leaves the new file
	// in place, so it is not reported.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeErr names path, never the temporary file (a name the user did not
// give, of a file that no longer exists): "write DIR/x.params: no such
// file or directory" for a missing directory, not the temporary's open.
func writeErr(path, tmp string, err error) error {
	// The operation on the temporary (open, write, rename) says nothing the
	// prefix does not: keep its cause. Deeper errors keep their context,
	// the temporary's name replaced in their text.
	switch e := err.(type) {
	case *os.PathError:
		if e.Path == tmp || strings.Contains(e.Path, tmpInfix) {
			err = e.Err
		}
	case *os.LinkError:
		if e.Old == tmp {
			err = e.Err
		}
	}
	return &hiddenTmp{path: path, tmp: tmp, err: err}
}

// hiddenTmp is a write error of path; its text has the temporary file's
// name, wherever a wrapped error carries it, replaced by path.
type hiddenTmp struct {
	path, tmp string
	err       error
}

func (h *hiddenTmp) Error() string {
	msg := h.err.Error()
	if h.tmp != "" {
		msg = strings.ReplaceAll(msg, h.tmp, h.path)
	}
	return "write " + h.path + ": " + msg
}

func (h *hiddenTmp) Unwrap() error { return h.err }

// WriteFileAtomic writes data to path with WriteAtomic.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// cleanStale removes the temporary files of earlier writes of base in dir
// not modified for StaleAfter. Errors are ignored: cleaning is a courtesy.
func cleanStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		ours := strings.HasPrefix(name, "."+base+tmpInfix) ||
			(strings.HasPrefix(name, base) && oldTmp.MatchString(name[len(base):]))
		if !ours || !e.Type().IsRegular() {
			continue
		}
		if st, err := e.Info(); err == nil && time.Since(st.ModTime()) > StaleAfter {
			os.Remove(filepath.Join(dir, name))
		}
	}
}
