package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/backend/cuda"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/throttle"
)

// Options are the engine's collaborators; the zero value is production.
type Options struct {
	Logger *slog.Logger
	Clock  Clock
	// Throttle is the process-wide bandwidth throttle; nil creates one from
	// the configuration.
	Throttle *throttle.Throttle
	// Devices replaces device discovery (tests, benchmarks): one device
	// per backend, each with gpus.workers_per_device workers. Close calls
	// the Close of those that have one (devices.go).
	Devices []backend.Backend
	// DiscoverGPUs lists the machine's GPUs (package nvml provides one);
	// nil means none are looked for. It informs the logs; the devices the
	// engine proves on come from the CUDA library.
	DiscoverGPUs backend.Discover
	// MemoryTotal reports the bytes this process may use, for an "auto"
	// memory.budget; nil reads the machine (sysmem.Total).
	MemoryTotal func() (uint64, error)
	// CUDALib is the path of libcuzk_cuda.so when gpus.cuda_lib is empty
	// (the host layer resolves CUZK_CUDA_LIB or the library's own
	// directory); empty means no GPU backend.
	CUDALib string
	// RetainJobs and RetainBytes bound the finished jobs kept for Await
	// (retention.go); zero means FinishedKept and FinishedKeptBytes.
	RetainJobs  int
	RetainBytes uint64
}

// device is a GPU or the CPU, with its interlock and workers.
type device struct {
	name    string
	kind    string // "cpu", "gpu" or "given" (Options.Devices)
	index   int    // what Placement names (placement.go); noCPUIndex for the CPU
	be      backend.Backend
	lock    *interlock
	workers int
	// q holds the partitions pinned to this device (the shared queue,
	// Engine.devQ, holds the others); nil for the CPU, which cannot be
	// pinned.
	q chan *task

	// partitions proved here, and partitions that reached a worker here
	// and failed (or were cancelled)
	proved, failed atomic.Int64
}

// task is one partition moving through the pipeline.
type task struct {
	job   *job
	idx   int
	n     int    // domain size
	bytes uint64 // reserved working set
	asg   *groth16.Assignment
	// auxPooled: asg.Aux is a pooled copy of the witness's aux (pinAux),
	// returned to the pool with a, b, c
	auxPooled bool
	// abcReleased: the partition's a, b, c are no longer read (inputs.go)
	abcReleased bool
	// abcCopy, when set, is closed when the copy of a host assignment's a,
	// b, c into asg ends (takeAssignment)
	abcCopy chan struct{}
	tl      Timeline
}

// Engine proves requests. It is safe for concurrent use.
type Engine struct {
	cfg      config.Config
	log      *slog.Logger
	clock    Clock
	throttle *throttle.Throttle
	adm      *admission
	pool     *pool
	devices  []*device
	byIndex  map[int]*device // the devices a Placement can name
	metrics  *metrics
	started  time.Time

	mu       sync.Mutex
	q        queue
	batch    []*job // jobs being dispatched together (same circuit)
	jobs     map[string]*job
	finished *retention                     // ended jobs not yet collected (retention.go)
	keys     map[*params.ProvingKey]*keyUse // keys of unsettled jobs (release.go)
	kick     chan struct{}
	closed   bool
	nextID   atomic.Int64

	synthQ  chan *task
	devQ    chan *task
	closing chan struct{}
	wg      sync.WaitGroup
}

// errEnded cancels the context of a job that has ended.
var errEnded = errors.New("engine: job ended")

