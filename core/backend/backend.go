// Package backend defines the compute a proving device offers the engine:
// the NTTs that produce h, and G1 and G2 multi-scalar multiplications with
// the 0/1 split; and, in one Capabilities value, what else it does (h and
// the prep on the device, prefetches, page-locking, resident keys, the
// subgroup check, a memory cap, its counts). The CPU implementation
// (package cpu) always works; a CUDA implementation is loaded at run time
// where a GPU exists.
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
	// Capabilities says what else the backend does. It is read once, where
	// the device is set up, and does not change.
	Capabilities() Capabilities
}

// Capabilities is what a backend offers beyond H and the MSMs, in one
// value: groth16.NewPlan reads the parts that shape the device region
// (FusedH, Queries, Prefetch, Warm), the engine the rest when it sets the
// device up. A nil field is not offered.
type Capabilities struct {
	// FusedH keeps h on the device between the NTTs and the H MSM.
	FusedH FusedH
	// Queries selects the A and B query scalars from the witness on the
	// device (the prep there).
	Queries Queries
	// Prefetch copies a partition's aux and a, b, c to the device ahead of
	// their use (with Queries).
	Prefetch Prefetcher
	// Pin page-locks the engine's long-lived host buffers.
	Pin HostPinner
	// Keys frees what the device keeps of a key between proofs.
	Keys KeyReleaser
	// Holds tells whether the device holds a key whole (its host copy may
	// then be given back).
	Holds KeyHolder
	// FromFile, when set, streams a key's sets from its parameter file
	// once their host pages are given back.
	FromFile FileStreamer
	// Warm makes a key's point sets resident before its first proof.
	Warm Warmer
	// Subgroup checks a parameter file's points for subgroup membership.
	Subgroup SubgroupChecker
	// Cap refuses partitions that cannot run within a device-memory cap.
	Cap MemoryCap
	// Report reads the device's counts for the engine's status.
	Report Reporter
}

// FusedH keeps h on the device between the NTTs and the H MSM: HMSM
// returns Σ h_i·points[i] for h from a, b, c (which it may overwrite),
// with the time of each half. pre, when not nil, is the partition's
// prefetch (Prefetcher), whose copy of a, b, c HMSM takes if it is of
// these slices.
type FusedH interface {
	HMSM(points []bls.G1Affine, a, b, c []fr.Element, pre Prefetch) (res bls.G1Jac, hTime, msmTime time.Duration, err error)
}

// Queries selects the A and B query scalars from the witness on the device
// (the prep there): the aux values go up once and the density bitmaps
// choose among them, instead of the host gathering copies. QueryMSMs
// returns the L, A and B_G1 MSMs, and B_G2 when q.BG2 is not nil. Whether
// it is used is the caller's choice (groth16.Plan, from gpus.device_prep).
type Queries interface {
	QueryMSMs(q *QueryInput) (*QueryOutput, error)
}

// Prefetcher starts copying a partition's data to the device before it is
// needed, so that the copies overlap other work (another partition's
// device region, then the query MSMs, then h). Prefetch uploads aux (or
// does not, when the device has no room: the query MSMs then upload it)
// and returns the partition's prefetch, which the caller holds and hands
// to QueryMSMs (QueryInput.Prefetch) and HMSM; aux must stay unchanged
// until then. Prefetches of different partitions (two workers of one
// device) are kept apart.
type Prefetcher interface {
	Prefetch(aux []fr.Element) Prefetch
}

// Prefetch is one partition's copies to the device (Prefetcher). Its
// methods may be called from several goroutines: ABC while QueryMSMs runs
// on the aux part.
type Prefetch interface {
	// BeginRegion tells the device that the partition's region begins,
	// before its a, b, c are prefetched, with the number of inputs its
	// query MSMs will prove with (a device under a memory cap counts what
	// the region will still allocate when it decides on a, b, c).
	BeginRegion(inputs int)
	// ABC starts copying a, b, c (within the partition's region), for
	// HMSM on the same slices, which must stay unchanged until then.
	ABC(a, b, c []fr.Element)
	// Release frees what QueryMSMs and HMSM did not take; call it once
	// done, before the slices are reused. Later calls do nothing.
	Release()
}

// QueryInput is a partition's witness, density bitmaps and query points.
type QueryInput struct {
	L, A, BG1   []bls.G1Affine
	BG2         []bls.G2Affine // nil: B_G2 is left to MSMG2
	Inputs, Aux []fr.Element
	// A selects all inputs; BInput, AAux and BAux are the density bitmaps.
	BInput, AAux, BAux *r1cs.Bitmap
	// Prefetch, when not nil, is the partition's prefetch (Prefetcher),
	// whose copy of Aux QueryMSMs takes.
	Prefetch Prefetch
}

// QueryOutput holds the query MSMs and their times (L, A, B_G1, B_G2; the
// upload of aux counts with L, each selection with its first MSM).
type QueryOutput struct {
	L, A, B1 bls.G1Jac
	B2       bls.G2Jac
	Times    [4]time.Duration
}

