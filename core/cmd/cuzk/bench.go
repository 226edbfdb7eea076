package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/cuzk/cuzk/core/backend/nvml"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/groth16"
	"github.com/cuzk/cuzk/core/params"
	"github.com/cuzk/cuzk/core/progress"
	"github.com/cuzk/cuzk/core/r1cs"
	"github.com/cuzk/cuzk/core/service"
	"github.com/cuzk/cuzk/core/synthetic"
	"github.com/cuzk/cuzk/core/units"
)

func runBench(args []string, stdout io.Writer) error {
	runStart := time.Now()
	c := command("bench")
	fs := c.fs
	spec := synthetic.Spec{Constraints: 1 << 14, DenseFraction: 0.1}
	fs.IntVar(&spec.Constraints, "constraints", spec.Constraints, "rows per partition of the synthetic PoRep-shaped circuit")
	fs.Float64Var(&spec.DenseFraction, "dense", spec.DenseFraction, "share of hash-chain (dense) constraints; the rest are bit decompositions")
	parts := fs.Int("partitions", 4, "partitions per proof")
	proofs := fs.Int("proofs", 8, "proofs to run")
	conc := fs.Int("concurrency", 1, "proofs in flight at once")
	c.withConfig("engine configuration (TOML or JSON); defaults otherwise")
	circuit := c.input("r1cs", "prove this circuit instead of the synthetic one (with --wtns and --params)")
	wtns := c.inputList("wtns", "witness(es) for --r1cs, comma-separated, used round-robin over partitions")
	pkPath := c.input("params", "parameters for --r1cs")
	trusted := fs.Bool("trusted-params", false, trustedHelp)
	baseline := fs.Bool("baseline", false, "also prove the same partitions one by one with the prover core alone, and print the ratio")
	waterfall := fs.Bool("waterfall", false, "print each partition's timeline")
	c.withCache("directory of the parameter cache (the synthetic circuit's setup, reused)")
	c.withQuiet()
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	if *parts < 1 || *proofs < 1 || *conc < 1 {
		return inputErr(fmt.Errorf("--partitions, --proofs and --concurrency must be at least 1"))
	}
	cfg, pc, m, stdout := c.cfg, c.pc, c.m, c.stdout

	// The engine first: its GPU checks a given key's subgroup as it loads.
	e, err := c.startEngine(0)
	if err != nil {
		return err
	}
	defer e.Close()
	cs, pk, witnesses, err := benchInputs(m, spec, *parts, *circuit, *wtns, *pkPath, pc, cfg, *trusted, e.SubgroupChecker(), stdout)
	if err != nil {
		return err
	}
	// The partitions proved, over all proofs: each request reports its
	// own count (rising, one call at a time); their sum is the stage's.
	var proved atomic.Int64
	show := m.events("")
	totalParts := int64(*proofs) * int64(*parts)
	circ := &engine.Circuit{ID: "bench", CS: cs, PK: pk}
	request := func() engine.Request {
		var last int64
		req := engine.Request{Circuit: circ, Progress: func(e progress.Event) {
			show(progress.Event{Stage: "prove", Done: proved.Add(e.Done - last), Total: totalParts, Unit: progress.Partitions})
			last = e.Done
		}}
		for i := 0; i < *parts; i++ {
			req.Partitions = append(req.Partitions, engine.Partition{Witness: witnesses[i%len(witnesses)]})
		}
		return req
	}

	warmKey(m, e, pk)
	if cfg.Metrics.Listen != "" {
		addr, stop, err := service.ServeEngine(cfg.Metrics, e, version, nil)
		if err != nil {
			return inputErr(err)
		}
		defer stop()
		m.warnf("cuzk bench: serving /metrics and /status on http://%s\n", addr)
	}

	fmt.Fprintf(stdout, "bench: %d proofs × %d partitions of %d constraints (domain 2^%d, %d aux), concurrency %d, %d core(s)\n",
		*proofs, *parts, cs.NumConstraints, log2(cs.DomainSize()), cs.NumAux, *conc, config.Threads(0))
	var (
		mu       sync.Mutex
		reports  []engine.PartitionReport
		results  [][]params.Proof
		firstErr error
	)
	next := make(chan int, *proofs)
	for i := 0; i < *proofs; i++ {
		next <- i
	}
	close(next)
	m.begin("prove")
	before := e.Status()
	gpuBusy := sampleGPUs(before)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < *conc; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				ps, reps, err := e.Prove(context.Background(), request())
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				reports = append(reports, reps...)
				if err == nil {
					results = append(results, ps)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	busyLine := gpuBusy()
	m.end("prove")
	m.record("prove", wall, fmt.Sprintf("%d proofs × %d partitions through the engine", *proofs, *parts))
	if firstErr != nil {
		return firstErr
	}

	// Every proof is verified here, independently of the engine's own check.
	verified := 0
	m.stage("verify", func() error {
		for _, ps := range results {
			ok := len(ps) == *parts
			for i := range ps {
				ok = ok && groth16.Verify(&pk.VerifyingKey, &ps[i], witnesses[i%len(witnesses)].Inputs[1:]) == nil
			}
			if ok {
				verified++
			}
		}
		return nil
	})
	st := e.Status()
	printBench(stdout, wall, *proofs, reports, st)
	printBusy(stdout, wall, before, st)
	fmt.Fprint(stdout, busyLine)
	if *waterfall {
		printWaterfall(stdout, reports, start)
	}
	if *baseline {
		base := time.Now()
		show := m.events("baseline")
		for p := 0; p < *proofs; p++ {
			for i := 0; i < *parts; i++ {
				if _, _, err := groth16.Prove(pk, cs, witnesses[i%len(witnesses)], groth16.Options{}); err != nil {
					return err
				}
				show(progress.Event{Stage: "prove", Done: int64(p**parts + i + 1), Total: totalParts, Unit: progress.Partitions})
			}
		}
		bw := time.Since(base)
		m.record("baseline", bw, "the same partitions one by one, prover core alone")
		// The engine verifies every partition; the baseline does not. With
		// every core busy, verification costs about its CPU time over the
		// core count of wall time.
		verify := stageTotal(reports, engine.StageVerify) / time.Duration(config.Threads(0))
		fmt.Fprintf(stdout, "\nbaseline (prover core, one partition at a time, no verification): %.3f s/proof\n", bw.Seconds()/float64(*proofs))
		fmt.Fprintf(stdout, "ratio pipeline/baseline: %.3f; without the engine's verification (~%.3f s/proof): %.3f\n",
			wall.Seconds()/bw.Seconds(), verify.Seconds()/float64(*proofs), (wall-verify).Seconds()/bw.Seconds())
	}
	c.close()
	fmt.Fprintf(stdout, "\nthe run, by stage (%v):\n", units.Duration(time.Since(runStart)))
	printTimes(stdout, m.times, time.Since(runStart))
	fmt.Fprintf(stdout, "verified %d/%d proofs\n", verified, *proofs)
	if verified != *proofs {
		return fmt.Errorf("%d of %d proofs failed verification", *proofs-verified, *proofs)
	}
	return nil
}

// benchInputs loads a given circuit or generates the synthetic one with one
// witness per partition.
func benchInputs(m *meter, spec synthetic.Spec, parts int, circuit, wtns, pkPath string, pc *paramCache, cfg config.Config, trusted bool, checker params.SubgroupChecker, out io.Writer) (*r1cs.R1CS, *params.ProvingKey, []*r1cs.Witness, error) {
	if circuit != "" {
		if wtns == "" || pkPath == "" {
			return nil, nil, nil, inputErr(fmt.Errorf("--r1cs needs --wtns and --params"))
		}
		var cs *r1cs.R1CS
		if err := m.stage("load circuit", func() (err error) { cs, err = loadCircuit(circuit); return }); err != nil {
			return nil, nil, nil, err
		}
		var ws []*r1cs.Witness
		err := m.stage("load witnesses", func() error {
			for _, p := range strings.Split(wtns, ",") {
				w, err := loadWitness(cs, p)
				if err != nil {
					return err
				}
				ws = append(ws, w)
			}
			return nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
		pk, err := readParams(m, pkPath, cfg, trusted, checker)
		if err != nil {
			return nil, nil, nil, err
		}
		return cs, pk, ws, groth16.CheckKey(pk, cs)
	}
	var cs *r1cs.R1CS
	var ws []*r1cs.Witness
	err := m.stage("generate circuits", func() error {
		for i := 0; i < parts; i++ {
			spec.Seed = uint64(i + 1)
			c, w, err := synthetic.Generate(spec)
			if err != nil {
				return inputErr(err)
			}
			cs = c
			ws = append(ws, w)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	t0 := time.Now()
	pk, got, err := pc.params(m, cs)
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(out, "%s, in %s\n", got.describe(), units.Duration(time.Since(t0)))
	return cs, pk, ws, nil
}

// printBusy prints each device's share of the proofs' wall time spent
// under its interlock: the busy time the engine counted between the two
// status reads (taken just before the first proof and after the last),
// so key loading and warm-up are left out.
func printBusy(w io.Writer, wall time.Duration, before, after engine.Status) {
	if wall <= 0 {
		return
	}
	for i, d := range after.Devices {
		if i >= len(before.Devices) || before.Devices[i].Name != d.Name {
			continue
		}
		busy := d.Busy - before.Devices[i].Busy
		fmt.Fprintf(w, "device %s busy during the proofs: %.1f%% (%v of %v)\n",
			d.Name, 100*busy.Seconds()/wall.Seconds(), units.Duration(busy), units.Duration(wall))
	}
}

// sampleGPUs samples the GPUs' utilisation through NVML while the proofs
// run, when the engine proves on one; the function it returns stops the
// sampling and gives the lines to print (none without a GPU or NVML).
func sampleGPUs(st engine.Status) func() string {
	gpu := false
	for _, d := range st.Devices {
		gpu = gpu || d.Kind == "gpu"
	}
	if !gpu {
		return func() string { return "" }
	}
	s, err := nvml.Utilisation(100 * time.Millisecond) // as dropin_bench samples
	if err != nil {
		return func() string { return "" }
	}
	return func() string {
		mean, n, err := s.Stop()
		var b strings.Builder
		for i, u := range mean {
			fmt.Fprintf(&b, "GPU %d busy during the proofs (NVML, %d samples): %.1f%%\n", i, n, u)
		}
		if err != nil {
			fmt.Fprintf(&b, "GPU utilisation sampling stopped: %v\n", err)
		}
		return b.String()
	}
}

func stageTotal(reports []engine.PartitionReport, name string) time.Duration {
	var t time.Duration
	for _, r := range reports {
		for _, s := range r.Stages {
			if s.Name == name {
				t += s.Duration
			}
		}
	}
	return t
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func printBench(w io.Writer, wall time.Duration, proofs int, reports []engine.PartitionReport, st engine.Status) {
	fmt.Fprintf(w, "\nthroughput: %.3f s/proof (%s for %d proofs)\n\n", wall.Seconds()/float64(proofs), units.Duration(wall), proofs)
	by := map[string][]time.Duration{}
	var order []string
	add := func(name string, d time.Duration) {
		if _, ok := by[name]; !ok {
			order = append(order, name)
		}
		by[name] = append(by[name], d)
	}
	for _, r := range reports {
		tl := r.Timeline
		add("queue → synthesis", tl.SynthStart.Sub(tl.Queued))
		add("synthesis (mat-vec)", tl.SynthEnd.Sub(tl.SynthStart))
		add("wait for device", tl.LockWait.Sub(tl.SynthEnd))
		add("interlock wait", tl.LockAcquired.Sub(tl.LockWait))
		for _, s := range r.Stages {
			add(s.Name, s.Duration)
		}
		add("partition total", tl.Assembled.Sub(tl.Queued))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage (per partition)\tmedian\t")
	for _, name := range order {
		fmt.Fprintf(tw, "%s\t%s\t\n", name, units.Duration(median(by[name])))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, d := range st.Devices {
		fmt.Fprintf(w, "device %s (%s, %d workers): utilisation %.1f%%, %d lock acquisitions, lock wait %v total\n",
			d.Name, d.Kind, d.Workers, 100*d.Utilisation, d.Acquisitions, units.Duration(d.LockWait))
	}
	m := st.Memory
	fmt.Fprintf(w, "memory: peak reserved %s of budget %s; pool %s pooled, %d allocs, %d reuses, %d frees (max %d at once)\n",
		units.Bytes(m.Peak), units.Bytes(m.Budget), units.Bytes(m.Pool.Pooled), m.Pool.Allocs, m.Pool.Reuses, m.Pool.Frees, m.Pool.MaxConcurrent)
	fmt.Fprintf(w, "throttle: %d yields, %v throttled\n", st.Throttle.Yields, units.Duration(st.Throttle.Throttled))
	if rss, err := peakRSS(); err == nil {
		fmt.Fprintf(w, "peak RSS: %s\n", units.Bytes(rss))
	}
}

// peakRSS reads VmHWM from /proc/self/status.
func peakRSS() (uint64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM")
}

// printWaterfall draws each partition's timeline on a shared time axis:
// s synthesis, . waiting, L interlock held, g G2 MSM and epilogue.
func printWaterfall(w io.Writer, reports []engine.PartitionReport, start time.Time) {
	var end time.Time
	for _, r := range reports {
		if r.Timeline.Assembled.After(end) {
			end = r.Timeline.Assembled
		}
	}
	span := end.Sub(start)
	if span <= 0 {
		return
	}
	const width = 80
	col := func(t time.Time) int { return min(width-1, max(0, int(float64(t.Sub(start))/float64(span)*width))) }
	sort.Slice(reports, func(i, j int) bool { return reports[i].Timeline.Queued.Before(reports[j].Timeline.Queued) })
	fmt.Fprintf(w, "\nwaterfall (%s across; s synthesis, . wait, L device region under the interlock, g G2 + epilogue)\n", units.Duration(span))
	for i, r := range reports {
		tl := r.Timeline
		line := []byte(strings.Repeat(" ", width))
		fill := func(a, b time.Time, c byte) {
			for k := col(a); k <= col(b); k++ {
				line[k] = c
			}
		}
		fill(tl.Queued, tl.SynthStart, '.')
		fill(tl.SynthStart, tl.SynthEnd, 's')
		fill(tl.SynthEnd, tl.LockAcquired, '.')
		fill(tl.LockAcquired, tl.LockReleased, 'L')
		fill(tl.LockReleased, tl.Assembled, 'g')
		fmt.Fprintf(w, "%3d %-8s|%s|\n", i, fmt.Sprintf("%s/%d", r.Device, r.Worker), line)
	}
}
