package engine

import (
	"bytes"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// metrics are the engine's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg       *prometheus.Registry
	completed *prometheus.CounterVec
	failed    *prometheus.CounterVec
	stage     *prometheus.HistogramVec
	jobTime   *prometheus.HistogramVec
	lockWait  prometheus.Histogram
}

var durationBuckets = prometheus.ExponentialBuckets(0.001, 2, 20) // 1 ms … ~9 min

func newMetrics(e *Engine) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.completed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_jobs_completed_total", Help: "Jobs whose proofs were all returned, by circuit."}, []string{"circuit"})
	m.failed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_jobs_failed_total", Help: "Jobs that ended with an error (cancellations included), by circuit and state."}, []string{"circuit", "state"})
	m.stage = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cuzk_stage_seconds", Help: "Duration of each proving stage, per partition.", Buckets: durationBuckets}, []string{"stage"})
	m.jobTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "cuzk_job_seconds", Help: "Time from submission to the end of a job, by circuit.", Buckets: durationBuckets}, []string{"circuit"})
	m.lockWait = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "cuzk_interlock_wait_seconds", Help: "Time device workers waited for a device's interlock.", Buckets: durationBuckets})
	m.reg.MustRegister(m.completed, m.failed, m.stage, m.jobTime, m.lockWait)

	for p := Low; p < numPriorities; p++ {
		p := p
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_queue_depth", Help: "Jobs waiting in the queue, by priority.", ConstLabels: prometheus.Labels{"priority": p.String()}},
			func() float64 { return float64(e.disp.depth()[p]) }))
	}
	for _, d := range e.devices {
		d := d
		l := prometheus.Labels{"device": d.name}
		m.reg.MustRegister(
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cuzk_device_busy_seconds_total", Help: "Time a device's interlock was held.", ConstLabels: l},
				func() float64 { return time.Duration(d.lock.busyNs.Load()).Seconds() }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_device_healthy", Help: "1 while a device is usable.", ConstLabels: l},
				func() float64 { return b2f(d.lock.failed() == nil) }),
		)
	}
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_memory_reserved_bytes", Help: "Working-set bytes reserved by partitions in flight."}, func() float64 { return float64(e.adm.stats().Reserved) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_memory_budget_bytes", Help: "memory.budget."}, func() float64 { return float64(e.adm.budget) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_buffers_pooled_bytes", Help: "Bytes of big buffers kept for reuse."}, func() float64 { return float64(e.pool.stats().Pooled) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cuzk_buffers_freed_bytes_total", Help: "Bytes of big buffers freed by the dealloc goroutine."}, func() float64 { return float64(e.pool.freedBytes.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cuzk_buffers_host_pressure_freed_bytes_total", Help: "Bytes of idle pooled buffers freed because the host's free memory fell below memory.safety_margin."},
			func() float64 { return float64(e.pool.relievedBytes.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "cuzk_throttle_raised", Help: "1 while the memory-bandwidth throttle is raised."}, func() float64 { return b2f(e.throttle.Raised()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cuzk_throttle_yields_total", Help: "Mat-vec sleeps while the throttle was raised."}, func() float64 { return float64(e.throttle.Stats().Yields) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "cuzk_throttle_seconds_total", Help: "Time mat-vec goroutines spent throttled."}, func() float64 { return e.throttle.Stats().Throttled.Seconds() }),
	)
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (m *metrics) ended(j *job) {
	c := j.req.Circuit.ID
	if j.state == StateDone {
		m.completed.WithLabelValues(c).Inc()
	} else {
		m.failed.WithLabelValues(c, string(j.state)).Inc()
	}
	m.jobTime.WithLabelValues(c).Observe(j.ended.Sub(j.submitted).Seconds())
}

func (m *metrics) partitionDone(_ *job, _ *device, rep *PartitionReport) {
	for _, s := range rep.Stages {
		m.stage.WithLabelValues(s.Name).Observe(s.Duration.Seconds())
	}
	tl := &rep.Timeline
	m.stage.WithLabelValues("synthesis").Observe(tl.SynthEnd.Sub(tl.SynthStart).Seconds())
}

// Registry returns the engine's Prometheus registry (to serve or gather).
func (e *Engine) Registry() *prometheus.Registry { return e.metrics.reg }

// MetricsText returns the metrics in the Prometheus text format.
func (e *Engine) MetricsText() (string, error) { return GatherText(e.metrics.reg) }

// GatherText gathers g's metrics in the Prometheus text format.
func GatherText(g prometheus.Gatherer) (string, error) {
	fams, err := g.Gather()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range fams {
		if err := enc.Encode(f); err != nil {
			return "", err
		}
	}
	return buf.String(), nil
}
