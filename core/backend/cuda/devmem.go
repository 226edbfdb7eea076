package cuda

import (
	"fmt"
	"math/bits"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/units"
)

// The device-memory plan under gpus.max_device_memory: which point sets
// stay resident, how large a streamed chunk is, and which partitions
// cannot run at all. The figures are upper bounds of what the kernels
// allocate (cuda/: the MSM's scratch per point and per pass, the h stage's
// vectors), so that a plan that fits never meets an out-of-memory error in
// the middle of a partition; the library's own count (cuzk_cuda_memory)
// enforces the cap whatever the plan says.
const (
	scalarSize = 32  // an Fr element
	g1Size     = 96  // an affine G1 point
	g2Size     = 192 // an affine G2 point
	// An MSM's scratch: 16 bytes a point for the split into ones and dense
	// scalars, 8 for the compacted indices, and for at least one window's
	// pairs 16 (keys, values) twice (the sort's copy) — a pass takes more
	// windows when the memory allows — plus the buckets, sums and the
	// sort's temporary storage.
	msmPerPoint = 56
	msmFixed    = 256 << 20

	minChunk = 1 << 16
	maxChunk = 1 << 23
)

// memPlan is a device's plan: cap 0 means no cap (the resident budget is
// then a share of the free memory, and streaming happens only past it).
type memPlan struct {
	cap   uint64
	chunk int // points a streamed chunk (G1; G2's too unless g2Chunk is set)
	// g2Chunk is the points a streamed G2 chunk once fitted has halved
	// G2's buffers (0: chunk); never more than chunk
	g2Chunk int
	fixed   uint64 // an MSM's scratch beside its per-point part (msmFixed; tests shrink it)
}

// chunkOf is the points a streamed chunk of points of size bytes.
func (p memPlan) chunkOf(size uint64) int {
	if size == g2Size && p.g2Chunk > 0 {
		return p.g2Chunk
	}
	return p.chunk
}

func newMemPlan(cap uint64) memPlan {
	p := memPlan{cap: cap, chunk: 1 << 22, fixed: msmFixed}
	if cap > 0 {
		// two G2 buffers within a quarter of the cap: chunks of 2^23
		// points from a 24 GiB cap, whose MSMs pay their fixed bucket and
		// window work half as often as 2^22 (an eighth; 2^26 under 24 GiB:
		// H streamed in 16 chunks 749 ms against 516 ms resident)
		c := cap / 4 / (2 * g2Size)
		p.chunk = min(max(1<<(bits.Len64(max(c, 1))-1), minChunk), maxChunk)
	}
	return p
}

func (p memPlan) msmScratch(points int) uint64 { return uint64(points)*msmPerPoint + p.fixed }

// streamBuffers is what the two streamers (G1 and G2) keep once made for
// partitions of n rows: two chunk buffers each, and the buckets of a
// streamed set's MSM (streamAcc).
func (p memPlan) streamBuffers(n int) uint64 {
	return 2*(uint64(p.chunk)*g1Size+uint64(p.chunkOf(g2Size))*g2Size) + streamAcc(n)
}

// streamAcc is what the two streamers' buckets take for sets of up to n
// points (cuda/msm/entry.cuh's stream_open): ⌈255/c⌉·2^(c−1) Jacobian
// points of each group, c as the kernels' window_bits picks it from n (216
// MiB from 2^24 points; a window size forced by the msm_window_bits option,
// for tests, may take more, and the library's count still holds the cap).
func streamAcc(n int) uint64 {
	c := min(max(bits.Len(uint(max(n, 1)-1))-8, 8), 16)
	nw := (255 + c - 1) / c
	return uint64(nw) << (c - 1) * (3*g1Size/2 + 3*g2Size/2)
}

// hStage is what the h stage holds on the device for a partition of n
// rows: a, b, c and the twiddle tables (n scalars together), or, lean, a
// and one of b and c at a time beside the tables
// (cuzk_cuda_h_abc_lean_scalars).
func hStage(n int, lean bool) uint64 {
	vectors := 4
	if lean {
		vectors = 3
	}
	return uint64(vectors) * uint64(n) * scalarSize
}

// lean reports whether partitions of n rows compute h with b and c going
// up one after the other: under a cap that cannot hold the whole h stage
// beside a chunk's MSM scratch and the stream buffers (2^27 under 16 GiB:
// 21.4 GiB). b's and c's copies then no longer all run beside a's NTTs.
func (p memPlan) lean(n int) bool {
	return p.cap > 0 && hStage(n, false)+p.msmScratch(p.chunk)+p.streamBuffers(n) > p.cap
}

// streamedNeed is the least device memory a partition of n rows needs with
// every point set streamed: its lean h stage beside the MSM pool's idle
// scratch of a chunk's MSM, which is more than its query stage (aux and
// one selection of scalars: A's is freed before B's is made, queries.go;
// and an MSM over a chunk), beside the stream buffers.
func (p memPlan) streamedNeed(n int) uint64 {
	return hStage(n, true) + p.msmScratch(p.chunk) + p.streamBuffers(n)
}

