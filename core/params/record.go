package params

import (
	"encoding/json"
	"io"
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
// check. It lives in one JSON file written atomically; an unreadable or
// corrupt file reads as empty. Processes sharing it may lose each other's
// concurrent additions, which only costs a check. Whoever can write the
// record can make a file trusted, so it belongs in a directory as private
// as the parameter files themselves.
type Record struct {
	path string
	mu   sync.Mutex // orders this process's read-modify-writes
}

// OpenRecord returns the record kept in dir (created on the first Add).
func OpenRecord(dir string) *Record {
	return &Record{path: filepath.Join(dir, RecordFile)}
}

// Path returns the record's file.
func (r *Record) Path() string { return r.path }

type recordEntry struct {
	Key  string     `json:"key"`
	Size int64      `json:"size"`
	Name string     `json:"name"` // base name when recorded, for people
	How  Validation `json:"how"`
	Time time.Time  `json:"time"`
}

type recordDoc struct {
	Entries []recordEntry `json:"entries"`
}

func (r *Record) read() recordDoc {
	var doc recordDoc
	data, err := os.ReadFile(r.path)
	if err != nil || json.Unmarshal(data, &doc) != nil {
		return recordDoc{}
	}
	return doc
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

// Add records key (contents of size bytes, last seen as file name) as
// validated by how.
func (r *Record) Add(key ContentKey, size int64, name string, how Validation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	doc := r.read()
	k := key.String()
	doc.Entries = slices.DeleteFunc(doc.Entries, func(e recordEntry) bool { return e.Key == k })
	doc.Entries = append(doc.Entries, recordEntry{Key: k, Size: size, Name: filepath.Base(name), How: how, Time: time.Now().UTC()})
	if n := len(doc.Entries) - maxRecordEntries; n > 0 {
		doc.Entries = doc.Entries[n:]
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return wrapIO(err)
	}
	return wrapIO(fileio.WriteAtomic(r.path, func(w io.Writer) error { _, err := w.Write(data); return err }))
}

// AddFile records the file at path, which the caller knows to be valid
// (it wrote it), hashing it on nbTasks goroutines.
func (r *Record) AddFile(path string, how Validation, nbTasks int) error {
	var key ContentKey
	var size int64
	err := fileio.Decode("params", path, func(data []byte) error {
		key, size = ContentKeyOf(data, nbTasks), int64(len(data))
		return nil
	})
	if err != nil {
		return err
	}
	return r.Add(key, size, path, how)
}
