package params

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// Validation says how a loaded key's points were established to lie in the
// prime-order subgroup.
type Validation string

const (
	// ValidationChecked: the subgroup checker ran over every point.
	ValidationChecked Validation = "checked"
	// ValidationRecord: a file with the same content key passed before.
	ValidationRecord Validation = "record"
	// ValidationManifest: the file's BLAKE2b digest is the one Filecoin
	// publishes for its name.
	ValidationManifest Validation = "manifest"
	// ValidationSetup: this program computed the file (cuzk setup).
	ValidationSetup Validation = "setup"
	// ValidationSkipped: the caller trusted the file (curve checks only).
	ValidationSkipped Validation = "skipped"
)

// RecordFile is the name of the record in its directory.
const RecordFile = "validated-params.json"

// Bounds on the record: the oldest entries go first (a file forgotten is
// only checked again). An entry takes ~250 bytes and each file stamp kept
// with it ~200 more, so 256 entries take well under the byte bound unless
// their paths are very long; a record over maxRecordBytes on disk is not
// parsed (a 50 MB one once cost each load 12 s) and the next addition
// replaces it.
const (
	maxRecordEntries = 256
	maxRecordBytes   = 1 << 20
)

// Record remembers the content keys of parameter files whose points were
// validated, so that loading the same contents again skips the subgroup
// check. With each key it keeps the stamps (device, inode, size, mtime,
// ctime) of the files seen with those contents, so that loading an
// unchanged file skips hashing it too. It lives in one JSON file written
// atomically; an unreadable or corrupt file reads as empty. Processes
// sharing it may lose each other's concurrent additions, which only costs
// a check.
//
// Whoever can write the record can make a file trusted, so it is trusted
// only as ssh trusts its keys: a record file that is a symbolic link, or
// that or its directory writable by group or others or owned by another
// user (root aside), is ignored with a warning (once, until it changes):
// every file is then checked, and nothing is recorded. The parsed record
// is kept while its file's stamp is unchanged, so a lookup costs an open
// and an fstat.
type Record struct {
	path string
	warn func(error)
	mu   sync.Mutex    // orders this process's read-modify-writes
	racy time.Duration // racyWindow; tests shorten it

	cached   *recordDoc   // the record as last parsed, nil if none
	cachedAt fileio.Stamp // its file's stamp then
	distrust error        // why the record is ignored (nil when it is not), warned once
	parses   int          // times the file was parsed (tests read it)
}

// OpenRecord returns the record kept in dir (created on the first Add).
// warn, if not nil, is told when the record is ignored (untrusted or too
// large), once for each reason in a row.
func OpenRecord(dir string, warn func(error)) *Record {
	return &Record{path: filepath.Join(dir, RecordFile), warn: warn, racy: racyWindow}
}

// Path returns the record's file.
func (r *Record) Path() string { return r.path }

type recordEntry struct {
	Key  string     `json:"key"`
	Size int64      `json:"size"`
	Name string     `json:"name"` // base name when recorded, for people
	How  Validation `json:"how"`
	Time time.Time  `json:"time"`
	// Files are the files last seen with these contents, by stamp (absent
	// from records written before stamps were kept: they still match by
	// content).
	Files []recordFile `json:"files,omitempty"`
}

// recordFile is one file seen with an entry's contents, and its stamp then.
type recordFile struct {
	Path       string `json:"path"` // absolute
	Size       int64  `json:"size"`
	ModTime    int64  `json:"mtime_ns"`
	ChangeTime int64  `json:"ctime_ns"`
	Inode      uint64 `json:"inode"`
	Device     uint64 `json:"device"`
}

func (f recordFile) stamp() fileio.Stamp {
	return fileio.Stamp{Size: f.Size, ModTime: f.ModTime, ChangeTime: f.ChangeTime, Inode: f.Inode, Device: f.Device}
}

// maxFilesPerEntry bounds the files kept for one content key (copies of
// one file in several directories); the oldest go first, and a file
// forgotten is only hashed again.
const maxFilesPerEntry = 8

type recordDoc struct {
	Entries []recordEntry `json:"entries"`
}

// errTooLarge marks a record over maxRecordBytes: ignored, but replaced by
// the next addition (unlike an untrusted one, which is left alone).
var errTooLarge = errors.New("too large")