// HostPinner page-locks long-lived host buffers (the engine's pooled a,
// b, c) so that copies of them run at the link's rate. Unpin before the
// memory is freed.
type HostPinner interface {
	Pin(buf []fr.Element) error
	Unpin(buf []fr.Element) error
}

// KeyReleaser is offered by backends that keep a key's points on the
// device between proofs: ReleaseKey frees what they hold of pk once no
// handle names it any more (a later MSM over pk would upload it again).
type KeyReleaser interface {
	ReleaseKey(pk *params.ProvingKey)
}

// KeyHolder is offered by backends that can tell whether they hold
// every point set of pk resident, G2's included when withG2: their proofs
// over pk then read none of those points on the host, whose copy may be
// given back (params.ProvingKey.ReleaseHost).
type KeyHolder interface {
	HoldsKey(pk *params.ProvingKey, withG2 bool) bool
}

// FileStreamer is offered by backends that can stream a point set whose
// host pages were given back straight from its parameter file (read as
// stored there, params.ReadEncoded, and converted on the device):
// StreamsKeyFromFile reports whether every set of pk that the device does
// not hold resident (B_G2's when withG2) could be read so; UnpinKey
// undoes the page-locking of pk's streamed sets before their pages go,
// and PinKeyFile, once they have gone, page-locks the file's own pages
// of those sets where the file is in memory (tmpfs), so that their
// chunks are copied from them with no read.
// A key too large for the host's memory twice (beside its file in
// /dev/shm) then keeps no decoded host copy under a device memory cap.
type FileStreamer interface {
	StreamsKeyFromFile(pk *params.ProvingKey, withG2 bool) bool
	UnpinKey(pk *params.ProvingKey)
	PinKeyFile(pk *params.ProvingKey)
}

// Warmer is offered by backends that keep point sets on the device
// between proofs: Warm makes a set resident now, if the device's memory
// plan keeps it (a set that would stream is left alone), so that a key
// loaded before its first proof is not uploaded inside that proof's
// device region. At 2^24 that upload was ~3.5 s of the first region.
type Warmer interface {
	WarmG1(points []bls.G1Affine) error
	WarmG2(points []bls.G2Affine) error
}

// SubgroupChecker checks points for membership of the prime-order
// subgroups G1 and G2 (a parameter file's points, when it is loaded):
// each returns the index of the first point
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

// ErrDevice is wrapped by every error a device's own library reports (a
// CUDA call that failed: out of memory, a launch failure), as against the
// request or the input it was given: a valid parameter file or request
// that meets one is not at fault. Those that leave the device unusable
// wrap ErrDeviceFailed too.
var ErrDevice = errors.New("device error")

// MemoryCap is offered by backends whose device memory is capped
// (gpus.max_device_memory): CheckRows refuses, wrapping ErrDeviceMemory
// and with the numbers, a partition of rows rows that cannot run on the
// device even with every point set streamed, and tells the backend the
// size of the partitions to plan its resident sets for.
type MemoryCap interface {
	CheckRows(rows int) error
}

// ErrDeviceMemory is wrapped when a partition does not fit in a device's
// memory cap.
var ErrDeviceMemory = errors.New("partition does not fit in the device memory cap")

// Reporter reads a device's counts for the engine's status.
type Reporter interface {
	// DeviceMemory is what the backend holds on its device now, the most
	// it held since start, and the cap (0: none), as the device counts
	// them (a call to the device).
	DeviceMemory() (held, peak, cap uint64, err error)
	// Transfers counts the copies beyond resident point sets.
	Transfers() Transfers
}

// Transfers are a device's host-to-device copies beyond resident point
// sets: the bytes of streamed point sets so far (0 while every set stays
// resident) and the time their copies took (the achieved bandwidth is
// StreamedBytes over StreamedCopy), of them the time spent reading the
// points of sets given back from their parameter file (StreamedFileRead,
// before each of those chunks' copy), the bytes of such sets copied
// straight from the file's pages instead (StreamedFileMapped: a file in
// memory), the streamed chunks, and the a, b, c prefetches by outcome.
type Transfers struct {
	StreamedBytes      uint64
	StreamedCopy       time.Duration
	StreamedFileRead   time.Duration
	StreamedFileMapped uint64
	Chunks             StreamChunks
	Prefetches         Prefetches
}

// Prefetches counts a device's a, b, c prefetches by outcome (whole, a
// alone: room under the cap for one vector, b and c go up when h starts;
// or refused: no room, h uploads them, waiting for a), with what the last
// one was decided on.
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

// StreamChunks counts a device's streamed chunks, and of them the first
// chunks of a G1 and of a G2 set put ahead of their MSM while the link was
// otherwise idle (staged).
type StreamChunks struct {
	Streamed, StagedG1, StagedG2 uint64
}
