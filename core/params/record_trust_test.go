package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/progress"
)

// inode returns path's inode (the link's target's).
func inode(t *testing.T, path string) uint64 {
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return st.Ino
}

// readDoc reads the record's file as the tests see it.
func readDoc(t *testing.T, rec *Record) recordDoc {
	var doc recordDoc
	data, err := os.ReadFile(rec.Path())
	if os.IsNotExist(err) {
		return doc
	}
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	return doc
}

// The parameter path a symlink flipped between a good file and a bad one
// (a point off the subgroup, same size) while loads run beside each
// other on one record: no load returns the bad contents, and the record
// never holds the bad file's stamp (its inode) nor its contents' key,
// under any key. Every load reads one file throughout: the one its open
// found.
func TestRecordUnderSymlinkFlips(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(51, 52)))
	good := keyBytes(t, pk)
	bad := append([]byte(nil), good...)
	copy(bad[sectionOffset(pk, "l", 1):], offSubgroupG1(t))
	dir := t.TempDir()
	goodPath, badPath := filepath.Join(dir, "good.params"), filepath.Join(dir, "bad.params")
	require.NoError(t, os.WriteFile(goodPath, good, 0o644))
	require.NoError(t, os.WriteFile(badPath, bad, 0o644))
	badKey, goodKey := ContentKeyOf(bad, 1).String(), ContentKeyOf(good, 1).String()
	badInode, goodInode := inode(t, badPath), inode(t, goodPath)
	link := filepath.Join(dir, "k.params")
	require.NoError(t, os.Symlink(goodPath, link))

	// Flip the link as fast as renames go.
	stop := make(chan struct{})
	var flips atomic.Int64
	var flipper sync.WaitGroup
	flipper.Go(func() {
		tmp := link + ".tmp"
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := goodPath
			if i%2 == 1 {
				target = badPath
			}
			_ = os.Remove(tmp)
			if os.Symlink(target, tmp) == nil && os.Rename(tmp, link) == nil {
				flips.Add(1)
			}
		}
	})

	rec := stampedRecord(filepath.Join(dir, "record")) // stamps recorded at once
	var loaders sync.WaitGroup
	var goodLoads, byRecord, badLoads atomic.Int64
	var failures sync.Map
	deadline := time.Now().Add(2 * time.Second)
	for range 4 {
		loaders.Go(func() {
			for time.Now().Before(deadline) {
				got, info, err := ReadProvingKeyInfo(link, Options{Record: rec})
				switch {
				case err == nil && bytes.Equal(keyBytes(t, got), good):
					goodLoads.Add(1)
					if info.Validation == ValidationRecord {
						byRecord.Add(1)
					}
				case err == nil:
					failures.Store("a load returned contents other than the good file's", true)
				case errors.Is(err, ErrNotInGroup):
					badLoads.Add(1)
				default:
					failures.Store(err.Error(), true)
				}
			}
		})
	}
	loaders.Wait()
	close(stop)
	flipper.Wait()
	failures.Range(func(k, _ any) bool { t.Error(k); return true })
	t.Logf("%d flips, %d good loads (%d by the record), %d refused", flips.Load(), goodLoads.Load(), byRecord.Load(), badLoads.Load())
	require.Positive(t, byRecord.Load(), "the record's shortcuts ran")
	require.Positive(t, badLoads.Load())

	doc := readDoc(t, rec)
	require.NotEmpty(t, doc.Entries)
	for _, e := range doc.Entries {
		require.NotEqual(t, badKey, e.Key, "the bad contents recorded")
		require.Equal(t, goodKey, e.Key)
		for _, f := range e.Files {
			require.NotEqual(t, badInode, f.Inode, "the bad file's stamp recorded")
			require.Equal(t, goodInode, f.Inode)
		}
	}
}

// badKeyFile writes a valid key's file with one point moved off the
// subgroup to dir/name, and returns its bytes.
func badKeyFile(t *testing.T, dir, name string, seed uint64) []byte {
	pk := randomKey(rand.New(rand.NewPCG(seed, seed+1)))
	bad := keyBytes(t, pk)
	copy(bad[sectionOffset(pk, "h", 0):], offSubgroupG1(t))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), bad, 0o644))
	return bad
}

// forgedRecord is a record vouching for data.
func forgedRecord(t *testing.T, data []byte) []byte {
	doc := recordDoc{Entries: []recordEntry{{Key: ContentKeyOf(data, 1).String(), Size: int64(len(data)), Name: "k.params", How: ValidationChecked, Time: time.Now()}}}
	js, err := json.Marshal(doc)
	require.NoError(t, err)
	return js
}

