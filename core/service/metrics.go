package service

import (
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"

	"github.com/cuzk/cuzk/core/engine"
)

// newRegistry holds the service's own metrics: the process's (the standard
// Go runtime and process collectors, which a library's host may not
// export), the build, and what the service holds. The engine's registry
// joins them when gathered (gatherer), so the engine can be replaced on
// reconfiguration without the process metrics restarting.
func (s *Service) newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo{s.Version},
		gauge("cuzk_circuits_registered", "Constraint systems registered (cuzk_register_circuit).",
			func() float64 { return s.held().circuits }),
		gauge("cuzk_parameter_sets_loaded", "Parameter sets loaded for circuits (cuzk_load_params).",
			func() float64 { return s.held().params }),
		gauge("cuzk_parameter_sets_bytes", "Host memory of the loaded parameter sets' points.",
			func() float64 { return s.held().paramsBytes }),
		gauge("cuzk_srs_cache_entries", "Parameter files in the SRS cache (create_SRS).",
			func() float64 { return s.held().srs }),
		gauge("cuzk_srs_cache_bytes", "Host memory of the SRS cache's points.",
			func() float64 { return s.held().srsBytes }),
	)
	return reg
}

// heldCounts is what the service holds, for the gauges.
type heldCounts struct {
	circuits, params, paramsBytes, srs, srsBytes float64
}

func (s *Service) held() heldCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h heldCounts
	for _, c := range s.circuits {
		if c.cs != nil {
			h.circuits++
		}
		if c.pk != nil {
			h.params++
			h.paramsBytes += float64(keyBytes(c.pk))
		}
	}
	for _, e := range s.srs {
		h.srs++
		h.srsBytes += float64(keyBytes(e.pk))
	}
	return h
}

// buildInfo is cuzk_build_info: 1, labelled with the version (SetVersion)
// and the Go version.
type buildInfo struct{ version func() string }

var buildInfoDesc = prometheus.NewDesc("cuzk_build_info",
	"The library's build: its version and the Go version; always 1.", []string{"version", "goversion"}, nil)

func (b buildInfo) Describe(ch chan<- *prometheus.Desc) { ch <- buildInfoDesc }

func (b buildInfo) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(buildInfoDesc, prometheus.GaugeValue, 1, b.version(), runtime.Version())
}

// gatherer gathers the service's metrics and the running engine's (started
// if it is not running).
func (s *Service) gatherer() prometheus.Gatherer {
	return prometheus.Gatherers{s.reg, prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		eng, err := s.engine()
		if err != nil {
			return nil, err
		}
		return eng.Registry().Gather()
	})}
}

// MetricsText returns the Prometheus metrics in the text format: the
// service's and the engine's.
func (s *Service) MetricsText() (string, error) { return engine.GatherText(s.gatherer()) }
