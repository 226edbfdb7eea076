package params

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/crypto/blake2b"

	"github.com/cuzk/cuzk/core/progress"
)

// filecoinManifest is a copy of Filecoin's published parameters.json
// (design §10); a test keeps it equal to the project's shared copy.
//
//go:embed filecoin-parameters.json
var filecoinManifest []byte

// ManifestEntry is one published file.
type ManifestEntry struct {
	CID        string `json:"cid"`
	Digest     string `json:"digest"` // first 16 bytes of BLAKE2b-512, hex
	SectorSize uint64 `json:"sector_size"`
}

// Manifest maps a parameter file's base name to its published digest.
type Manifest map[string]ManifestEntry

// FilecoinManifest returns the embedded manifest of Filecoin's v28
// parameter files.
var FilecoinManifest = sync.OnceValue(func() Manifest {
	var m Manifest
	if err := json.Unmarshal(filecoinManifest, &m); err != nil {
		panic("params: embedded filecoin-parameters.json: " + err.Error()) // caught by the tests
	}
	return m
})

// ManifestUnlessChecker is the manifest a checked load consults: Filecoin's
// when the subgroup check would run on the CPU (checker nil), where BLAKE2b
// (~1 GB/s) beats the check (~2 MB/s a core) for a file Filecoin
// publishes; none when a device checks, which outruns both.
func ManifestUnlessChecker(checker SubgroupChecker) Manifest {
	if checker != nil {
		return nil
	}
	return FilecoinManifest()
}

// digestBlock is how much BLAKE2b consumes between progress reports.
const digestBlock = 64 << 20

// match reports whether path's base name is in m (listed) and data's
// digest is the published one (matched). BLAKE2b runs on one core at
// ~1 GB/s, so it is computed only for listed names.
func (m Manifest) match(path string, data []byte, report progress.Func) (listed, matched bool) {
	e, ok := m[filepath.Base(path)]
	if !ok {
		return false, false
	}
	h, _ := blake2b.New512(nil)
	for off := 0; off < len(data); off += digestBlock {
		end := min(off+digestBlock, len(data))
		h.Write(data[off:end])
		report.Report(progress.Event{Stage: StageDigest, Done: int64(end), Total: int64(len(data)), Unit: progress.Bytes})
	}
	sum := h.Sum(nil)
	return true, strings.EqualFold(hex.EncodeToString(sum[:16]), e.Digest)
}