// New starts an engine with cfg.
func New(cfg config.Config, opt Options) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	budget, err := resolveBudget(cfg.Memory, opt.MemoryTotal)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:      cfg,
		log:      opt.Logger,
		clock:    opt.Clock,
		throttle: opt.Throttle,
		adm:      newAdmission(budget),
		pool:     newPool(poolMax(cfg.Memory, budget), cfg.Dealloc.MaxConcurrent),
		jobs:     map[string]*job{},
		finished: newRetention(opt.RetainJobs, opt.RetainBytes),
		keys:     map[*params.ProvingKey]*keyUse{},
		kick:     make(chan struct{}, 1),
		synthQ:   make(chan *task),
		devQ:     make(chan *task, cfg.Synthesis.QueueDepth),
		closing:  make(chan struct{}),
		started:  time.Now(),
	}
	e.pool.room = e.adm.room
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.clock == nil {
		e.clock = realClock{}
	}
	if e.throttle == nil {
		e.throttle = throttle.New(cfg.Throttle.Enabled, cfg.Throttle.Sleep.D())
	}
	if err := e.setupDevices(opt); err != nil {
		e.pool.close()
		return nil, err
	}
	e.byIndex = map[int]*device{}
	for _, d := range e.devices {
		if d.index != noCPUIndex {
			d.q = make(chan *task, cfg.Synthesis.QueueDepth)
			e.byIndex[d.index] = d
		}
	}
	for _, d := range e.devices {
		// page-locked memory serves every GPU: one pinner is enough
		if p, ok := d.be.(backend.HostPinner); ok {
			e.pool.pinner = p
			break
		}
	}
	e.metrics = newMetrics(e)

	e.wg.Add(1)
	go e.dispatch()
	for i := 0; i < cfg.Synthesis.MaxParallel; i++ {
		e.wg.Add(1)
		go e.synthesize()
	}
	w := 0
	for _, d := range e.devices {
		for k := 0; k < d.workers; k++ {
			e.wg.Add(1)
			go e.work(d, w)
			w++
		}
	}
	return e, nil
}

func (e *Engine) setupDevices(opt Options) error {
	if len(opt.Devices) > 0 {
		for i, be := range opt.Devices {
			e.devices = append(e.devices, &device{name: be.Name(), kind: "given", index: i, be: be, lock: newInterlock(), workers: e.cfg.GPUs.WorkersPerDevice})
		}
		return nil
	}
	if opt.DiscoverGPUs != nil {
		if gpus, err := opt.DiscoverGPUs(); err == nil && len(gpus) > 0 {
			e.log.Info("NVML reports GPUs", "count", len(gpus), "first", gpus[0].Name)
		}
	}
	gpus, err := e.cudaDevices(opt)
	if len(gpus) > 0 {
		e.devices = gpus
		return nil
	}
	if e.cfg.GPUs.Required {
		return fmt.Errorf("engine: gpus.required is set but no GPU can be used: %v", errString(err))
	}
	e.log.Warn("no usable GPU; proving on the CPU backend", "reason", errString(err))
	be := &cpu.Backend{NbTasks: e.cfg.Synthesis.Threads}
	e.devices = []*device{{name: "cpu", kind: "cpu", index: noCPUIndex, be: be, lock: newInterlock(), workers: e.cfg.GPUs.CPUWorkers}}
	return nil
}

// cudaDevices loads the CUDA library and makes a device per usable GPU
// (those listed in gpus.devices, or all).
func (e *Engine) cudaDevices(opt Options) ([]*device, error) {
	path := e.cfg.GPUs.CUDALib
	if path == "" {
		path = opt.CUDALib
	}
	if path == "" {
		return nil, errors.New("no CUDA library configured (gpus.cuda_lib)")
	}
	lib, err := cuda.Open(path)
	if err != nil {
		return nil, err
	}
	gpus, err := lib.Devices()
	if err != nil {
		return nil, err
	}
	want := map[int]bool{}
	for _, d := range e.cfg.GPUs.Devices {
		want[d] = true
	}
	var out []*device
	for _, g := range gpus {
		if len(want) > 0 && !want[g.Index] {
			continue
		}
		be := cuda.NewBackend(lib, g)
		if !e.cfg.GPUs.G2OnGPU {
			be.SetG2CPU(e.cfg.Synthesis.Threads)
		}
		be.SetDevicePrep(e.cfg.GPUs.DevicePrep)
		out = append(out, &device{name: be.Name(), kind: "gpu", index: g.Index, be: be, lock: newInterlock(), workers: e.cfg.GPUs.WorkersPerDevice})
		e.log.Info("GPU device", "index", g.Index, "name", g.Name, "vram", g.VRAMTotal)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s sees %d GPU(s), none of them selected by gpus.devices", path, len(gpus))
	}
	return out, nil
}

