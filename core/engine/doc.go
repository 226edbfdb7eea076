// Package engine is cuzk's proving pipeline. A request is N partition
// circuits of one circuit and one parameter set; each partition flows
//
//	Submit ─► queue (priority CRITICAL > HIGH > NORMAL > LOW, FIFO within;
//	          optional same-circuit batching)
//	       ─► admission (reserve the partition's working set against
//	          memory.budget before it starts)
//	       ─► synthesis goroutines (witness → a, b, c by the sparse mat-vec,
//	          which yields while the throttle is raised)
//	       ─► bounded queue (backpressure)
//	       ─► device workers: the device's plan (below) ─► assemble ─► verify
//	       ─► job (partition proofs in order)
//	       ─► dealloc goroutine (buffers recycled or freed one at a time)
//
// Each device has a plan, chosen at set-up from gpus.device_prep,
// gpus.g2_on_gpu and what its backend can do (groth16.Plan, logged at
// start); one function runs a partition from it (groth16.Plan.Run, which
// groth16.ProveAssignment runs without a lock). The variants:
//
//	GPU, the defaults (device_prep, g2_on_gpu):
//	  upload aux ─► [interlock: L, A, B_G1, B_G2 (scalars selected on the
//	  GPU; a, b, c upload beside them) ─► h + H MSM] ─► release
//	GPU, g2_on_gpu = false:
//	  prep B (host) ─► upload aux ─► [interlock: L, A, B_G1 ─► h + H MSM]
//	  ─► release ─► G2 MSM on the CPU (throttle raised)
//	GPU, device_prep = false:
//	  prep A, B (host) ─► [interlock: h + H MSM ─► L, A, B_G1 ─► B_G2]
//	  ─► release
//	CPU (no GPU):
//	  prep A, B ─► [interlock: h ─► H, L, A, B_G1 MSMs] ─► release
//	  ─► G2 MSM (throttle raised)
//
// After the region, a, b, c go to the dealloc goroutine before any CPU G2
// MSM.
//
// # Structure
//
// *Engine (engine.go) holds the jobs in flight by id and composes the
// parts, each a type with its own state, lock and tests:
//
//	dispatcher (dispatch.go)   the priority queue (queue.go) and same-circuit
//	                           batches; makes partitions into tasks
//	admission (admission.go)   memory.budget, the host's free memory, the
//	                           loaded keys' bytes; reserves a working set
//	placer (placement.go)      the device queues (pinned, shared); which
//	                           device takes what, the devices in service
//	retention (retention.go)   ended jobs kept for Await, by count, bytes
//	                           and state
//	keyUses (release.go)       a key's release waits for its last job
//	pool (dealloc.go)          the buffer pool and the dealloc goroutines
//	interlock (interlock.go)   the per-device lock, a failed device's state
//	deviceSetup (devices.go)   the devices and their plans, made once
//
// The engine's own methods are its API (requests.go: Submit, Cancel,
// deadlines, Await; inputs.go: when the caller's memory is free again;
// release.go: WarmKey, ReleaseKey; status.go, metrics.go) and the
// goroutines that move a task along: synthesis.go, worker.go (a partition
// through its plan), finishTask (dispatch.go). Locks are taken in the
// order a job's, Engine.mu, the dispatcher's, the retention's; the
// dispatcher also takes a job's lock (to hand out its next partition),
// never that of a job that has left its queue, which is the only kind
// that takes Engine.mu while holding its own. clock.go is the time source;
// the throttle is package throttle.
//
// The lessons behind the shape are the reference cuzk daemon's: keep the
// SRS resident, prove one partition at a time and pipeline, two workers per
// GPU around one lock held only for the kernels, serialize deallocation,
// raise a bandwidth throttle around a CPU G2 MSM, never return an unverified
// proof, never leave a lock poisoned.
//
// # Using the engine from Go
//
// A Go host (Curio is written in Go) uses this package directly rather
// than loading libcuzk.so, which would put a second Go runtime in its
// process. Parse a configuration (config.Default, or config.Parse of the
// same TOML the C API takes), start an engine with New (the zero Options
// are production: GPUs from gpus.cuda_lib, the memory budget from the
// machine), and prove with Prove, or Submit and Wait/Await; Request names
// the circuit (constraint system and parameters, read with r1cs.Open and
// params.ReadProvingKey) and its partitions (witnesses, witness callbacks
// or host-synthesized assignments). Every proof is verified before it is
// returned (verify_proofs); groth16.Verify checks one against its public
// inputs. Status, StatusJSON and MetricsText report on the engine; Close
// stops it. The example shows the whole round trip.
package engine
