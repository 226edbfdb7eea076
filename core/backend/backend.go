// Package backend defines the compute a proving device offers the engine:
// the NTTs that produce h, and G1 and G2 multi-scalar multiplications with
// the 0/1 split. The CPU implementation (package cpu) always works; a CUDA
// implementation is loaded at run time where a GPU exists.
package backend

import (
	"errors"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/msm"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// Backend is one compute device's arithmetic. Implementations are safe for
// concurrent use; the engine serialises the device region with its
// interlock.
type Backend interface {
	// Name identifies the backend in logs and status ("cpu", "cuda:0").
	Name() string
	// H returns the N−1 coefficients of h = (a·b − c)/(x^N − 1) from the
	// evaluations a, b, c (len N), overwriting them; the result may alias a.
	H(a, b, c []fr.Element) ([]fr.Element, error)
	// MSMG1 returns Σ scalars[i]·points[i] in G1.
	MSMG1(points []bls.G1Affine, scalars []fr.Element) (bls.G1Jac, msm.Stats, error)
	// MSMG2 returns Σ scalars[i]·points[i] in G2 using at most threads
	// goroutines (0 = the backend's default).
	MSMG2(points []bls.G2Affine, scalars []fr.Element, threads int) (bls.G2Jac, msm.Stats, error)
}

// FusedH is implemented by backends that keep h on the device between the
// NTTs and the H MSM: HMSM returns Σ h_i·points[i] for h from a, b, c
// (which it may overwrite), with the time of each half.
type FusedH interface {
	HMSM(points []bls.G1Affine, a, b, c []fr.Element) (res bls.G1Jac, hTime, msmTime time.Duration, err error)
}

// Queries is implemented by backends that can select the A and B query
// scalars from the witness on the device (the prep there): the aux values
// go up once and the density bitmaps choose among them, instead of the
// host gathering copies. QueryMSMs returns the L, A and B_G1 MSMs, and
// B_G2 when q.BG2 is not nil. Whether it is used is the caller's choice
// (groth16.Plan, from gpus.device_prep).
type Queries interface {
	QueryMSMs(q *QueryInput) (*QueryOutput, error)
}

// Prefetcher is implemented by Queries backends that can start copying a
// partition's a, b, c and aux values to the device before they are needed,
// so that the copies overlap other work (another partition's device
// region, then the query MSMs, then h). QueryMSMs and HMSM use a prefetch
// of the same slices, which must stay unchanged until then;
// ReleasePrefetch frees what they did not use of the prefetches of these
// slices (call it when done, before the slices are reused). A call with
// nil a, b, c prefetches aux alone and one with nil aux a, b, c alone: the
// a, b, c part may be made from another goroutine while the query MSMs
// run. Prefetches of different slices (two workers of one device) are kept
// apart.
type Prefetcher interface {
	Prefetch(a, b, c, aux []fr.Element)
	ReleasePrefetch(a, b, c, aux []fr.Element)
}

// RegionBeginner is implemented by Prefetchers that count a region's own
// allocations when they decide a prefetch (the CUDA backend under a
// device-memory cap): BeginRegion is called as a partition's region begins,
// before its a, b, c are prefetched, with the aux and the number of inputs
// its query MSMs will prove with.
type RegionBeginner interface {
	BeginRegion(aux []fr.Element, inputs int)
}

// QueryInput is a partition's witness, density bitmaps and query points.
type QueryInput struct {
	L, A, BG1   []bls.G1Affine
	BG2         []bls.G2Affine // nil: B_G2 is left to MSMG2
	Inputs, Aux []fr.Element
	// A selects all inputs; BInput, AAux and BAux are the density bitmaps.
	BInput, AAux, BAux *r1cs.Bitmap
}

// QueryOutput holds the query MSMs and their times (L, A, B_G1, B_G2; the
// upload of aux counts with L, each selection with its first MSM).
type QueryOutput struct {
	L, A, B1 bls.G1Jac
	B2       bls.G2Jac
	Times    [4]time.Duration
}

// HostPinner is implemented by backends that can page-lock long-lived host
// buffers (the engine's pooled a, b, c) so that copies of them run at the
// link's rate. Unpin before the memory is freed.
type HostPinner interface {
	Pin(buf []fr.Element) error
	Unpin(buf []fr.Element) error
}

// KeyReleaser is implemented by backends that keep a key's points on the
// device between proofs: ReleaseKey frees what they hold of pk once no
// handle names it any more (a later MSM over pk would upload it again).
type KeyReleaser interface {
	ReleaseKey(pk *params.ProvingKey)
}

// KeyHolder is implemented by backends that can tell whether they hold
// every point set of pk resident, G2's included when withG2: their proofs
// over pk then read none of those points on the host, whose copy may be
// given back (params.ProvingKey.ReleaseHost).
type KeyHolder interface {
	HoldsKey(pk *params.ProvingKey, withG2 bool) bool
}

// Warmer is implemented by backends that keep point sets on the device
// between proofs: Warm makes a set resident now, if the device's memory
// plan keeps it (a set that would stream is left alone), so that a key
// loaded before its first proof is not uploaded inside that proof's
// device region. At 2^24 that upload was ~3.5 s of the first region.
type Warmer interface {
	WarmG1(points []bls.G1Affine) error
	WarmG2(points []bls.G2Affine) error
}

// SubgroupChecker is implemented by backends that check points for
// membership of the prime-order subgroups G1 and G2 (a parameter file's
// points, when it is loaded): each returns the index of the first point
// outside the subgroup, or −1 when all are in it (infinity is). Points are
// given on the curve. The CUDA backend checks on the GPU over the resident
// copy of the points, which the MSMs then use; the CPU backend with
// gnark-crypto.
type SubgroupChecker interface {
	CheckSubgroupG1(points []bls.G1Affine) (firstBad int, err error)
	CheckSubgroupG2(points []bls.G2Affine) (firstBad int, err error)
}

// ErrDeviceFailed is wrapped by errors after which a device must not be
// used again (a GPU in a sticky error state). Other errors fail only the
// partition that met them.
var ErrDeviceFailed = errors.New("device failed")

// DeviceMemory is implemented by backends whose device memory is capped
// (gpus.max_device_memory): CheckRows refuses, wrapping ErrDeviceMemory
// and with the numbers, a partition of rows rows that cannot run on the
// device even with every point set streamed, and tells the backend the
// size of the partitions to plan its resident sets for.
type DeviceMemory interface {
	CheckRows(rows int) error
}

// ErrDeviceMemory is wrapped when a partition does not fit in a device's
// memory cap.
var ErrDeviceMemory = errors.New("partition does not fit in the device memory cap")

// MemoryReporter is implemented by backends that count what they hold on
// their device: held now, the most held since start, and the cap (0: none).
type MemoryReporter interface {
	DeviceMemory() (held, peak, cap uint64, err error)
}

// PrefetchReporter is implemented by backends that copy a partition's a,
// b, c ahead of its h (Prefetcher): how often they went up whole, a alone
// (room under the cap for one vector, b and c when h starts), or not at
// all (no room: h uploads them, waiting for a).
type PrefetchReporter interface {
	Prefetches() Prefetches
}

// Prefetches counts a device's a, b, c prefetches by outcome, with what
// the last one was decided on.
type Prefetches struct {
	Whole, AOnly, Refused uint64
	Last                  PrefetchRoom
}

// PrefetchRoom is the device's count an a, b, c prefetch was decided on
// (bytes): held, of it the MSM pool's reservation, what the running
// query stage will still allocate, and the cap (0: no cap, no decision
// yet, or the count could not be read).
type PrefetchRoom struct {
	Held, Pool, Query, Cap uint64
}

// StreamReporter is implemented by backends that stream parameter points
// that do not stay on their device: the host-to-device bytes streamed so
// far (0 while every set stays resident).
type StreamReporter interface {
	StreamedBytes() uint64
	// StreamedCopyTime is the time those copies took: the achieved
	// host-to-device bandwidth is StreamedBytes over it.
	StreamedCopyTime() time.Duration
	// Chunks is the streamed chunks so far, and of them the first chunks
	// of a G1 and of a G2 set put ahead of their MSM while the link was
	// otherwise idle (staged).
	Chunks() StreamChunks
}

// StreamChunks counts a device's streamed chunks (StreamReporter).
type StreamChunks struct {
	Streamed, StagedG1, StagedG2 uint64
}
