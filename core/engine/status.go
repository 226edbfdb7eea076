package engine

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/cuzk/cuzk/core/throttle"
)

// Status is a snapshot of the engine, for hosts and operators. Its JSON
// (StatusJSON, and the library's status document) is snake_case, with
// durations in seconds and empty lists as [].
type Status struct {
	Uptime   time.Duration  `json:"-"` // uptime_seconds
	Capacity Capacity       `json:"capacity"`
	Jobs     []JobStatus    `json:"jobs"` // jobs in flight
	Devices  []DeviceStatus `json:"devices"`
	Memory   MemoryStatus   `json:"memory"`
	Throttle throttle.Stats `json:"throttle"`
	Finished map[string]int `json:"finished"` // retained finished jobs by state
}

// Capacity is what a scheduler placing work on this engine reads: the
// memory a new partition could reserve now, and the work already waiting.
type Capacity struct {
	MemoryBudget uint64 `json:"memory_budget_bytes"`
	// MemoryFree is the budget no partition has reserved; a partition whose
	// working set exceeds it waits before synthesis. Pooled buffers are not
	// subtracted: the pool gives them back as partitions reserve.
	MemoryFree uint64 `json:"memory_free_bytes"`
	// Queue counts the jobs waiting for dispatch, by priority (every
	// priority listed, 0 included).
	Queue map[string]int `json:"queue"`
	// JobsInFlight are submitted and not ended (queued or running);
	// PartitionsWaiting wait for room in the memory budget.
	JobsInFlight      int `json:"jobs_in_flight"`
	PartitionsWaiting int `json:"partitions_waiting_for_memory"`
	// DevicesHealthy and WorkersHealthy count the devices in service and
	// their workers.
	DevicesHealthy int `json:"devices_healthy"`
	WorkersHealthy int `json:"workers_healthy"`
}

// MarshalJSON writes the uptime in seconds.
func (s Status) MarshalJSON() ([]byte, error) {
	type fields Status // without this method
	return json.Marshal(struct {
		Uptime float64 `json:"uptime_seconds"`
		fields
	}{s.Uptime.Seconds(), fields(s)})
}

// JobStatus describes a job in flight.
type JobStatus struct {
	ID         string        `json:"id"`
	Circuit    string        `json:"circuit"`
	Priority   string        `json:"priority"`
	State      JobState      `json:"state"`
	Partitions []string      `json:"partitions"` // queued, running or done, per partition
	Age        time.Duration `json:"-"`          // age_seconds
}

// MarshalJSON writes the age in seconds.
func (j JobStatus) MarshalJSON() ([]byte, error) {
	type fields JobStatus
	return json.Marshal(struct {
		fields
		Age float64 `json:"age_seconds"`
	}{fields(j), j.Age.Seconds()})
}

// DeviceStatus describes a device and its interlock.
type DeviceStatus struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Model is a GPU's name as its driver gives it ("NVIDIA H200").
	Model string `json:"model,omitempty"`
	// Reason says, for the CPU fallback, why no GPU proves: the CUDA
	// library search's or the device's error.
	Reason string `json:"reason,omitempty"`
	// Index is what Placement (supraseal-c2's gpu_index) names the device
	// by: the CUDA ordinal, or the position in Options.Devices; -1 for the
	// CPU fallback, which cannot be pinned.
	Index   int `json:"index"`
	Workers int `json:"workers"`
	// Partitions were proved here; Failed reached a worker here and failed
	// or were cancelled; Pinned wait in the device's own queue.
	Partitions int64 `json:"partitions"`
	Failed     int64 `json:"partitions_failed"`
	Pinned     int   `json:"pinned_queued"`
	// Healthy is false once the device is out of service (devices.go);
	// Error then says why.
	Healthy      bool          `json:"healthy"`
	Error        string        `json:"error,omitempty"`
	LockHolder   int           `json:"lock_holder"` // worker id, or -1
	Acquisitions int64         `json:"acquisitions"`
	LockWait     time.Duration `json:"-"`           // lock_wait_seconds
	Busy         time.Duration `json:"-"`           // busy_seconds
	Utilisation  float64       `json:"utilisation"` // busy / uptime
	// Device memory by the backend's own count (GPUs): held now, the most
	// held since start, and gpus.max_device_memory resolved (0: no cap).
	MemoryHeld uint64 `json:"device_memory_held_bytes,omitempty"`
	MemoryPeak uint64 `json:"device_memory_peak_bytes,omitempty"`
	MemoryCap  uint64 `json:"device_memory_cap_bytes,omitempty"`
	// StreamedBytes is the host-to-device bytes of parameter points
	// streamed through the device so far (point sets that do not stay
	// resident under the cap).
	StreamedBytes uint64 `json:"device_streamed_bytes,omitempty"`
	// StreamedCopy is the time those copies took (bytes over it: the
	// achieved host-to-device bandwidth).
	StreamedCopy time.Duration `json:"-"` // device_streamed_copy_seconds
	// StreamedFileRead is the time the points of sets given back to their
	// parameter file took to be read from it, before their copies.
	StreamedFileRead time.Duration `json:"-"` // device_streamed_file_read_seconds
	// StreamedFileMapped is the bytes of such sets copied straight from
	// the file's pages instead (a file in memory), with no read.
	StreamedFileMapped uint64 `json:"device_streamed_file_mapped_bytes,omitempty"`
	// The chunks streamed, and of them the first chunks of G1 and G2 sets
	// put ahead of their MSM while the link was otherwise idle.
	StreamedChunks uint64 `json:"device_streamed_chunks,omitempty"`
	StagedG1       uint64 `json:"device_staged_chunks_g1,omitempty"`
	StagedG2       uint64 `json:"device_staged_chunks_g2,omitempty"`
	// Partitions whose a, b, c went up ahead of h: whole, a alone (room
	// under the cap for one vector), or not at all (no room: h waited for
	// their upload).
	PrefetchWhole   uint64 `json:"device_prefetch_abc,omitempty"`
	PrefetchAOnly   uint64 `json:"device_prefetch_a_alone,omitempty"`
	PrefetchRefused uint64 `json:"device_prefetch_refused,omitempty"`
	// The device's count the last a, b, c prefetch was decided on under
	// the cap: held, of it the MSM pool's reservation, and what the
	// running query stage was still to allocate.
	PrefetchLastHeld  uint64 `json:"device_prefetch_last_held_bytes,omitempty"`
	PrefetchLastPool  uint64 `json:"device_prefetch_last_pool_bytes,omitempty"`
	PrefetchLastQuery uint64 `json:"device_prefetch_last_query_bytes,omitempty"`
}

