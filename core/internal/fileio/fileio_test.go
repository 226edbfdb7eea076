package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/filetest"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteAtomicReplacesLinkNotTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o644))
	link := filepath.Join(dir, "proof.bin")
	require.NoError(t, os.Symlink(target, link))

	require.NoError(t, WriteFileAtomic(link, []byte("new")))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "keep me", string(got), "the link's target was written")
	st, err := os.Lstat(link)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "the link is still a link")
	got, _ = os.ReadFile(link)
	require.Equal(t, "new", string(got))
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	require.Equal(t, []string{"proof.bin"}, entries(t, dir))
}

func TestWriteAtomicFailureLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "proof.bin")
	require.NoError(t, os.WriteFile(path, []byte("old proof"), 0o644))
	boom := errors.New("disk full")
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half a pro")) // part written, then the failure
		return boom
	})
	require.ErrorIs(t, err, boom)
	got, _ := os.ReadFile(path)
	require.Equal(t, "old proof", string(got))
	require.Equal(t, []string{"proof.bin"}, entries(t, dir), "temporary left behind")

	// No prior file: none at the final name either.
	err = WriteAtomic(filepath.Join(dir, "new.bin"), func(io.Writer) error { return boom })
	require.ErrorIs(t, err, boom)
	require.Equal(t, []string{"proof.bin"}, entries(t, dir))
}

func TestWriteAtomicReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "vk")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	require.Error(t, WriteFileAtomic(path, []byte("new")))
	got, _ := os.ReadFile(path)
	require.Equal(t, "old", string(got))
	require.Equal(t, []string{"vk"}, entries(t, dir))
}

func TestWriteAtomicCleansStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	mk := func(name string, mtime time.Time) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
	}
	mk(".c.params.cuzk-tmp-123", old)        // a killed run's: removed
	mk("c.params.tmp4567", old)              // an earlier version's: removed
	mk(".c.params.cuzk-tmp-456", time.Now()) // a live writer's: kept
	mk(".other.cuzk-tmp-789", old)           // another destination's: kept
	mk("c.params.tmpfoo", old)               // not ours: kept
	require.NoError(t, WriteFileAtomic(filepath.Join(dir, "c.params"), []byte("p")))
	require.ElementsMatch(t, []string{"c.params", ".c.params.cuzk-tmp-456", ".other.cuzk-tmp-789", "c.params.tmpfoo"}, entries(t, dir))
}

func TestNonRegularRefusedAtOnce(t *testing.T) {
	for _, path := range filetest.NonRegular(t) {
		for name, read := range map[string]func() error{
			"ReadFile":   func() error { _, err := ReadFile(path, 1<<20); return err },
			"WithMapped": func() error { return WithMapped(path, func([]byte) error { return nil }) },
		} {
			err := filetest.Promptly(t, name+"("+path+")", read)
			require.ErrorIs(t, err, ErrNotRegular, "%s(%s)", name, path)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("12345"), 0o644))
	got, err := ReadFile(path, 5)
	require.NoError(t, err)
	require.Equal(t, "12345", string(got))
	_, err = ReadFile(path, 4)
	require.ErrorContains(t, err, "more than the 4")
}

// TestGuard: a read past the end of a shrunk mapping is an error, in the
// guarded goroutine and re-raised from another; a fault elsewhere is not
// taken for one.
func TestGuard(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o644))
	var sum byte
	err := Decode("test", path, func(data []byte) error {
		require.NoError(t, os.Truncate(path, 4096))
		sum += data[len(data)-1]
		return nil
	})
	require.ErrorIs(t, err, ErrShrank)
	require.True(t, strings.HasPrefix(err.Error(), "test: "+path+": "), err.Error())

	require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o644))
	err = WithMapped(path, func(data []byte) error {
		require.NoError(t, os.Truncate(path, 0))
		errc := make(chan error)
		go func() { errc <- Guard(data, func() error { sum += data[8192]; return nil }) }()
		Reraise(<-errc)
		return nil
	})
	require.ErrorIs(t, err, ErrShrank)

	require.Panics(t, func() {
		Guard(make([]byte, 8), func() error {
			var p *[8]byte
			sum += p[0]
			return nil
		})
	})
}

// TestWriteAtomicErrorsNameTheDestination: a failed write names the file
// asked for, never the temporary beside it (a missing directory used to
// report "open DIR/.x.cuzk-tmp-123: no such file or directory").
func TestWriteAtomicErrorsNameTheDestination(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing", "x.params")
	err := WriteFileAtomic(missing, []byte("p"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, "write "+missing+": no such file or directory", err.Error())

	// An error of the writer that names the temporary (as *os.File's
	// Write does) names the destination instead.
	path := filepath.Join(dir, "y.params")
	err = WriteAtomic(path, func(w io.Writer) error {
		f := w.(*os.File)
		return fmt.Errorf("encoding: %w", &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC})
	})
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.NotContains(t, err.Error(), tmpInfix)
	require.Contains(t, err.Error(), "write "+path+": encoding: write "+path+": no space left on device")

	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		err = WriteFileAtomic(filepath.Join(ro, "z"), []byte("p"))
		require.ErrorIs(t, err, os.ErrPermission)
		require.NotContains(t, err.Error(), tmpInfix)
	}
}
