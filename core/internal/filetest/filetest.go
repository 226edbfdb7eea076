// Package filetest holds the helpers of the tests that give readers files
// that are not regular files.
package filetest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// NonRegular returns paths that every reader must refuse at once: a FIFO
// (an open for reading blocks until a writer comes), a directory and a
// device.
func NonRegular(t *testing.T) []string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{fifo, t.TempDir(), "/dev/zero"}
}

// Promptly returns fn's error, failing t if fn has not returned within a
// minute: a reader blocked in an open never returns. (A bound on a hang,
// not a timing assertion: a refusal takes microseconds.)
func Promptly(t *testing.T, what string, fn func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- fn() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
		return nil
	}
}

// OpenDescriptors counts this process's descriptors of path, removed or
// not (Linux's /proc/self/fd).
func OpenDescriptors(t *testing.T, path string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && (target == path || target == path+" (deleted)") {
			n++
		}
	}
	return n
}
