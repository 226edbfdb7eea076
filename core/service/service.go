package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/throttle"
)

// Service is the process-wide prover behind the C ABI. It is safe for
// concurrent use.
type Service struct {
	mu       sync.Mutex
	cfg      config.Config
	eng      *engine.Engine
	throttle *throttle.Throttle
	log      *slog.Logger
	circuits map[string]*circuit
	srs      map[string]*SRS // cached by path
	jobs     handles         // handles.go
	cuda     config.CUDASearch

	checker   params.SubgroupChecker    // SetSubgroupChecker
	recordDir string                    // SetDefaultRecordDir
	records   map[string]*params.Record // by directory, one per process
	srsTick   uint64                    // LRU clock of the SRS cache
	level     *slog.LevelVar            // FollowLogLevel
	format    func(config.Logging)      // FollowLogFormat
	devices   []backend.Backend         // the engine's devices; nil: discovered (tests set it)

	version string               // SetVersion
	reg     *prometheus.Registry // the service's own metrics (metrics.go)
	http    *listener            // metrics.listen's (listener.go); nil when off
}

type circuit struct {
	cs     *r1cs.R1CS
	pk     *params.ProvingKey
	pkPath string // the file pk was read from
}

// New returns a service with the default configuration; the engine starts
// on first use. cuda finds the CUDA library for every configuration that
// names none (the zero value: none).
func New(log *slog.Logger, cuda config.CUDASearch) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := config.Default()
	cuda.Resolve(&cfg)
	s := &Service{cfg: cfg, log: log, throttle: throttle.New(true, cfg.Throttle.Sleep.D(), nil),
		circuits: map[string]*circuit{}, srs: map[string]*SRS{}, jobs: newHandles(), cuda: cuda,
		records: map[string]*params.Record{}, version: "dev"}
	s.reg = s.newRegistry()
	return s
}

// SetVersion is the version that status and cuzk_build_info report.
func (s *Service) SetVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}

// Version is the version SetVersion set ("dev" until then).
func (s *Service) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// FollowLogLevel makes every configuration given to Configure set v (the
// level of the host layer's log handler) to its logging.level.
func (s *Service) FollowLogLevel(v *slog.LevelVar) {
	s.mu.Lock()
	s.level = v
	s.mu.Unlock()
}

// FollowLogFormat makes every configuration given to Configure call f
// with its logging section (the host layer's handler switches to its
// logging.format), before the text's own warnings are logged.
func (s *Service) FollowLogFormat(f func(config.Logging)) {
	s.mu.Lock()
	s.format = f
	s.mu.Unlock()
}

// Throttle is the process-wide bandwidth throttle; it survives
// reconfiguration so that a host's hook stays registered.
func (s *Service) Throttle() *throttle.Throttle { return s.throttle }

