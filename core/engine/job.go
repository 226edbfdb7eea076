package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/r1cs"
)

// Circuit is a circuit and its parameters, shared by the requests that
// prove it.
type Circuit struct {
	// ID names the circuit in metrics, status and batching.
	ID string
	// CS is the constraint system; it may be nil when every partition
	// comes as an Assignment (synthesized by the host).
	CS *r1cs.R1CS
	// PK are the parameters (the SRS), kept resident while in use.
	PK *params.ProvingKey
}

// Partition is one partition circuit's input: a witness that the engine
// synthesizes, or an assignment the host synthesized (supraseal-c2's
// path; its a, b, c are copied, so they need stay valid only until the
// partition's synthesis stage ends, and its other fields until the job ends).
type Partition struct {
	Witness    *r1cs.Witness
	Assignment *groth16.Assignment
	// WitnessFunc, when set instead of Witness, produces the witness from
	// a synthesis goroutine when the partition's turn comes (a host
	// callback); it is called at most once.
	WitnessFunc func() (*r1cs.Witness, error)
	// R and S fix the proof's randomness (tests); nil draws fresh values.
	R, S *fr.Element
}

// Request is a proof request: N partitions of one circuit.
type Request struct {
	// ID is the caller's request id, unique among jobs in flight (a
	// duplicate is refused, never merged); empty lets the engine choose.
	ID         string
	Circuit    *Circuit
	Partitions []Partition
	Priority   Priority
	// Deadline ends the job with an error; zero means the configured
	// scheduler.default_timeout (and none when that is zero).
	Deadline time.Time
	// Placement pins the partitions to one device; the zero value lets
	// any device prove them (placement.go).
	Placement Placement
	// Interlock, when set, is held together with the device's own lock
	// around each partition's device region (supraseal-c2's gpu_mtx): the
	// requests that share it serialize their device work on it, whatever
	// their devices, and no other request ever waits for it. It is taken
	// before the device's lock, never while holding it, so a device is
	// never kept idle by a request waiting for its host's lock.
	Interlock sync.Locker
	// Progress, when set, is told as each partition is proved: stage
	// "prove", Done of Total progress.Partitions. Calls come from the
	// engine's workers, one at a time (progress.Serialised), and hold
	// the worker: return quickly.
	Progress progress.Func
	// StageProgress, when set, is told as each stage of a partition's
	// proof begins and ends (groth16.Report.SetProgress: stage "prove",
	// Step the stage, Done of Total its expected cost in progress.Work),
	// for a host that shows one partition's progress (cuzk prove). With
	// several partitions in flight their events interleave.
	StageProgress progress.Func
}

// JobState is a job's life-cycle state.
type JobState string

// Job states.
const (
	StateQueued    JobState = "queued"
	StateRunning   JobState = "running"
	StateDone      JobState = "done"
	StateFailed    JobState = "failed"
	StateCancelled JobState = "cancelled"
)

// Errors the engine returns; they are wrapped with detail.
var (
	ErrDuplicateID = errors.New("engine: request id already in flight")
	ErrUnknownJob  = errors.New("engine: unknown job")
	ErrCancelled   = errors.New("engine: job cancelled")
	ErrClosed      = errors.New("engine: closed")
	ErrTooLarge    = errors.New("engine: request can never fit in memory.budget")
	ErrNotVerified = errors.New("engine: proof failed verification and was not returned")
	// ErrInvalidAssignment: a host-synthesized assignment holds a value
	// that is not a field element.
	ErrInvalidAssignment = errors.New("engine: invalid assignment")
)

// Timeline records when a partition passed each point of the pipeline.
type Timeline struct {
	Queued       time.Time `json:"queued"`
	SynthStart   time.Time `json:"synth_start"`
	SynthEnd     time.Time `json:"synth_end"`
	LockWait     time.Time `json:"lock_wait"`
	LockAcquired time.Time `json:"lock_acquired"`
	LockReleased time.Time `json:"lock_released"`
	G2End        time.Time `json:"g2_end"`
	Assembled    time.Time `json:"assembled"`
}

// PartitionReport describes how one partition was proved.
type PartitionReport struct {
	Device string `json:"device"`
	// DeviceIndex is the device's index as Placement names it (-1: the
	// CPU fallback).
	DeviceIndex int `json:"device_index"`
	Worker      int `json:"worker"`
	// LockSeq is the partition's place in its device's interlock order.
	LockSeq  int64           `json:"lock_seq"`
	Timeline Timeline        `json:"timeline"`
	Stages   []groth16.Stage `json:"stages"`
	Verified bool            `json:"verified"`
	// ABCReadyMs is when a, b, c were ready for their prefetch to the
	// device, in ms from the start of the locked region (negative: before
	// it); absent without a prefetch.
	ABCReadyMs *float64 `json:"abc_ready_ms,omitempty"`
}

// Result is a finished job.
type Result struct {
	ID     string
	State  JobState
	Proofs []params.Proof // in partition order; nil unless State is done
	// Partitions has a report per partition that reached assembly.
	Partitions []PartitionReport
	Err        error
}

// job is a request in the engine.
type job struct {
	id  string
	req Request // emptied once the job has ended and settled (dropRequest)
	// what status shows of the request, kept apart from it
	circuit  string
	priority Priority

	// queue bookkeeping, guarded by the dispatcher (next also by mu)
	index  int
	seq    uint64
	next   int // next partition to dispatch
	queued bool

	// ctx ends with the job: cancelled, expired (its cause is then
	// context.DeadlineExceeded) or ended
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	state     JobState
	proofs    []params.Proof
	reports   []PartitionReport
	partDone  []bool
	nDone     int
	err       error
	done      chan struct{}
	submitted time.Time
	ended     time.Time
	inputs    inputCounts // see inputs.go
}

func (s JobState) ended() bool {
	return s == StateDone || s == StateFailed || s == StateCancelled
}

// result snapshots the job.
func (j *job) result() Result {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := Result{ID: j.id, State: j.state, Err: j.err}
	for i, ok := range j.partDone {
		if ok {
			r.Partitions = append(r.Partitions, j.reports[i])
		}
	}
	if j.state == StateDone {
		r.Proofs = append([]params.Proof(nil), j.proofs...)
	}
	return r
}
