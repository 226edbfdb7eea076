package params

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
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

// maxRecordEntries bounds the record; the oldest entries go first (a file
// forgotten is only checked again).
const maxRecordEntries = 1024

// Record remembers the content keys of parameter files whose points were
// validated, so that loading the same contents again skips the subgroup
// check. With each key it keeps the stamps (device, inode, size, mtime,
// ctime) of the files seen with those contents, so that loading an
// unchanged file skips hashing it too. It lives in one JSON file written atomically; an unreadable or
// corrupt file reads as empty. Processes sharing it may lose each other's
// concurrent additions, which only costs a check. Whoever can write the
// record can make a file trusted, so it belongs in a directory as private
// as the parameter files themselves.
type Record struct {
	path string
	mu   sync.Mutex    // orders this process's read-modify-writes
	racy time.Duration // racyWindow; tests shorten it
}

// OpenRecord returns the record kept in dir (created on the first Add).
func OpenRecord(dir string) *Record {
	return &Record{path: filepath.Join(dir, RecordFile), racy: racyWindow}
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

// maxRecordFile bounds the record read: far above what maxFilesPerEntry
// and a few hundred entries take (~1 KB an entry).
const maxRecordFile = 64 << 20

func (r *Record) read() recordDoc {
	var doc recordDoc
	data, err := fileio.ReadFile(r.path, maxRecordFile)
	if err != nil || json.Unmarshal(data, &doc) != nil {
		return recordDoc{}
	}
	return doc
}

func (r *Record) write(doc recordDoc) error {
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
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
// when the file did not change meanwhile.
func (r *Record) AddFile(path string, how Validation, nbTasks int) error {
	var key ContentKey
	var size int64
	at := time.Now()
	before, statErr := fileio.StampOf(path)
	err := fileio.Decode("params", path, func(data []byte) error {
		key, size = hashContent(data, nbTasks), int64(len(data))
		return nil
	})
	if err != nil {
		return err
	}
	var st *fileio.Stamp
	if after, err := fileio.StampOf(path); statErr == nil && err == nil && after == before && before.Size == size && r.stampable(before, at) {
		st = &before
	}
	return r.add(key, size, path, how, st)
}
