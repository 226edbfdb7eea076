package params

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/progress"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// countHashes counts the content keys computed until the test ends.
func countHashes(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	t.Cleanup(func() { hashContent = ContentKeyOf })
	hashContent = func(data []byte, nbTasks int) ContentKey {
		n.Add(1)
		return ContentKeyOf(data, nbTasks)
	}
	return &n
}

// stampedRecord opens a record in dir that stamps files at once: the tests
// write a file and load it within racyWindow.
func stampedRecord(dir string) *Record {
	rec := OpenRecord(dir, nil)
	rec.racy = 0
	return rec
}

// changeFile runs write until path's stamp moves: a file system keeps
// times at a coarse granularity, so a write in the same tick as the last
// leaves them (the case racyWindow guards against; see TestRacyStamp).
func changeFile(t *testing.T, path string, write func()) {
	was, err := fileio.StampOf(path)
	require.NoError(t, err)
	for {
		write()
		now, err := fileio.StampOf(path)
		require.NoError(t, err)
		if now != was {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// loadHow loads path and returns how it was validated and whether it was
// hashed.
func loadHow(t *testing.T, path string, opt Options, hashes *atomic.Int64) (Validation, bool) {
	t.Helper()
	n := hashes.Load()
	_, info, err := ReadProvingKeyInfo(path, opt)
	require.NoError(t, err)
	require.NoError(t, info.RecordErr)
	hashed := hashes.Load() > n
	require.Equal(t, !hashed, info.Stamped)
	return info.Validation, hashed
}

func TestStampSkipsHashing(t *testing.T) {
	hashes := countHashes(t)
	dir, path := keyFile(t, 21)
	chk := &countingChecker{}
	opt := Options{Checker: chk, Record: stampedRecord(filepath.Join(dir, "rec"))}
	how, hashed := loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationChecked, how)
	require.True(t, hashed)
	checked := chk.points.Load()

	how, hashed = loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationRecord, how)
	require.False(t, hashed, "an unchanged file is not hashed again")

	// The record holds the file's stat, as the kernel gives it.
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	var doc recordDoc
	data, err := os.ReadFile(opt.Record.Path())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Len(t, doc.Entries, 1)
	require.Equal(t, []recordFile{{Path: path, Size: st.Size, ModTime: st.Mtim.Nano(), ChangeTime: st.Ctim.Nano(), Inode: st.Ino, Device: uint64(st.Dev)}}, doc.Entries[0].Files)

	good, err := os.ReadFile(path)
	require.NoError(t, err)
	changes := []struct {
		name   string
		change func()
	}{
		{"touched", func() { now := time.Now(); require.NoError(t, os.Chtimes(path, now, now)) }},
		{"chmod", func() { require.NoError(t, os.Chmod(path, 0o600)); require.NoError(t, os.Chmod(path, 0o644)) }},
		{"rewritten in place", func() { require.NoError(t, os.WriteFile(path, good, 0o644)) }},
		{"replaced", func() {
			tmp := path + ".new"
			require.NoError(t, os.WriteFile(tmp, good, 0o644))
			require.NoError(t, os.Rename(tmp, path))
		}},
	}
	for _, c := range changes {
		changeFile(t, path, c.change)
		how, hashed = loadHow(t, path, opt, hashes)
		require.Equal(t, ValidationRecord, how, c.name)
		require.True(t, hashed, "%s: hashed again, found by content", c.name)
		how, hashed = loadHow(t, path, opt, hashes)
		require.Equal(t, ValidationRecord, how, c.name)
		require.False(t, hashed, "%s: stamped again", c.name)
	}

	// A copy elsewhere is found by content, then by its own stamp; the
	// first file keeps its stamp.
	other := filepath.Join(t.TempDir(), "copy.params")
	require.NoError(t, os.WriteFile(other, good, 0o644))
	for _, want := range []bool{true, false} {
		how, hashed = loadHow(t, other, opt, hashes)
		require.Equal(t, ValidationRecord, how)
		require.Equal(t, want, hashed)
	}
	_, hashed = loadHow(t, path, opt, hashes)
	require.False(t, hashed)
	require.Equal(t, checked, chk.points.Load(), "checked once")
}

// Valid contents recorded with their stamp, then a point moved off the
// subgroup in place (same size): refused on every load.
func TestStampedThenCorruptedRefused(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(23, 24)))
	good := keyBytes(t, pk)
	bad := append([]byte(nil), good...)
	copy(bad[sectionOffset(pk, "a", 2):], offSubgroupG1(t))
	dir := t.TempDir()
	path := filepath.Join(dir, "k.params")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	hashes := countHashes(t)
	opt := Options{Record: stampedRecord(dir)}
	loadHow(t, path, opt, hashes)
	_, hashed := loadHow(t, path, opt, hashes)
	require.False(t, hashed, "stamped")

	changeFile(t, path, func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(bad[sectionOffset(pk, "a", 2):sectionOffset(pk, "a", 3)], int64(sectionOffset(pk, "a", 2)))
		require.NoError(t, err)
		require.NoError(t, f.Close())
	})
	for range 3 {
		_, err := ReadProvingKey(path, opt)
		require.ErrorIs(t, err, ErrNotInGroup)
		require.ErrorContains(t, err, "params: a[2]: point not in the prime-order subgroup")
	}
}

