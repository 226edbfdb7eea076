package engine

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/cpu"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/internal/clock"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/sysmem"
	"github.com/cuzk/cuzk/core/throttle"
)

// Options are the engine's collaborators; the zero value is production.
type Options struct {
	Logger *slog.Logger
	// Clock is the time source (clock.go); nil is the real clock.
	Clock Clock
	// Throttle is the process-wide bandwidth throttle; nil creates one from
	// the configuration.
	Throttle *throttle.Throttle
	// Devices replaces device discovery (tests, benchmarks): one device
	// per backend, each standing for a GPU (gpus.workers_per_device
	// workers, gpus.g2_on_gpu and gpus.device_prep apply). Close calls the
	// Close of those that have one (devices.go).
	Devices []backend.Backend
	// CPU is the backend of the host's cores: the device when no GPU
	// serves, and the G2 MSM of a GPU partition when gpus.g2_on_gpu is
	// false. Nil means the CPU backend with synthesis.threads goroutines.
	CPU backend.Backend
	// DiscoverGPUs lists the machine's GPUs (package nvml provides one);
	// nil means none are looked for. It informs the logs; the devices the
	// engine proves on come from the CUDA library.
	DiscoverGPUs backend.Discover
	// MemoryTotal reports the bytes this process may use, for an "auto"
	// memory.budget; nil reads the machine (sysmem.Total).
	MemoryTotal func() (uint64, error)
	// MemoryAvailable reports the bytes the host could map now, which
	// admission consults beside the budget (admission.go); nil reads the
	// machine (sysmem.Available).
	MemoryAvailable func() (uint64, error)
	// RetainJobs and RetainBytes bound the finished jobs kept for Await
	// (retention.go); zero means FinishedKept and FinishedKeptBytes.
	RetainJobs  int
	RetainBytes uint64
	// PrefillPartitions is how many partitions' buffers WarmKey maps and
	// page-locks ahead (prefill); zero means prefillPartitions (a 32 GiB
	// PoRep call's ten), below zero none. A command that proves one
	// partition asks for one: locking ten in the background would contend
	// with its proof.
	PrefillPartitions int
}

// Engine proves requests. It is safe for concurrent use.
type Engine struct {
	cfg      config.Config
	log      *slog.Logger
	clock    Clock
	throttle *throttle.Throttle
	cpu      backend.Backend // Options.CPU
	adm      *admission
	pool     *pool
	devices  []*device
	// workingSet is the host bytes admission reserves for a partition of
	// a domain of n with these inputs and aux (workingSetOf the plans)
	workingSet func(n, nInputs, nAux int) uint64
	// early: every device runs a partition's query MSMs before it reads
	// a, b, c, so a witness's partition may be queued before they are
	// computed (sendEarly)
	early    bool
	place    *placer // which device queue a partition waits in (placement.go)
	metrics  *metrics
	started  time.Time
	finished *retention  // ended jobs not yet collected (retention.go)
	disp     *dispatcher // the queue and its batches (dispatch.go)
	keys     *keyUses    // the keys of unsettled jobs (release.go)
	// prefillK is Options.PrefillPartitions resolved
	prefillK int

	mu     sync.Mutex
	jobs   map[string]*job
	closed bool
	nextID atomic.Int64
	// prefilled is closed when the last prefill started has ended: the
	// next waits for it, so that each counts what the last pooled
	prefilled chan struct{}

	synthQ  chan *task
	closing chan struct{}
	wg      sync.WaitGroup
}

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
		synthQ:   make(chan *task),
		closing:  make(chan struct{}),
		prefillK: opt.PrefillPartitions,
	}
	if e.prefillK == 0 {
		e.prefillK = prefillPartitions
	}
	// a key's release waits for the jobs that use it
	e.keys = newKeyUses(func(pk *params.ProvingKey) { releaseKey(e.adm, e.devices, pk) })
	e.pool.room, e.pool.hostFree = e.adm.room, e.adm.hostFree
	e.pool.log = e.log
	e.adm.avail, e.adm.margin = opt.MemoryAvailable, uint64(cfg.Memory.SafetyMargin)
	if e.adm.avail == nil {
		e.adm.avail = sysmem.Available
	}
	e.adm.idle = func() uint64 { return e.pool.stats().Pooled }
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.clock = clock.Or(e.clock)
	e.started = e.clock.Now()
	e.disp = newDispatcher(cfg.Scheduler, e.clock)
	if e.throttle == nil {
		e.throttle = throttle.New(cfg.Throttle.Enabled, cfg.Throttle.Sleep.D(), e.clock)
	}
	e.cpu = opt.CPU
	if e.cpu == nil {
		e.cpu = &cpu.Backend{NbTasks: cfg.Synthesis.Threads}
	}
	setup := &deviceSetup{gpus: cfg.GPUs, cpu: e.cpu, clock: e.clock, log: e.log}
	if e.devices, err = setup.devices(opt); err != nil {
		e.pool.close()
		return nil, err
	}
	plans := make([]*groth16.Plan, len(e.devices))
	for i, d := range e.devices {
		e.log.Info("device plan", "device", d.name, "plan", d.plan)
		plans[i] = d.plan
	}
	e.workingSet = workingSetOf(plans)
	e.early = runsQueriesFirst(plans)
	e.place = newPlacer(e.devices, cfg.Synthesis.QueueDepth, e.closing, e.finishTask)
	for _, d := range e.devices {
		// page-locked memory serves every GPU: one pinner is enough
		if p := d.caps.Pin; p != nil {
			e.pool.pinner = p
			break
		}
	}
	e.metrics = newMetrics(e)

	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.disp.run(e.synthQ, e.closing, e.finishTask)
	}()
	for i := 0; i < cfg.Synthesis.MaxParallel; i++ {
		e.wg.Add(1)
		go e.synthesize()
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.watchHost()
	}()
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

// Throttle returns the engine's bandwidth throttle (the host may raise it).
func (e *Engine) Throttle() *throttle.Throttle { return e.throttle }

// Config returns the configuration the engine runs with.
func (e *Engine) Config() config.Config { return e.cfg }

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
	for _, q := range e.place.queues() {
		for len(q) > 0 {
			e.finishTask(<-q, ErrClosed)
		}
	}
	e.pool.close()
	closeBackends(e.devices, e.log) // after the pool, which unpins its buffers through a backend
}
