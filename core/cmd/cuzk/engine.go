package main

import (
	"context"
	"fmt"

	"github.com/cuzk/cuzk/core/backend"
	"github.com/cuzk/cuzk/core/backend/nvml"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/r1cs"
)

// engineDevices, when set (tests), replaces the engine's GPU discovery:
// one device per backend, as engine.Options.Devices.
var engineDevices []backend.Backend

// startEngine starts the library's engine for the command: prove, demo
// and bench prove where the library proves, reading the same
// configuration (--config) and finding libcuzk_cuda.so as the library
// does (cudaSearch): on a usable GPU, else on the CPU. prefill is how
// many partitions' buffers a loaded key's warm-up page-locks ahead
// (engine.Options.PrefillPartitions; zero: the library's ten).
func (c *invocation) startEngine(prefill int) (*engine.Engine, error) {
	cfg := c.cfg
	cudaSearch().Resolve(&cfg)
	e, err := engine.New(cfg, engine.Options{DiscoverGPUs: nvml.Discover, Logger: c.engineLogger(), Devices: engineDevices, PrefillPartitions: prefill})
	if err != nil {
		return nil, inputErr(err)
	}
	return e, nil
}

// warmKey makes pk resident on the engine's GPUs before the first proof,
// as the library's loads do; a failure only delays the upload to that
// proof.
func warmKey(m *meter, e *engine.Engine, pk *params.ProvingKey) {
	if err := e.WarmKey(pk); err != nil {
		m.warnf("cuzk: the parameters were not made resident ahead (the first proof uploads them): %v\n", err)
	}
}

// prefillOne page-locks, in the background, the buffers of one partition
// of cs, for a command that proves one: started before the parameters
// load, the locking hides behind it instead of running inside the proof.
func prefillOne(e *engine.Engine, cs *r1cs.R1CS) {
	e.Prefill(cs.DomainSize(), cs.NumInputs, cs.NumAux, 1)
}

// proveOne proves one partition of cs with w on e, its stages shown on
// the meter as they go (stage "prove").
func proveOne(m *meter, e *engine.Engine, cs *r1cs.R1CS, pk *params.ProvingKey, w *r1cs.Witness) (*params.Proof, engine.PartitionReport, error) {
	req := engine.Request{
		Circuit:       &engine.Circuit{ID: "cli", CS: cs, PK: pk},
		Partitions:    []engine.Partition{{Witness: w}},
		StageProgress: m.events(""),
	}
	proofs, reps, err := e.Prove(context.Background(), req)
	if err != nil {
		return nil, engine.PartitionReport{}, err
	}
	if len(proofs) != 1 || len(reps) != 1 {
		return nil, engine.PartitionReport{}, fmt.Errorf("the engine returned %d proofs and %d reports for one partition", len(proofs), len(reps))
	}
	return &proofs[0], reps[0], nil
}

// provedOn says where a partition was proved and why: "proved on cuda:0
// (NVIDIA H200)", or "proved on the CPU: " and the reason no GPU proved
// (the CUDA library search's, engine.DeviceStatus.Reason).
func provedOn(e *engine.Engine, rep engine.PartitionReport) string {
	for _, d := range e.Status().Devices {
		if d.Name != rep.Device || d.Index != rep.DeviceIndex {
			continue
		}
		switch {
		case d.Kind == "cpu" && d.Reason != "":
			return "proved on the CPU: " + d.Reason
		case d.Kind == "cpu":
			return "proved on the CPU"
		case d.Model != "":
			return fmt.Sprintf("proved on %s (%s)", d.Name, d.Model)
		}
		return "proved on " + d.Name
	}
	return "proved on " + rep.Device
}
