package params

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"sync"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// ContentKey names a file's contents: SHA-256 over (domain tag ‖ size ‖
// the SHA-256 of each contentChunk-byte chunk). The chunks hash in
// parallel, so the key costs a fraction of decoding the points (SHA-256
// with the SHA extensions runs at ~2 GB/s a core, the curve checks at
// ~0.1 GB/s a core).
type ContentKey [32]byte

func (k ContentKey) String() string { return hex.EncodeToString(k[:]) }

// contentChunk is the unit hashed by one goroutine at a time: large enough
// that the chunk hashes are a negligible second pass (32 bytes per 8 MiB).
const contentChunk = 8 << 20

const contentTag = "cuzk params content v1"

// hashContent is ContentKeyOf; tests count the calls through it.
var hashContent = ContentKeyOf

// ContentKeyOf hashes data on nbTasks goroutines (0 = GOMAXPROCS). If
// data is a mapping that shrinks underneath, it panics with the fault, for
// the caller's fileio.Guard to turn into an error.
func ContentKeyOf(data []byte, nbTasks int) ContentKey {
	if nbTasks <= 0 {
		nbTasks = runtime.GOMAXPROCS(0)
	}
	n := (len(data) + contentChunk - 1) / contentChunk
	sums := make([][32]byte, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	faults := make([]error, max(1, min(nbTasks, n)))
	for t := range faults {
		wg.Go(func() {
			// data may be a mapping: a worker's fault (the file shrank)
			// goes to the caller's fileio.Guard instead of killing the
			// process.
			faults[t] = fileio.Guard(data, func() error {
				for i := range next {
					sums[i] = sha256.Sum256(data[i*contentChunk : min((i+1)*contentChunk, len(data))])
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range faults {
		fileio.Reraise(err)
	}
	h := sha256.New()
	h.Write([]byte(contentTag))
	var size [8]byte
	binary.BigEndian.PutUint64(size[:], uint64(len(data)))
	h.Write(size[:])
	for i := range sums {
		h.Write(sums[i][:])
	}
	var k ContentKey
	h.Sum(k[:0])
	return k
}