// read returns the record (empty when absent, corrupt, untrusted or too
// large), warning once when it is ignored.
func (r *Record) read() recordDoc {
	doc, err := r.load()
	if err != nil && r.warn != nil && (r.distrust == nil || err.Error() != r.distrust.Error()) {
		r.warn(err)
	}
	r.distrust = err
	if err != nil {
		return recordDoc{}
	}
	return doc
}

// trusted reports whether the record may be written: it is not ignored
// for its permissions (a record too large is replaced).
func (r *Record) trusted() bool {
	return r.distrust == nil || errors.Is(r.distrust, errTooLarge)
}

// load reads the record's file if it is to be trusted: the directory and
// the file owned by this user (or root) and writable by no one else, the
// file no symbolic link, at most maxRecordBytes. The checks are on the
// descriptor read, so a file swapped in after them is not read.
func (r *Record) load() (recordDoc, error) {
	dir := filepath.Dir(r.path)
	if st, err := os.Stat(dir); err != nil {
		return recordDoc{}, nil // no record yet, or none to be had: nothing to trust
	} else if err := private(st); err != nil {
		return recordDoc{}, fmt.Errorf("params: validation record directory %s %w; ignored: every parameter file is checked", dir, err)
	}
	f, err := os.OpenFile(r.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return recordDoc{}, fmt.Errorf("params: validation record %s is a symbolic link; ignored: every parameter file is checked", r.path)
	}
	if err != nil {
		return recordDoc{}, nil // absent or unreadable: empty
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return recordDoc{}, nil
	}
	if !st.Mode().IsRegular() {
		return recordDoc{}, fmt.Errorf("params: validation record %s is not a regular file; ignored: every parameter file is checked", r.path)
	}
	if err := private(st); err != nil {
		return recordDoc{}, fmt.Errorf("params: validation record %s %w; ignored: every parameter file is checked", r.path, err)
	}
	if st.Size() > maxRecordBytes {
		return recordDoc{}, fmt.Errorf("params: validation record %s is %d bytes, more than the %d kept; the next validation replaces it: %w",
			r.path, st.Size(), maxRecordBytes, errTooLarge)
	}
	stamp := fileio.StampOfInfo(st)
	if r.cached != nil && r.cachedAt == stamp {
		return *r.cached, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	var doc recordDoc
	r.parses++
	if err != nil || len(data) > maxRecordBytes || json.Unmarshal(data, &doc) != nil {
		doc = recordDoc{} // corrupt: the next addition replaces it
	}
	r.cached, r.cachedAt = &doc, stamp
	return doc, nil
}

// private refuses a file or directory that another user could write:
// writable by group or others, or owned by someone other than this user
// or root.
func private(st os.FileInfo) error {
	if m := st.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("is writable by group or others (mode %04o)", m)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("is owned by uid %d, not this user (%d)", sys.Uid, os.Geteuid())
	}
	return nil
}

// write replaces the record with doc, its oldest entries dropped to fit
// maxRecordEntries and maxRecordBytes; nothing when the record is ignored
// for its permissions (warned by read).
func (r *Record) write(doc recordDoc) error {
	if !r.trusted() {
		return nil
	}
	if n := len(doc.Entries) - maxRecordEntries; n > 0 {
		doc.Entries = doc.Entries[n:]
	}
	var data []byte
	for {
		var err error
		if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
			return err
		}
		if len(data) <= maxRecordBytes || len(doc.Entries) <= 1 {
			break
		}
		doc.Entries = doc.Entries[max(1, len(doc.Entries)/8):]
	}
	r.cached = nil
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return wrapIO(err)
	}
	return wrapIO(fileio.WriteFileAtomic(r.path, data))
}

// Has reports whether contents with key and size were recorded.
func (r *Record) Has(key ContentKey, size int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key.String()
	for _, e := range r.read().Entries {
		if e.Key == k && e.Size == size {
			return true
		}
	}
	return false
}

// HasSize reports whether the record holds contents of size bytes: when
// it does not, no load of a file of that size can be a record hit.
func (r *Record) HasSize(size int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.read().Entries {
		if e.Size == size {
			return true
		}
	}
	return false
}

// racyWindow is how old a file's ctime must be, when its stamp is taken,
// for the stamp to be recorded. File systems keep times at a coarse
// granularity (a kernel tick, ≤ 10 ms, on ext4 and XFS; 2 s on FAT), so a
// write just after a stamp was taken can leave it unchanged; a ctime older
// than the window guarantees that any later write moves it. This is git's
// "racy clean" rule. A file stamped too soon is only hashed again.
const racyWindow = 2 * time.Second