func errString(err error) string {
	if err == nil {
		return "none present"
	}
	return err.Error()
}

// Throttle returns the engine's bandwidth throttle (the host may raise it).
func (e *Engine) Throttle() *throttle.Throttle { return e.throttle }

// Config returns the configuration the engine runs with.
func (e *Engine) Config() config.Config { return e.cfg }

// workingSet estimates a partition's peak host bytes: a, b, c over the
// domain, the gathered A/B scalars, and the MSM's compacted copies.
func workingSet(n, nInputs, nAux int) uint64 {
	const pointAndScalar = 96 + 32
	return uint64(3*n*elemSize) + uint64(2*(nInputs+nAux)*elemSize) + uint64(n/2*pointAndScalar)
}

// Submit validates and queues a request and returns its id.
func (e *Engine) Submit(req Request) (string, error) {
	if err := e.check(&req); err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return "", ErrClosed
	}
	id := req.ID
	if id == "" {
		id = fmt.Sprintf("job-%d", e.nextID.Add(1))
	}
	if _, dup := e.jobs[id]; dup {
		return "", fmt.Errorf("%w: %q", ErrDuplicateID, id)
	}
	req.Progress = progress.Serialised(req.Progress)
	j := &job{id: id, req: req, circuit: req.Circuit.ID, priority: req.Priority, index: -1, state: StateQueued, done: make(chan struct{}), submitted: time.Now(),
		proofs: make([]params.Proof, len(req.Partitions)), reports: make([]PartitionReport, len(req.Partitions)),
		partDone: make([]bool, len(req.Partitions)), inputs: newInputCounts(len(req.Partitions))}
	deadline := req.Deadline
	if deadline.IsZero() && e.cfg.Scheduler.DefaultTimeout > 0 {
		deadline = time.Now().Add(e.cfg.Scheduler.DefaultTimeout.D())
	}
	j.ctx, j.cancel = context.WithCancelCause(context.Background())
	j.stop = func() {}
	if !deadline.IsZero() {
		j.ctx, j.stop = context.WithDeadline(j.ctx, deadline)
	}
	// The key's device memory is not released while the job may use it.
	keyDone := e.useKey(req.Circuit.PK)
	// Cancellation and the deadline end the job even while it waits in
	// the queue; once it has settled, it lets go of its key.
	go func() {
		select {
		case <-j.ctx.Done():
			e.abort(j, context.Cause(j.ctx))
		case <-j.done:
		}
		<-j.inputs.settled
		keyDone()
	}()
	e.jobs[id] = j
	j.queued = true
	e.q.push(j)
	select {
	case e.kick <- struct{}{}:
	default:
	}
	return id, nil
}

