package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/internal/clock"
	"github.com/cuzk/cuzk/core/params"
)

// queuedJob is a job of n partitions of circuit, as Submit makes it.
func queuedJob(id, circuit string, n int, p Priority) *job {
	pk := &params.ProvingKey{H: make([]bls.G1Affine, 7)}
	j := &job{id: id, index: -1, state: StateQueued,
		req: Request{ID: id, Priority: p, Circuit: &Circuit{ID: circuit, PK: pk}, Partitions: make([]Partition, n)}}
	j.ctx, j.cancel = context.WithCancelCause(context.Background())
	return j
}

// taken lists the next n tasks as "job/partition".
func taken(d *dispatcher, n int) []string {
	var out []string
	for range n {
		t := d.next(nil)
		out = append(out, fmt.Sprintf("%s/%d", t.job.id, t.idx))
	}
	return out
}

// Jobs go out by priority, FIFO within one, each job's partitions in
// order before the next job's; a removed job's partitions never go; each
// task carries the domain size and the time it was taken.
func TestDispatcherOrder(t *testing.T) {
	clk := clock.NewManual()
	d := newDispatcher(config.Scheduler{}, clk)
	for _, j := range []*job{queuedJob("n1", "c", 2, Normal), queuedJob("l1", "c", 1, Low), queuedJob("h1", "c", 1, High),
		queuedJob("n2", "c", 1, Normal), queuedJob("gone", "c", 3, Critical)} {
		d.push(j)
		if j.id == "gone" {
			d.remove(j)
		}
	}
	require.Equal(t, [numPriorities]int{Low: 1, Normal: 2, High: 1}, d.depth())
	t0 := d.next(nil)
	require.Equal(t, "h1", t0.job.id)
	require.Equal(t, 8, t0.n)
	require.Equal(t, clk.Now(), t0.tl.Queued)
	require.Equal(t, StateRunning, t0.job.state)
	require.Equal(t, []string{"n1/0", "n1/1", "n2/0", "l1/0"}, taken(d, 4))
	require.Equal(t, [numPriorities]int{}, d.depth(), "every job has left the queue")
	require.Nil(t, d.next(closedChan()), "nothing queued and closing: nil")
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// With batching, the head job's circuit collects its queued jobs and, for
// scheduler.max_batch_wait, those that come; the batch goes out before a
// higher priority of another circuit. A job removed while its batch waits
// (cancelled: the engine drops its request) leaves the batch, and the
// dispatcher goes on.
func TestDispatcherBatches(t *testing.T) {
	clk := clock.NewManual()
	d := newDispatcher(config.Scheduler{BatchMax: 3, BatchWait: config.Duration(time.Hour)}, clk)
	d.push(queuedJob("a", "x", 1, Normal))
	got := make(chan []string, 1)
	go func() { got <- taken(d, 4) }()
	eventually(t, func() bool { return clk.Pending() == 1 }, "the batch waits for company")
	d.push(queuedJob("b", "y", 1, Critical))
	d.push(queuedJob("c", "x", 2, Low))
	clk.Advance(time.Hour)
	eventually(t, func() bool { return clk.Pending() == 1 }, "b's batch waits in turn")
	clk.Advance(time.Hour)
	require.Equal(t, []string{"a/0", "c/0", "c/1", "b/0"}, <-got)

	cancelled := queuedJob("cancelled", "x", 1, Normal)
	d.push(cancelled)
	go func() { got <- taken(d, 1) }()
	eventually(t, func() bool { return clk.Pending() == 1 }, "its batch waits")
	d.remove(cancelled)
	cancelled.req = Request{ID: cancelled.id} // as the engine drops an ended job's request
	clk.Advance(time.Hour)
	d.push(queuedJob("after", "z", 1, Normal))
	eventually(t, func() bool { return clk.Pending() == 1 }, "the next batch waits")
	clk.Advance(time.Hour)
	require.Equal(t, []string{"after/0"}, <-got)
}

// A job cancelled while its batch waits for company ends, and the engine
// goes on proving (the dispatcher once read the dropped request after the
// wait and crashed).
func TestCancelDuringBatchWait(t *testing.T) {
	f := testCircuit(t)
	clk := clock.NewManual()
	cfg := oneWorker(testConfig())
	cfg.Scheduler.BatchMax = 3
	cfg.Scheduler.BatchWait = config.Duration(time.Hour)
	e := newEngine(t, cfg, Options{Devices: []backend.Backend{&hookBackend{name: "fake0"}}, Clock: clk})
	_, err := e.Submit(f.request("a", 1, Normal))
	require.NoError(t, err)
	eventually(t, func() bool { return clk.Pending() == 1 }, "the batch waits")
	require.NoError(t, e.Cancel("a"))
	res, err := e.Await("a", 0)
	require.NoError(t, err)
	require.Equal(t, StateCancelled, res.State)
	clk.Advance(time.Hour)
	id, err := e.Submit(f.request("b", 1, Normal))
	require.NoError(t, err)
	eventually(t, func() bool {
		clk.Advance(time.Hour) // b's batch, whether a's ended wait took it or it waits on its own
		_, ended, _ := e.Peek(id)
		return ended
	}, "b is proved")
	res, err = e.Await(id, 0)
	require.NoError(t, err)
	f.checkProofs(t, f.request("", 1, Normal), res)
}