// A record that another user could have written is ignored with one
// warning, whatever it vouches for: its directory or file writable by
// group or others, either owned by another user, or the file a symbolic
// link. A forged record vouching for a file with a point off the subgroup
// then leaves that file refused, and is not written to; made private, the
// same record is trusted again (so only the rule stopped it).
func TestRecordIgnoredUnlessPrivate(t *testing.T) {
	const nobody = 65534
	cases := []struct {
		name   string
		root   bool // needs root (chown)
		spoil  func(t *testing.T, dir, file string)
		repair func(t *testing.T, dir, file string)
		says   string
	}{
		{name: "directory writable by others",
			spoil:  func(t *testing.T, dir, _ string) { require.NoError(t, os.Chmod(dir, 0o777)) },
			repair: func(t *testing.T, dir, _ string) { require.NoError(t, os.Chmod(dir, 0o700)) },
			says:   "directory " + "%s is writable by group or others (mode 0777)"},
		{name: "directory writable by group",
			spoil:  func(t *testing.T, dir, _ string) { require.NoError(t, os.Chmod(dir, 0o770)) },
			repair: func(t *testing.T, dir, _ string) { require.NoError(t, os.Chmod(dir, 0o750)) },
			says:   "writable by group or others (mode 0770)"},
		{name: "file writable by others",
			spoil:  func(t *testing.T, _, file string) { require.NoError(t, os.Chmod(file, 0o666)) },
			repair: func(t *testing.T, _, file string) { require.NoError(t, os.Chmod(file, 0o644)) },
			says:   "record %s is writable by group or others (mode 0666)"},
		{name: "file writable by group",
			spoil:  func(t *testing.T, _, file string) { require.NoError(t, os.Chmod(file, 0o620)) },
			repair: func(t *testing.T, _, file string) { require.NoError(t, os.Chmod(file, 0o600)) },
			says:   "(mode 0620)"},
		{name: "file a symbolic link",
			spoil: func(t *testing.T, _, file string) {
				target := filepath.Join(t.TempDir(), "elsewhere.json")
				require.NoError(t, os.Rename(file, target))
				require.NoError(t, os.Symlink(target, file))
			},
			repair: func(t *testing.T, _, file string) {
				target, err := os.Readlink(file)
				require.NoError(t, err)
				require.NoError(t, os.Rename(target, file))
			},
			says: "record %s is a symbolic link"},
		{name: "file owned by another user", root: true,
			spoil:  func(t *testing.T, _, file string) { require.NoError(t, os.Chown(file, nobody, nobody)) },
			repair: func(t *testing.T, _, file string) { require.NoError(t, os.Chown(file, os.Geteuid(), os.Getegid())) },
			says:   "is owned by uid 65534"},
		{name: "directory owned by another user", root: true,
			spoil:  func(t *testing.T, dir, _ string) { require.NoError(t, os.Chown(dir, nobody, nobody)) },
			repair: func(t *testing.T, dir, _ string) { require.NoError(t, os.Chown(dir, os.Geteuid(), os.Getegid())) },
			says:   "directory %s is owned by uid 65534"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				t.Skip("chown needs root")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "k.params")
			bad := badKeyFile(t, dir, "k.params", 61)
			recDir := filepath.Join(dir, "record")
			require.NoError(t, os.Mkdir(recDir, 0o700))
			var warnings []string
			rec := OpenRecord(recDir, func(err error) { warnings = append(warnings, err.Error()) })
			require.NoError(t, os.WriteFile(rec.Path(), forgedRecord(t, bad), 0o600))
			c.spoil(t, recDir, rec.Path())
			var before []byte
			if st, err := os.Lstat(rec.Path()); err == nil && st.Mode().IsRegular() {
				before, _ = os.ReadFile(rec.Path())
			}

			for range 3 {
				_, err := ReadProvingKey(path, Options{Record: rec})
				require.ErrorIs(t, err, ErrNotInGroup)
			}
			good, _ := keyFile(t, 62) // a valid file's check is not recorded either
			_, info, err := ReadProvingKeyInfo(filepath.Join(good, "k.params"), Options{Record: rec})
			require.NoError(t, err)
			require.Equal(t, ValidationChecked, info.Validation)
			require.NoError(t, info.RecordErr)
			require.Len(t, warnings, 1, "one warning: %q", warnings)
			want := c.says
			if strings.Contains(want, "%s") {
				where := rec.Path()
				if strings.HasPrefix(want, "directory") {
					where = recDir
				}
				want = fmt.Sprintf(want, where)
			}
			require.Contains(t, warnings[0], want)
			require.Contains(t, warnings[0], "ignored")
			if before != nil {
				after, err := os.ReadFile(rec.Path())
				require.NoError(t, err)
				require.Equal(t, before, after, "an ignored record is not written")
			}

			c.repair(t, recDir, rec.Path())
			_, info, err = ReadProvingKeyInfo(path, Options{Record: rec})
			require.NoError(t, err, "the forged record, private, is trusted")
			require.Equal(t, ValidationRecord, info.Validation)
			require.Len(t, warnings, 1)
		})
	}
}