// Configure parses text (TOML or JSON; empty means the defaults) and
// (re)starts the engine with it, and the listener of metrics.listen when
// that changes. Reconfiguring is refused while jobs run; an address that
// cannot be bound is a BadConfig error that leaves everything as it was.
// A configuration the engine cannot start with (a required GPU missing) is
// a BadConfig error too, but stays in force: the listener then answers
// /status with the reason, and the next use tries the engine again.
func (s *Service) Configure(text string) error {
	cfg, warnings, err := config.ParseWarnings(text)
	if err != nil {
		return &Error{Code: BadConfig, Err: err}
	}
	s.cuda.Resolve(&cfg)
	s.mu.Lock()
	format := s.format
	s.mu.Unlock()
	if format != nil {
		format(cfg.Logging)
	}
	for _, w := range warnings {
		s.log.Warn(w)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng != nil {
		if n := s.eng.InFlight(); n > 0 {
			return errorf(Busy, "cuzk: cannot reconfigure with %d job(s) in flight", n)
		}
	}
	if err := s.relistenLocked(cfg.Metrics.Listen, cfg.Metrics.MaxConnections); err != nil {
		return err
	}
	if s.eng != nil {
		s.eng.Close()
		s.jobs.harvest(s.eng)
		s.eng = nil
	}
	s.cfg = cfg
	if s.level != nil {
		s.level.Set(cfg.Logging.SlogLevel())
	}
	return s.startLocked()
}

func (s *Service) startLocked() error {
	if s.eng != nil {
		return nil
	}
	// The throttle keeps its identity; its settings follow the config.
	th := throttle.New(s.cfg.Throttle.Enabled, s.cfg.Throttle.Sleep.D(), nil)
	if s.throttle != nil {
		th = s.throttle
		th.Configure(s.cfg.Throttle.Enabled, s.cfg.Throttle.Sleep.D())
	}
	eng, err := engine.New(s.cfg, engine.Options{Logger: s.log, Throttle: th, Devices: s.devices})
	if err != nil {
		return &Error{Code: BadConfig, Err: err}
	}
	s.eng, s.throttle = eng, th
	return nil
}

// engine returns the running engine, starting it with the current
// configuration on first use.
func (s *Service) engine() (*engine.Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.startLocked(); err != nil {
		return nil, err
	}
	return s.eng, nil
}

// Close stops the listener and the engine. The engine starts again on
// the next use; the listener on the next Configure.
func (s *Service) Close() {
	s.mu.Lock()
	h := s.http
	s.http = nil
	s.mu.Unlock()
	if h != nil {
		// Outside the lock, waiting for the requests in flight: one that
		// waits for the lock would otherwise start the engine again after
		// Close has stopped it.
		h.shutdown()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.eng != nil {
		s.eng.Close()
		s.eng = nil
	}
}

func (s *Service) entry(id string) *circuit {
	c := s.circuits[id]
	if c == nil {
		c = &circuit{}
		s.circuits[id] = c
	}
	return c
}

// RegisterCircuit reads a circuit file (circom .r1cs or cuzk's format).
func (s *Service) RegisterCircuit(id, path string) error {
	if id == "" {
		return errorf(InvalidArgument, "cuzk: empty circuit id")
	}
	cs, err := ReadCircuit(path)
	if err != nil {
		return err
	}
	return s.RegisterSystem(id, cs)
}

// RegisterSystem registers a circuit given in memory.
func (s *Service) RegisterSystem(id string, cs *r1cs.R1CS) error {
	if id == "" {
		return errorf(InvalidArgument, "cuzk: empty circuit id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.entry(id)
	if c.pk != nil {
		if err := groth16.CheckKey(c.pk, cs); err != nil {
			return &Error{Code: InvalidArgument, Err: fmt.Errorf("cuzk: circuit %q: %w", id, err)}
		}
	}
	c.cs = cs
	return nil
}

// LoadParams loads (and keeps resident) the parameters of circuit id.
func (s *Service) LoadParams(id, path string, trusted bool) error {
	if id == "" {
		return errorf(InvalidArgument, "cuzk: empty circuit id")
	}
	pk, _, err := s.readKey(loadParamsIn, path, s.loadOptions(path, trusted))
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.entry(id)
	// The key was made resident as it loaded (readKey): one that is
	// refused, or replaced, gives its device memory and budget back too,
	// once no job uses it (engine.ReleaseKey).
	if c.cs != nil {
		if err := groth16.CheckKey(pk, c.cs); err != nil {
			s.releaseKeyLocked(pk)
			return &Error{Code: InvalidArgument, Err: fmt.Errorf("cuzk: circuit %q: %w", id, err)}
		}
	}
	if c.pk != nil {
		s.releaseKeyLocked(c.pk)
	}
	c.pk, c.pkPath = pk, path
	return nil
}

// releaseKeyLocked releases pk's device memory (s.mu held).
func (s *Service) releaseKeyLocked(pk *params.ProvingKey) {
	if s.eng != nil {
		s.eng.ReleaseKey(pk)
	}
}

// EvictParams drops circuit id's parameters (jobs already running keep
// theirs until they end).
func (s *Service) EvictParams(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.circuits[id]
	if c == nil || c.pk == nil {
		return errorf(NotFound, "cuzk: no parameters loaded for circuit %q", id)
	}
	// Its device memory goes too, once no job uses it (engine.ReleaseKey).
	s.releaseKeyLocked(c.pk)
	c.pk, c.pkPath = nil, ""
	return nil
}

func (s *Service) config() config.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// Request is a proof request by circuit id.
type Request struct {
	CircuitID string
	// Witnesses, one per partition; or WitnessFunc with Partitions set.
	Witnesses   []*r1cs.Witness
	WitnessFunc func(partition int) (*r1cs.Witness, error)
	Partitions  int
	Priority    engine.Priority
	RequestID   string
	Timeout     time.Duration
	R, S        []fr.Element // optional, one per partition
}

func (s *Service) circuitFor(id string) (*engine.Circuit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.circuits[id]
	switch {
	case c == nil:
		return nil, errorf(NotFound, "cuzk: unknown circuit %q", id)
	case c.cs == nil:
		return nil, errorf(NotFound, "cuzk: circuit %q has parameters but no constraint system registered", id)
	case c.pk == nil:
		return nil, errorf(NotFound, "cuzk: no parameters loaded for circuit %q", id)
	}
	return &engine.Circuit{ID: id, CS: c.cs, PK: c.pk}, nil
}

// Submit queues a request and returns its job handle.
func (s *Service) Submit(req Request) (uint64, error) {
	circ, err := s.circuitFor(req.CircuitID)
	if err != nil {
		return 0, err
	}
	n := req.Partitions
	if req.WitnessFunc == nil {
		n = len(req.Witnesses)
	}
	if n <= 0 {
		return 0, errorf(InvalidArgument, "cuzk: a request needs at least one partition")
	}
	if (req.R != nil && len(req.R) != n) || (req.S != nil && len(req.S) != n) || (req.R == nil) != (req.S == nil) {
		return 0, errorf(InvalidArgument, "cuzk: r and s must both be given, one per partition (%d)", n)
	}
	ereq := engine.Request{ID: req.RequestID, Circuit: circ, Priority: req.Priority,
		Progress: progress.RateLimited(progressEvery, progress.Log(s.log, "cuzk: proving", "circuit", circ.ID))}
	if req.Timeout > 0 {
		ereq.Deadline = time.Now().Add(req.Timeout)
	}
	for i := 0; i < n; i++ {
		var p engine.Partition
		if req.WitnessFunc != nil {
			i := i
			p.WitnessFunc = func() (*r1cs.Witness, error) { return req.WitnessFunc(i) }
		} else {
			if req.Witnesses[i] == nil {
				return 0, errorf(InvalidArgument, "cuzk: partition %d has no witness", i)
			}
			p.Witness = req.Witnesses[i]
		}
		if req.R != nil {
			p.R, p.S = &req.R[i], &req.S[i]
		}
		ereq.Partitions = append(ereq.Partitions, p)
	}
	return s.submit(ereq)
}

func (s *Service) submit(req engine.Request) (uint64, error) {
	job, _, _, err := s.submitJob(req)
	return job, err
}

// submitJob submits req and returns its handle, with the engine and the
// engine's id for it.
func (s *Service) submitJob(req engine.Request) (uint64, *engine.Engine, string, error) {
	eng, err := s.engine()
	if err != nil {
		return 0, nil, "", err
	}
	s.mu.Lock()
	job, ref, err := s.jobs.reserve(req.ID)
	s.mu.Unlock()
	if err != nil {
		return 0, nil, "", err
	}
	req.ID = ref.id
	_, err = eng.Submit(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.jobs.forget(job)
		return 0, nil, "", err
	}
	ref.eng = eng
	s.jobs.prune()
	return job, eng, ref.id, nil
}

// Result is a finished job: proofs (192 bytes each, in partition order)
// and a JSON report of each partition's stages.
type Result struct {
	Proofs []byte
	Report []byte
}

// Await waits for job (timeout 0: no limit). A timeout leaves the job
// running; any other return forgets the handle.
func (s *Service) Await(job uint64, timeout time.Duration) (*Result, error) {
	proofs, reports, err := s.await(job, timeout)
	if err != nil {
		return nil, err
	}
	rep, err := json.Marshal(reports)
	if err != nil {
		return nil, err
	}
	return &Result{Proofs: params.EncodeProofs(proofs), Report: rep}, nil
}

func (s *Service) await(job uint64, timeout time.Duration) ([]params.Proof, []engine.PartitionReport, error) {
	s.mu.Lock()
	ref, ok := s.jobs.refs[job]
	var eng *engine.Engine
	var kept *engine.Result
	if ok {
		eng, kept = ref.eng, ref.res
	}
	s.mu.Unlock()
	if !ok || (eng == nil && kept == nil) {
		return nil, nil, errorf(NotFound, "cuzk: unknown job %d", job)
	}
	var res engine.Result
	if kept != nil {
		res = *kept
	} else {
		var err error
		res, err = eng.Await(ref.id, timeout)
		if err == context.DeadlineExceeded {
			return nil, nil, errorf(Timeout, "cuzk: job %d still running after %v", job, timeout)
		}
		if err != nil {
			s.mu.Lock()
			s.jobs.forget(job)
			s.mu.Unlock()
			return nil, nil, &Error{Code: NotFound, Err: fmt.Errorf("cuzk: job %d: its result was dropped unawaited (%w)", job, err)}
		}
		eng.Forget(ref.id)
	}
	s.mu.Lock()
	s.jobs.forget(job)
	s.mu.Unlock()
	if res.Err != nil {
		return nil, res.Partitions, res.Err
	}
	return res.Proofs, res.Partitions, nil
}

// Prove submits and waits.
func (s *Service) Prove(req Request) (*Result, error) {
	job, err := s.Submit(req)
	if err != nil {
		return nil, err
	}
	return s.Await(job, 0)
}

// Cancel stops a job.
func (s *Service) Cancel(job uint64) error {
	s.mu.Lock()
	ref, ok := s.jobs.refs[job]
	var eng *engine.Engine
	var id string
	if ok {
		eng, id = ref.eng, ref.id
	}
	s.mu.Unlock()
	switch {
	case !ok:
		return errorf(NotFound, "cuzk: unknown job %d", job)
	case eng == nil:
		return nil // ended on a replaced engine
	}
	return eng.Cancel(id)
}

// Verify checks proofs (192 bytes each) of circuit id against the public
// inputs of each partition (without the constant ONE).
func (s *Service) Verify(id string, proofBytes []byte, public [][]fr.Element) error {
	s.mu.Lock()
	c := s.circuits[id]
	s.mu.Unlock()
	if c == nil || c.pk == nil {
		return errorf(NotFound, "cuzk: no parameters loaded for circuit %q", id)
	}
	proofs, err := params.DecodeProofs(proofBytes)
	if err != nil {
		return &Error{Code: InvalidArgument, Err: err}
	}
	if len(public) != len(proofs) {
		return errorf(InvalidArgument, "cuzk: %d proofs but public inputs for %d", len(proofs), len(public))
	}
	for i := range proofs {
		if err := groth16.Verify(&c.pk.VerifyingKey, &proofs[i], public[i]); err != nil {
			return fmt.Errorf("partition %d: %w", i, err)
		}
	}
	return nil
}

// ReadCircuit reads a circuit file (circom or cuzk format), classifying
// errors for the ABI.
func ReadCircuit(path string) (*r1cs.R1CS, error) {
	cs, err := r1cs.Open(path)
	if err != nil {
		return nil, badFile(circuitIn, path, err)
	}
	return cs, nil
}

// CSR is one matrix from the C ABI: coefficients as 32-byte elements.
type CSR struct {
	RowPtr []uint64
	Col    []uint32
	Coeff  []byte
}

// BuildSystem builds a constraint system from matrices given in memory.
func BuildSystem(numInputs, numAux, numConstraints int, m [3]CSR, canonical bool) (*r1cs.R1CS, error) {
	var in [3]r1cs.CSR
	for i, x := range m {
		coeff, err := DecodeElements(fmt.Sprintf("matrix %c coefficients", "abc"[i]), x.Coeff, canonical)
		if err != nil {
			return nil, err
		}
		in[i] = r1cs.CSR{RowPtr: x.RowPtr, Col: x.Col, Coeff: coeff}
	}
	cs, err := r1cs.FromCSR(numInputs, numAux, numConstraints, in)
	if err != nil {
		return nil, &Error{Code: InvalidArgument, Err: err}
	}
	return cs, nil
}

// CircuitSize returns a registered circuit's input and aux counts.
func (s *Service) CircuitSize(id string) (inputs, aux int, err error) {
	c, err := s.circuitFor(id)
	if err != nil {
		return 0, 0, err
	}
	return c.CS.NumInputs, c.CS.NumAux, nil
}