// check validates a request before it is queued.
func (e *Engine) check(req *Request) error {
	c := req.Circuit
	if c == nil || c.PK == nil {
		return errors.New("engine: request without a circuit and its parameters")
	}
	if len(req.Partitions) == 0 {
		return errors.New("engine: request without partitions")
	}
	if req.Priority < Low || req.Priority >= numPriorities {
		return fmt.Errorf("engine: invalid priority %d", req.Priority)
	}
	if err := e.checkPlacement(req.Placement); err != nil {
		return err
	}
	n := len(c.PK.H) + 1
	for i, p := range req.Partitions {
		given := 0
		for _, ok := range []bool{p.Witness != nil, p.Assignment != nil, p.WitnessFunc != nil} {
			if ok {
				given++
			}
		}
		switch {
		case given > 1:
			return fmt.Errorf("engine: partition %d has more than one of a witness, a witness function and an assignment", i)
		case p.WitnessFunc != nil:
			if c.CS == nil {
				return fmt.Errorf("engine: partition %d has a witness function but circuit %q has no constraint system", i, c.ID)
			}
			if err := groth16.CheckKey(c.PK, c.CS); err != nil {
				return fmt.Errorf("engine: %w", err)
			}
		case p.Witness != nil:
			if c.CS == nil {
				return fmt.Errorf("engine: partition %d has a witness but circuit %q has no constraint system", i, c.ID)
			}
			if err := c.CS.CheckWitness(p.Witness); err != nil {
				return fmt.Errorf("engine: partition %d: %w", i, err)
			}
			if err := groth16.CheckKey(c.PK, c.CS); err != nil {
				return fmt.Errorf("engine: %w", err)
			}
		case p.Assignment != nil:
			a := p.Assignment
			if len(a.A) > n || len(a.B) != len(a.A) || len(a.C) != len(a.A) {
				return fmt.Errorf("engine: partition %d: a, b, c have %d/%d/%d elements, parameters allow %d", i, len(a.A), len(a.B), len(a.C), n)
			}
		default:
			return fmt.Errorf("engine: partition %d has neither a witness nor an assignment", i)
		}
		if ws := e.partitionBytes(req, i); !e.adm.fits(ws) {
			return fmt.Errorf("%w: partition %d needs %d bytes, memory.budget is %d", ErrTooLarge, i, ws, e.adm.budget)
		}
	}
	return nil
}

func (e *Engine) partitionBytes(req *Request, i int) uint64 {
	n := len(req.Circuit.PK.H) + 1
	p := req.Partitions[i]
	if p.Assignment != nil {
		return workingSet(n, len(p.Assignment.Inputs), len(p.Assignment.Aux))
	}
	cs := req.Circuit.CS
	return workingSet(n, cs.NumInputs, cs.NumAux)
}

// Cancel stops a job: queued partitions never start, running ones stop at
// their next check, and everything they hold is released. Cancelling a
// finished job is not an error.
func (e *Engine) Cancel(id string) error {
	e.mu.Lock()
	j, ok := e.jobs[id]
	if !ok {
		fin := e.finished.get(id) != nil
		e.mu.Unlock()
		if fin {
			return nil
		}
		return fmt.Errorf("%w: %q", ErrUnknownJob, id)
	}
	e.mu.Unlock()
	j.cancel(ErrCancelled)
	e.abort(j, ErrCancelled)
	return nil
}

// abort ends j with err: it leaves the queue, its running partitions are
// told to stop, and waiters get err at once.
func (e *Engine) abort(j *job, err error) {
	e.dequeue(j)
	j.cancel(err)
	j.mu.Lock()
	if j.err == nil && j.state != StateDone {
		j.err = err
	}
	e.maybeEnd(j)
	j.mu.Unlock()
}

// dequeue takes j out of the queue and the current batch, so that no more
// of its partitions are dispatched.
func (e *Engine) dequeue(j *job) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if j.queued {
		e.q.remove(j)
		j.queued = false
	}
	for i, b := range e.batch {
		if b == j {
			e.batch = append(e.batch[:i], e.batch[i+1:]...)
			break
		}
	}
}