// fitted is p with its stream buffers halved, the larger first (G2's on
// a tie of chunks: twice G1's bytes), chunks down to minChunk, until a
// partition of n rows fits with every set streamed: a 2^27 partition
// streams chunks of 2^22 points within 15 GiB (stream buffers 2.47 GiB
// instead of 4.73); within 14.5 GiB (a 16 GiB gpus.max_device_memory less
// the context's margin) G1's stay 2^22 and G2's 2^21 (1.72 GiB). Smaller
// partitions keep the cap's chunks.
func (p memPlan) fitted(n int) memPlan {
	for p.cap > 0 && p.streamedNeed(n) > p.cap {
		g2 := p.chunkOf(g2Size)
		switch {
		case g2 == p.chunk && g2/2 >= minChunk:
			p.g2Chunk = g2 / 2
		case p.chunk/2 >= minChunk:
			p.chunk /= 2
		default:
			return p
		}
	}
	return p
}

// reserve is what resident sets leave free for a partition of n rows
// whose resident sets are summed whole: the h stage's vectors beside an
// MSM's scratch over n points, which the MSM pool keeps after the query
// stage (cuda/util/common.cuh; the query stage itself needs less: aux and
// one selection beside that scratch). Without room for both, the h stage's
// allocations trim the pool and every partition's MSMs grow it again
// (measured at 2^26 under 24 GiB: ~+180 ms a partition, cuda/DESIGN.md).
func (p memPlan) reserve(n int) uint64 {
	return 4*uint64(n)*scalarSize + p.msmScratch(n) + p.streamBuffers(n)
}

// prefetchFits reports whether a prefetch of bytes for a partition of n
// rows fits beside held bytes (the library's count: resident sets, stream
// buffers, aux, twiddle tables, and pool, the MSM pool's reservation): the
// partition running on the device may still add query bytes (its query
// stage's vectors still to come: queryStage.extra; QueryMSMs frees A's
// selection before B's is made) and need its largest MSM's scratch (over
// n points when a set is resident, else over a streamed chunk), of which
// the pool's reservation is already counted in held, whether an MSM uses
// it now or it is idle: a device runs one MSM at a time, each taking the
// pool's memory first and giving it back. (Counting a chunk's scratch on
// top of the pool refused a alone under 24 GiB at 2^26 (H200, 2026-12-01,
// 06f14ed), and counting the pool's idle bytes only, with a selection always
// to come, refused it under 24 and 16 GiB (bbdfab0), as if a, b, c were ready
// while the query MSMs ran, on the pool and with a selection held.)
func (p memPlan) prefetchFits(held, pool, bytes, query uint64, n int, resident bool) bool {
	if p.cap == 0 {
		return true
	}
	scratch := p.msmScratch(min(n, p.chunk))
	if resident {
		scratch = p.msmScratch(n)
	}
	scratch -= min(scratch, pool)
	return held+bytes+query+scratch <= p.cap
}

// queryStage is what QueryMSMs allocates on the device while it runs:
// live, the bytes of its vectors held now (aux when it uploads it, one
// selection of scalars), and peak, the most they will hold together from
// now to its end (aux beside the larger selection still to come). A
// region's stage is begun (BeginRegion, with its own estimate) before its
// a, b, c may be prefetched, runs in QueryMSMs, and is over after it.
type queryStage struct {
	state      stageState
	live, peak uint64
}

type stageState int

const (
	stageUnknown stageState = iota // no region announced (direct callers)
	stageActive                    // begun or running: live and peak hold
	stageOver                      // the running region's query MSMs are done
)

// extra is what the query stage will still add to the device's count at
// its peak, for a prefetch beside a partition of n rows: with no region
// announced, one selection of n scalars (the one to come); after its
// query MSMs, nothing.
func (q queryStage) extra(n int) uint64 {
	switch q.state {
	case stageActive:
		return q.peak - min(q.peak, q.live)
	case stageOver:
		return 0
	}
	return uint64(n) * scalarSize
}

// check refuses a partition of n rows that cannot run even with every
// point set streamed in the plan's chunks (fitted picks them), with the
// numbers.
func (p memPlan) check(n int) error {
	if p.cap == 0 {
		return nil
	}
	if need := p.streamedNeed(n); need > p.cap {
		return fmt.Errorf("%w: a partition of %d rows needs at least %s of device memory with every point set streamed "+
			"(its h stage and an MSM's scratch %s, stream buffers %s), and gpus.max_device_memory is %s",
			backend.ErrDeviceMemory, n, units.Bytes(need), units.Bytes(need-p.streamBuffers(n)), units.Bytes(p.streamBuffers(n)), units.Bytes(p.cap))
	}
	return nil
}

// residentFits reports whether a point set of size bytes may stay resident
// beside used bytes of resident sets, for partitions of n rows.
func (p memPlan) residentFits(used, size uint64, n int) bool {
	return p.cap == 0 || used+size+p.reserve(n) <= p.cap
}

// rowsFor is the domain of a partition whose largest point set has
// points points, when the engine has not said (the next power of two).
func rowsFor(points int) int {
	if points <= 1 {
		return 2
	}
	return 1 << bits.Len(uint(points))
}
