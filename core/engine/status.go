package engine

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/cuzk/cuzk/core/throttle"
)

// Status is a snapshot of the engine, for hosts and operators (also as
// JSON: cuzk_status_json).
type Status struct {
	Uptime   time.Duration  `json:"uptime_ns"`
	Queue    map[string]int `json:"queue"` // queued jobs by priority
	Jobs     []JobStatus    `json:"jobs"`  // jobs in flight
	Devices  []DeviceStatus `json:"devices"`
	Memory   MemoryStatus   `json:"memory"`
	Throttle throttle.Stats `json:"throttle"`
	Finished map[string]int `json:"finished"` // retained finished jobs by state
}

// JobStatus describes a job in flight.
type JobStatus struct {
	ID         string        `json:"id"`
	Circuit    string        `json:"circuit"`
	Priority   string        `json:"priority"`
	State      JobState      `json:"state"`
	Partitions []string      `json:"partitions"` // queued, running or done, per partition
	Age        time.Duration `json:"age_ns"`
}

// DeviceStatus describes a device and its interlock.
type DeviceStatus struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
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
	LockWait     time.Duration `json:"lock_wait_ns"`
	Busy         time.Duration `json:"busy_ns"`
	Utilisation  float64       `json:"utilisation"` // busy / uptime
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
	st := Status{Uptime: up, Queue: map[string]int{}, Finished: map[string]int{}, Throttle: e.throttle.Stats(),
		Memory: MemoryStatus{admissionStats: e.adm.stats(), Pool: e.pool.stats()}}
	e.mu.Lock()
	for p, n := range e.q.depth() {
		st.Queue[Priority(p).String()] = n
	}
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.finished.each(func(j *job) {
		j.mu.Lock()
		st.Finished[string(j.state)]++
		j.mu.Unlock()
	})
	e.mu.Unlock()
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].submitted.Before(jobs[b].submitted) })
	for _, j := range jobs {
		j.mu.Lock()
		state := j.state
		j.mu.Unlock()
		st.Jobs = append(st.Jobs, JobStatus{ID: j.id, Circuit: j.circuit, Priority: j.priority.String(),
			State: state, Partitions: e.partitionStates(j), Age: now.Sub(j.submitted)})
	}
	for _, d := range e.devices {
		busy := time.Duration(d.lock.busyNs.Load())
		ds := DeviceStatus{Name: d.name, Kind: d.kind, Index: d.index, Workers: d.workers,
			Partitions: d.proved.Load(), Failed: d.failed.Load(), Pinned: len(d.q),
			Healthy: true, LockHolder: int(d.lock.holder.Load()),
			Acquisitions: d.lock.acquisitions.Load(), LockWait: time.Duration(d.lock.waitNs.Load()),
			Busy: busy}
		if up > 0 {
			ds.Utilisation = busy.Seconds() / up.Seconds()
		}
		if f := d.lock.failed(); f != nil {
			ds.Healthy, ds.Error = false, f.Error()
		}
		st.Devices = append(st.Devices, ds)
	}
	return st
}

// partitionStates reads a job's per-partition states.
func (e *Engine) partitionStates(j *job) []string {
	e.mu.Lock()
	next := j.next
	e.mu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]string, len(j.partDone))
	for i := range out {
		switch {
		case j.partDone[i]:
			out[i] = "done"
		case i < next:
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