// MarshalJSON writes the lock wait, busy and copy times in seconds.
func (d DeviceStatus) MarshalJSON() ([]byte, error) {
	type fields DeviceStatus
	return json.Marshal(struct {
		fields
		LockWait float64 `json:"lock_wait_seconds"`
		Busy     float64 `json:"busy_seconds"`
		Copy     float64 `json:"device_streamed_copy_seconds,omitempty"`
		FileRead float64 `json:"device_streamed_file_read_seconds,omitempty"`
	}{fields(d), d.LockWait.Seconds(), d.Busy.Seconds(), d.StreamedCopy.Seconds(), d.StreamedFileRead.Seconds()})
}

// MemoryStatus is the memory budget and the buffer pool.
type MemoryStatus struct {
	admissionStats
	Pool poolStats `json:"pool"`
}

// InFlight returns the number of jobs submitted and not yet ended.
func (e *Engine) InFlight() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.jobs)
}

// Status returns a snapshot.
func (e *Engine) Status() Status {
	now := e.clock.Now()
	up := now.Sub(e.started)
	st := Status{Uptime: up, Finished: e.finished.counts(), Throttle: e.throttle.Stats(),
		Memory: MemoryStatus{admissionStats: e.adm.stats(), Pool: e.pool.stats()},
		Jobs:   []JobStatus{}, Devices: []DeviceStatus{}}
	st.Capacity = Capacity{MemoryBudget: st.Memory.Budget, MemoryFree: st.Memory.Budget - st.Memory.Reserved,
		Queue: map[string]int{}, PartitionsWaiting: st.Memory.Waiting}
	e.mu.Lock()
	for p, n := range e.disp.depth() {
		st.Capacity.Queue[Priority(p).String()] = n
	}
	st.Capacity.JobsInFlight = len(e.jobs)
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].submitted.Before(jobs[b].submitted) })
	for _, j := range jobs {
		j.mu.Lock()
		state := j.state
		j.mu.Unlock()
		st.Jobs = append(st.Jobs, JobStatus{ID: j.id, Circuit: j.circuit, Priority: j.priority.String(),
			State: state, Partitions: partitionStates(j), Age: now.Sub(j.submitted)})
	}
	for _, d := range e.devices {
		busy := time.Duration(d.lock.busyNs.Load())
		ds := DeviceStatus{Name: d.name, Kind: d.kind, Model: d.model, Reason: d.reason, Index: d.index, Workers: d.workers,
			Partitions: d.proved.Load(), Failed: d.failed.Load(), Pinned: len(d.q),
			Healthy: true, LockHolder: int(d.lock.holder.Load()),
			Acquisitions: d.lock.acquisitions.Load(), LockWait: time.Duration(d.lock.waitNs.Load()),
			Busy: busy}
		if up > 0 {
			ds.Utilisation = busy.Seconds() / up.Seconds()
		}
		if f := d.lock.failed(); f != nil {
			ds.Healthy, ds.Error = false, f.Error()
		} else {
			st.Capacity.DevicesHealthy++
			st.Capacity.WorkersHealthy += d.workers
		}
		if r := d.caps.Report; r != nil {
			if ds.Healthy {
				ds.MemoryHeld, ds.MemoryPeak, ds.MemoryCap, _ = r.DeviceMemory()
			}
			t := r.Transfers()
			ds.StreamedBytes, ds.StreamedCopy, ds.StreamedFileRead = t.StreamedBytes, t.StreamedCopy, t.StreamedFileRead
			ds.StreamedFileMapped = t.StreamedFileMapped
			ds.StreamedChunks, ds.StagedG1, ds.StagedG2 = t.Chunks.Streamed, t.Chunks.StagedG1, t.Chunks.StagedG2
			p := t.Prefetches
			ds.PrefetchWhole, ds.PrefetchAOnly, ds.PrefetchRefused = p.Whole, p.AOnly, p.Refused
			ds.PrefetchLastHeld, ds.PrefetchLastPool, ds.PrefetchLastQuery = p.Last.Held, p.Last.Pool, p.Last.Query
		}
		st.Devices = append(st.Devices, ds)
	}
	return st
}

// partitionStates reads a job's per-partition states.
func partitionStates(j *job) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]string, len(j.partDone))
	for i := range out {
		switch {
		case j.partDone[i]:
			out[i] = "done"
		case i < j.next:
			out[i] = "running"
		default:
			out[i] = "queued"
		}
	}
	return out
}

// StatusJSON returns Status as JSON.
func (e *Engine) StatusJSON() ([]byte, error) {
	return json.MarshalIndent(e.Status(), "", "  ")
}