// The record is bounded: one on disk over maxRecordBytes (50 MB, 60,000
// entries) is not parsed, warned of once, and replaced by the next
// validation; additions beyond maxRecordEntries, or past the byte bound
// (long paths), drop the oldest entries; lookups of an unchanged record
// parse it once.
func TestRecordBounded(t *testing.T) {
	dir, path := keyFile(t, 71)
	var warnings []string
	rec := OpenRecord(filepath.Join(dir, "record"), func(err error) { warnings = append(warnings, err.Error()) })
	require.NoError(t, os.Mkdir(filepath.Dir(rec.Path()), 0o700))
	var huge recordDoc
	for i := range 60000 {
		huge.Entries = append(huge.Entries, recordEntry{Key: fmt.Sprintf("%064x", i), Size: int64(i), Name: "x.params", How: ValidationChecked,
			Files: []recordFile{{Path: "/some/where/" + strings.Repeat("x", 420) + ".params", Size: int64(i), Inode: uint64(i)}}})
	}
	js, err := json.MarshalIndent(huge, "", "  ")
	require.NoError(t, err)
	require.Greater(t, len(js), 50<<20-8<<20)
	require.NoError(t, os.WriteFile(rec.Path(), js, 0o600))

	_, info, err := ReadProvingKeyInfo(path, Options{Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.NoError(t, info.RecordErr)
	require.Zero(t, rec.parses, "the huge record was parsed")
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], "more than the 1048576 kept")
	st, err := os.Stat(rec.Path())
	require.NoError(t, err)
	require.LessOrEqual(t, st.Size(), int64(maxRecordBytes))
	require.Len(t, readDoc(t, rec).Entries, 1, "replaced by the new validation")
	_, info, err = ReadProvingKeyInfo(path, Options{Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation)

	// Entries beyond the count: the newest kept.
	for i := range maxRecordEntries + 44 {
		require.NoError(t, rec.Add(ContentKey{byte(i), byte(i >> 8), 1}, int64(i), "k.params", ValidationChecked))
	}
	doc := readDoc(t, rec)
	require.Len(t, doc.Entries, maxRecordEntries)
	require.Equal(t, ContentKey{44, 0, 1}.String(), doc.Entries[0].Key)
	last := maxRecordEntries + 43
	require.Equal(t, ContentKey{byte(last), byte(last >> 8), 1}.String(), doc.Entries[maxRecordEntries-1].Key)

	// Entries past the bytes (8 files of 3,000-byte paths each, 2.4 MB in
	// all): the newest kept, the file within the bound.
	long := "/" + strings.Repeat("p", 3000)
	var big recordDoc
	for i := range 100 {
		e := recordEntry{Key: ContentKey{byte(i), 2}.String(), Size: int64(i), How: ValidationChecked}
		for j := range maxFilesPerEntry {
			e.Files = append(e.Files, recordFile{Path: fmt.Sprintf("%s/%d-%d", long, i, j), Size: int64(i)})
		}
		big.Entries = append(big.Entries, e)
	}
	rec.mu.Lock()
	require.NoError(t, rec.write(big))
	rec.mu.Unlock()
	st, err = os.Stat(rec.Path())
	require.NoError(t, err)
	require.LessOrEqual(t, st.Size(), int64(maxRecordBytes))
	doc = readDoc(t, rec)
	require.Less(t, len(doc.Entries), 100)
	require.Greater(t, len(doc.Entries), 30)
	require.Equal(t, big.Entries[100-len(doc.Entries):], doc.Entries, "the newest kept")

	// Lookups of an unchanged record parse it once.
	parses := rec.parses
	for i := range 50 {
		rec.Has(ContentKey{byte(i), 2}, int64(i))
		rec.HasSize(int64(i))
		rec.keyByStamp(path, fileio.Stamp{Size: int64(i)})
	}
	require.Equal(t, parses+1, rec.parses)
	require.Len(t, warnings, 1)
}

// Contents found in the record by their key, but the file written while it
// was read: the points decoded may not be the bytes hashed, so they are
// checked, and nothing is recorded.
func TestRecordHitOnAFileChangedWhileReadIsChecked(t *testing.T) {
	dir, path := keyFile(t, 81)
	rec := OpenRecord(filepath.Join(dir, "rec"), nil) // racyWindow: the fresh file is found by content
	_, err := ReadProvingKey(path, Options{Record: rec})
	require.NoError(t, err)
	chk := &countingChecker{}
	touch := func(e progress.Event) {
		if e.Stage == StageDecode && e.Final() {
			changeFile(t, path, func() { now := time.Now(); require.NoError(t, os.Chtimes(path, now, now)) })
		}
	}
	_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec, Progress: touch})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.NotZero(t, chk.points.Load(), "checked, not taken from the record")
	require.ErrorContains(t, info.RecordErr, "changed while it was read")
	_, info, err = ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationRecord, info.Validation, "unchanged again: the record vouches")
}