// maybeEnd finishes j once it can say no more (j.mu held): all proofs in,
// or an error. Partitions still running after an error stop at their next
// check and release what they hold in the background; a cancelled or
// expired job does not wait for them.
func (e *Engine) maybeEnd(j *job) {
	if j.state == StateDone || j.state == StateFailed || j.state == StateCancelled {
		return
	}
	switch {
	case j.err == nil && j.nDone == len(j.req.Partitions):
		j.state = StateDone
	case j.err != nil:
		j.state = StateFailed
		if errors.Is(j.err, ErrCancelled) {
			j.state = StateCancelled
		}
	default:
		return
	}
	j.ended = time.Now()
	close(j.done)
	j.cancel(errEnded) // release the job's context and its deadline timer
	j.stop()
	e.metrics.ended(j)
	e.mu.Lock()
	settleUntaken(j)
	delete(e.jobs, j.id)
	e.finished.add(j, resultBytes(j))
	if j.inputs.tasksLeft <= 0 {
		dropRequest(j)
	}
	e.mu.Unlock()
}

// releaseRequest drops the request of an ended job once its last running
// partition has left the pipeline (j.mu held).
func (e *Engine) releaseRequest(j *job) {
	if !j.state.ended() || j.inputs.tasksLeft > 0 {
		return
	}
	e.mu.Lock()
	dropRequest(j)
	e.mu.Unlock()
}

// dropRequest lets go of everything the request holds: witnesses, host
// assignments, witness callbacks, the circuit and its parameters, the
// interlock (j.mu and e.mu held; nothing reads j.req any more: the job
// has left the queue and every task has finished).
func dropRequest(j *job) {
	j.req = Request{ID: j.req.ID}
}

// Forget drops finished job id from the jobs kept for Await (its caller
// has collected it); a job in flight or unknown is left alone.
func (e *Engine) Forget(id string) {
	e.mu.Lock()
	e.finished.forget(id)
	e.mu.Unlock()
}

// Known reports whether job id is in flight or kept for Await.
func (e *Engine) Known(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.jobs[id]
	return ok || e.finished.get(id) != nil
}

// Await waits up to timeout (0 = no limit) for job id to end and returns
// its result. A timeout returns context.DeadlineExceeded and leaves the job
// running.
func (e *Engine) Await(id string, timeout time.Duration) (Result, error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return e.Wait(ctx, id)
}

// Wait waits until job id ends or ctx is done.
func (e *Engine) Wait(ctx context.Context, id string) (Result, error) {
	e.mu.Lock()
	j, err := e.lookupLocked(id)
	e.mu.Unlock()
	if err != nil {
		return Result{}, err
	}
	select {
	case <-j.done:
		return j.result(), nil
	case <-ctx.Done():
		return Result{ID: id}, ctx.Err()
	}
}

// Prove submits req and waits for its proofs.
func (e *Engine) Prove(ctx context.Context, req Request) ([]params.Proof, []PartitionReport, error) {
	id, err := e.Submit(req)
	if err != nil {
		return nil, nil, err
	}
	res, err := e.Wait(ctx, id)
	if err != nil {
		_ = e.Cancel(id)
		return nil, nil, err
	}
	e.Forget(id)
	if res.Err != nil {
		return nil, res.Partitions, res.Err
	}
	return res.Proofs, res.Partitions, nil
}

// Close cancels every job, stops the goroutines and frees every buffer.
func (e *Engine) Close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	jobs := make([]*job, 0, len(e.jobs))
	for _, j := range e.jobs {
		jobs = append(jobs, j)
	}
	e.mu.Unlock()
	for _, j := range jobs {
		e.abort(j, ErrClosed)
	}
	close(e.closing)
	e.wg.Wait()
	// Partitions left in the device queues end too: their buffers go back
	// and their callers' waits (start, finalize) end.
	for _, q := range e.deviceQueues() {
		for len(q) > 0 {
			e.finishTask(<-q, ErrClosed)
		}
	}
	e.pool.close()
	e.closeBackends() // after the pool, which unpins its buffers through a backend
}

// deviceQueues lists the shared device queue and each device's own.
func (e *Engine) deviceQueues() []chan *task {
	qs := []chan *task{e.devQ}
	for _, d := range e.devices {
		if d.q != nil {
			qs = append(qs, d.q)
		}
	}
	return qs
}

