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
//	       ─► device workers: prep ─► [interlock: NTTs, H/L/A/B1 MSMs,
//	          and the G2 MSM on a GPU (gpus.g2_on_gpu)] ─► release
//	          ─► CPU G2 MSM (throttle raised) ─► assemble ─► verify
//	       ─► job (partition proofs in order)
//	       ─► dealloc goroutine (buffers recycled or freed one at a time)
//
// The pieces carry their names: queue.go (priority heap), admission.go
// (memory budget), interlock.go (the per-device lock), dealloc.go (the
// buffer pool and the dealloc goroutine), synthesis.go, worker.go,
// metrics.go and status.go; retention.go keeps ended jobs, their results
// only, until they are collected; devices.go takes a device whose backend
// fails with backend.ErrDeviceFailed out of service and closes the
// backends. The throttle is package throttle.
//
// The lessons behind the shape are the reference system's (design brief,
// section 2): keep the SRS resident, prove one partition at a time and
// pipeline, two workers per GPU around one lock held only for the kernels,
// serialize deallocation, raise a bandwidth throttle around the CPU G2 MSM,
// never return an unverified proof, never leave a lock poisoned.
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