// A stamp taken within racyWindow of the file's last change is not
// recorded: a second write in the same time tick would leave it equal.
func TestRacyStamp(t *testing.T) {
	hashes := countHashes(t)
	dir, path := keyFile(t, 25)
	opt := Options{Record: OpenRecord(dir, nil)}
	how, hashed := loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationChecked, how)
	require.True(t, hashed)
	how, hashed = loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationRecord, how)
	require.True(t, hashed, "just written: found by content, not by stamp")
	st, err := fileio.StampOf(path)
	require.NoError(t, err)
	require.False(t, opt.Record.stampable(st, time.Unix(0, st.ChangeTime).Add(racyWindow-1)))
	require.True(t, opt.Record.stampable(st, time.Unix(0, st.ChangeTime).Add(racyWindow+1)))
}

// A record written before stamps were kept still vouches by content, and
// gains the stamp.
func TestRecordWithoutStamps(t *testing.T) {
	hashes := countHashes(t)
	dir, path := keyFile(t, 27)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	key := sha256Of([]byte(contentTag), bigEndian64(len(data)), sha256Of(data))
	old := fmt.Sprintf(`{"entries": [{"key": "%x", "size": %d, "name": "k.params", "how": "checked", "time": "2025-01-02T03:04:05Z"}]}`, key, len(data))
	rec := stampedRecord(dir)
	require.NoError(t, os.WriteFile(rec.Path(), []byte(old), 0o600))
	opt := Options{Record: rec}
	how, hashed := loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationRecord, how)
	require.True(t, hashed)
	how, hashed = loadHow(t, path, opt, hashes)
	require.Equal(t, ValidationRecord, how)
	require.False(t, hashed)
}

// A stamped file changed while it is read is checked, not trusted, and not
// recorded.
func TestStampedFileChangedWhileRead(t *testing.T) {
	hashes := countHashes(t)
	dir, path := keyFile(t, 29)
	rec := stampedRecord(dir)
	loadHow(t, path, Options{Record: rec}, hashes)
	chk := &countingChecker{}
	touch := func(e progress.Event) {
		if e.Stage == StageDecode && e.Final() {
			changeFile(t, path, func() { now := time.Now(); require.NoError(t, os.Chtimes(path, now, now)) })
		}
	}
	_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec, Progress: touch})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.False(t, info.Stamped)
	require.NotZero(t, chk.points.Load())
	require.ErrorContains(t, info.RecordErr, "changed while it was read")
}

func bigEndian64(n int) []byte {
	b := make([]byte, 8)
	for i := range 8 {
		b[7-i] = byte(n >> (8 * i))
	}
	return b
}