// keyByStamp returns the content key recorded for path when its current
// stamp st is the one recorded with it. The stamp stands for the contents
// the way git's index stands for a file it does not rehash: any write
// moves the ctime, which user space cannot set back (utimes sets it to
// now), and a replacement has another inode, so an equal stamp means the
// bytes validated before.
func (r *Record) keyByStamp(path string, st fileio.Stamp) (ContentKey, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	abs := absPath(path)
	for _, e := range r.read().Entries {
		for _, f := range e.Files {
			if f.Path != abs || f.stamp() != st || e.Size != st.Size {
				continue
			}
			var k ContentKey
			if b, err := hex.DecodeString(e.Key); err == nil && len(b) == len(k) {
				copy(k[:], b)
				return k, true
			}
		}
	}
	return ContentKey{}, false
}

// stampable reports whether st, taken at time at, may be recorded: its
// ctime is older than racyWindow (r.racy in tests).
func (r *Record) stampable(st fileio.Stamp, at time.Time) bool {
	return st.ChangeTime != 0 && st.ChangeTime < at.Add(-r.racy).UnixNano()
}

// Add records key (contents of size bytes, last seen as file name) as
// validated by how.
func (r *Record) Add(key ContentKey, size int64, name string, how Validation) error {
	return r.add(key, size, name, how, nil)
}

// add is Add that also records the file's stamp, when st is set.
func (r *Record) add(key ContentKey, size int64, path string, how Validation, st *fileio.Stamp) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := r.read()
	k := key.String()
	var files []recordFile
	doc.Entries = slices.DeleteFunc(doc.Entries, func(e recordEntry) bool {
		if e.Key == k && e.Size == size {
			files = e.Files
		}
		return e.Key == k
	})
	doc.Entries = append(doc.Entries, recordEntry{Key: k, Size: size, Name: filepath.Base(path), How: how, Time: time.Now().UTC(), Files: files})
	if st != nil {
		seen(&doc, len(doc.Entries)-1, path, *st)
	}
	if n := len(doc.Entries) - maxRecordEntries; n > 0 {
		doc.Entries = doc.Entries[n:]
	}
	return r.write(doc)
}

// addStamp records st as path's stamp for recorded contents key (found by
// content, the file not stamped yet); nothing if key is not recorded.
func (r *Record) addStamp(key ContentKey, size int64, path string, st fileio.Stamp) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := r.read()
	k := key.String()
	i := slices.IndexFunc(doc.Entries, func(e recordEntry) bool { return e.Key == k && e.Size == size })
	if i < 0 {
		return nil
	}
	seen(&doc, i, path, st)
	return r.write(doc)
}

// seen makes st path's only stamp, kept with entry i.
func seen(doc *recordDoc, i int, path string, st fileio.Stamp) {
	abs := absPath(path)
	for j := range doc.Entries {
		doc.Entries[j].Files = slices.DeleteFunc(doc.Entries[j].Files, func(f recordFile) bool { return f.Path == abs })
	}
	e := &doc.Entries[i]
	e.Files = append(e.Files, recordFile{Path: abs, Size: st.Size, ModTime: st.ModTime, ChangeTime: st.ChangeTime, Inode: st.Inode, Device: st.Device})
	if n := len(e.Files) - maxFilesPerEntry; n > 0 {
		e.Files = e.Files[n:]
	}
}

func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// AddFile records the file at path, which the caller knows to be valid
// (it wrote it), hashing it on nbTasks goroutines; its stamp is kept too
// when the file did not change meanwhile. The stamp and the key come from
// one open descriptor.
func (r *Record) AddFile(path string, how Validation, nbTasks int) error {
	var key ContentKey
	var size int64
	var st *fileio.Stamp
	at := time.Now()
	err := fileio.DecodeOpened("params", path, func(o *fileio.Opened) error {
		key, size = hashContent(o.Data, nbTasks), int64(len(o.Data))
		if after, err := o.Restamp(); err == nil && after == o.Stamp && o.Stamp.Size == size && r.stampable(o.Stamp, at) {
			st = &o.Stamp
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.add(key, size, path, how, st)
}