// dispatch feeds partitions to the synthesis goroutines in priority order.
func (e *Engine) dispatch() {
	defer e.wg.Done()
	for {
		t := e.nextTask()
		if t == nil {
			return
		}
		select {
		case e.synthQ <- t:
		case <-t.job.ctx.Done():
			e.finishTask(t, context.Cause(t.job.ctx))
		case <-e.closing:
			e.finishTask(t, ErrClosed)
			return
		}
	}
}

// nextTask blocks until a partition is ready to dispatch; nil when closing.
func (e *Engine) nextTask() *task {
	for {
		e.mu.Lock()
		if len(e.batch) > 0 {
			t := e.takePartition(e.batch[0])
			if e.batch[0].next == len(e.batch[0].req.Partitions) {
				e.batch = e.batch[1:]
			}
			e.mu.Unlock()
			return t
		}
		var j *job
		if e.q.Len() > 0 {
			j = e.q.items[0]
		}
		if j == nil {
			e.mu.Unlock()
			select {
			case <-e.kick:
				continue
			case <-e.closing:
				return nil
			}
		}
		if max := e.cfg.Scheduler.BatchMax; max > 1 && j.next == 0 {
			e.batch = e.q.takeSameCircuit(j.req.Circuit.ID, max)
			e.markDequeued(e.batch)
			if wait := e.cfg.Scheduler.BatchWait.D(); len(e.batch) < max && wait > 0 {
				e.mu.Unlock()
				select {
				case <-e.clock.After(wait):
				case <-e.closing:
					return nil
				}
				e.mu.Lock()
				more := e.q.takeSameCircuit(j.req.Circuit.ID, max-len(e.batch))
				e.markDequeued(more)
				e.batch = append(e.batch, more...)
			}
			e.mu.Unlock()
			continue
		}
		t := e.takePartition(j)
		if j.next == len(j.req.Partitions) {
			e.q.remove(j)
			j.queued = false
		}
		e.mu.Unlock()
		return t
	}
}

func (e *Engine) markDequeued(js []*job) {
	for _, j := range js {
		j.queued = false
	}
}

// takePartition makes the task for j's next partition (e.mu held).
func (e *Engine) takePartition(j *job) *task {
	t := &task{job: j, idx: j.next, n: len(j.req.Circuit.PK.H) + 1}
	t.tl.Queued = e.clock.Now()
	j.next++
	j.mu.Lock()
	if j.state == StateQueued {
		j.state = StateRunning
	}
	j.mu.Unlock()
	return t
}

// finishTask takes t out of the pipeline: its buffers go to the dealloc
// goroutine, its memory reservation is released, and the job learns of
// the outcome (err nil: the proof is in).
func (e *Engine) finishTask(t *task, err error) {
	if t.abcCopy != nil {
		<-t.abcCopy // nothing may write the buffers or read the host's a, b, c after this
	}
	if t.asg != nil {
		e.pool.put(t.asg.A, t.asg.B, t.asg.C)
		if t.auxPooled {
			e.pool.put(t.asg.Aux)
			t.auxPooled = false
		}
		t.asg = nil
	}
	if t.bytes > 0 {
		e.adm.release(t.bytes)
		t.bytes = 0
	}
	j := t.job
	if err != nil {
		e.dequeue(j)
		j.cancel(err) // stop the job's other partitions
	}
	j.mu.Lock()
	if err != nil && j.err == nil {
		j.err = fmt.Errorf("partition %d: %w", t.idx, err)
	}
	settleTask(j)
	e.maybeEnd(j)
	e.releaseRequest(j)
	j.mu.Unlock()
	// after the job has learnt of err, so that a waiting start sees it
	e.releaseABC(t)
}

// pause is the mat-vec's check: it yields while the throttle is raised and
// stops a cancelled job.
func pause(ctx context.Context, th *throttle.Throttle) func() error {
	return func() error {
		th.Pause()
		return context.Cause(ctx)
	}
}
