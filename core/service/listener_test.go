package service

import (
	"errors"
	"github.com/cuzk/cuzk/core/config"
	"github.com/cuzk/cuzk/core/engine"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/cuzk/cuzk/core/internal/wiretest"
)

var client = &http.Client{Timeout: 30 * time.Second}

// get fetches http://addr/path and returns the status code, content type
// and body.
func get(t *testing.T, addr, path string) (int, string, []byte) {
	t.Helper()
	resp, err := client.Get("http://" + addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// refused reports whether nothing accepts connections at addr any more.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// metricValue is the value of the one sample of a metric family in
// Prometheus text, parsed by the Prometheus text parser.
func metricValue(t *testing.T, text, name string) float64 {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	require.NoError(t, err)
	f := fams[name]
	require.NotNil(t, f, "no metric %s", name)
	require.Len(t, f.Metric, 1, name)
	m := f.Metric[0]
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	}
	t.Fatalf("%s: neither a gauge nor a counter", name)
	return 0
}

// With metrics.listen set, the service serves /status and /metrics over
// HTTP: the status lists what it holds (circuits, parameter sets, the SRS
// cache with their bytes), the devices' health and the capacity, in
// snake_case JSON with durations in seconds; the metrics are the engine's
// with the Go, process and build-info collectors, promlint-clean.
func TestListenerServesStatusAndMetrics(t *testing.T) {
	dir, cs, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	s.SetVersion("1.2.3-test")
	s.SetDefaultRecordDir(t.TempDir())
	t.Cleanup(s.Close)
	require.Empty(t, s.ListenAddr(), "off by default")
	require.NoError(t, s.Configure("[metrics]\nlisten = \"127.0.0.1:0\"\n"))
	addr := s.ListenAddr()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	require.NotEqual(t, "0", port, "the port bound is reported")

	// Idle, holding nothing: every list is [], not null.
	code, ctype, body := get(t, addr, "/status")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "application/json", ctype)
	doc := wiretest.JSON(t, body)
	for _, k := range []string{"circuits", "parameter_sets", "srs_cache", "jobs"} {
		require.Equal(t, []any{}, wiretest.Get(t, doc, k), k)
	}
	require.Equal(t, addr, wiretest.Get(t, doc, "metrics_listen"))
	require.Equal(t, "1.2.3-test", wiretest.Get(t, doc, "version"))

	// Hold a circuit with its parameters, an SRS, and a finished job.
	paramsPath := filepath.Join(dir, "c.params")
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", paramsPath, false))
	srs, err := s.OpenSRS(paramsPath, true)
	require.NoError(t, err)
	defer s.DropSRS(srs)
	_, err = s.Prove(Request{CircuitID: "c", Witnesses: ws})
	require.NoError(t, err)

	// The decoded points take the file's bytes less its six u32 section
	// counts: bellperson's format stores each point uncompressed, 96 bytes
	// a G1 point and 192 a G2 point, as gnark-crypto holds them.
	fi, err := os.Stat(paramsPath)
	require.NoError(t, err)
	pointBytes := float64(fi.Size() - 6*4)

	code, _, body = get(t, addr, "/status")
	require.Equal(t, http.StatusOK, code)
	doc = wiretest.JSON(t, body)
	require.Equal(t, []any{map[string]any{"id": "c", "constraints": float64(cs.NumConstraints),
		"inputs": float64(cs.NumInputs), "aux": float64(cs.NumAux), "parameters_loaded": true}}, wiretest.Get(t, doc, "circuits"))
	require.Equal(t, []any{map[string]any{"circuit": "c", "path": paramsPath, "bytes": pointBytes}}, wiretest.Get(t, doc, "parameter_sets"))
	require.Equal(t, []any{map[string]any{"path": paramsPath, "bytes": pointBytes, "handles": 1.0}}, wiretest.Get(t, doc, "srs_cache"))
	devices := wiretest.Get(t, doc, "devices").([]any)
	proved := 0.0
	for _, d := range devices {
		require.Equal(t, true, d.(map[string]any)["healthy"])
		proved += d.(map[string]any)["partitions"].(float64)
	}
	require.Equal(t, 2.0, proved, "both partitions proved")
	capacity := wiretest.Get(t, doc, "capacity").(map[string]any)
	require.Equal(t, capacity["memory_budget_bytes"], capacity["memory_free_bytes"], "idle: the whole budget is free")
	require.Positive(t, capacity["memory_budget_bytes"])
	require.Equal(t, map[string]any{"low": 0.0, "normal": 0.0, "high": 0.0, "critical": 0.0}, capacity["queue"])
	require.Equal(t, float64(len(devices)), capacity["devices_healthy"])
	require.Less(t, wiretest.Get(t, doc, "uptime_seconds"), 3600.0, "seconds, not nanoseconds")

	// A job in flight is listed with its age in seconds.
	s.Throttle().SetHost(true) // holds the job in synthesis
	job, err := s.Submit(Request{CircuitID: "c", Witnesses: ws[:1], RequestID: "held"})
	require.NoError(t, err)
	_, _, body = get(t, addr, "/status")
	doc = wiretest.JSON(t, body)
	require.True(t, strings.HasPrefix(wiretest.Get(t, doc, "jobs", 0, "id").(string), "held#"))
	require.Less(t, wiretest.Get(t, doc, "jobs", 0, "age_seconds"), 3600.0)
	require.Equal(t, 1.0, wiretest.Get(t, doc, "capacity", "jobs_in_flight"))
	s.Throttle().SetHost(false)
	_, err = s.Await(job, 0)
	require.NoError(t, err)

	code, ctype, body = get(t, addr, "/metrics")
	require.Equal(t, http.StatusOK, code)
	require.True(t, strings.HasPrefix(ctype, "text/plain"), ctype)
	text := string(body)
	wiretest.Prometheus(t, text)
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes",
		"process_cpu_seconds_total", "cuzk_stage_seconds", "cuzk_queue_depth"} {
		require.Contains(t, text, "\n# TYPE "+name+" ", name)
	}
	require.Contains(t, text, `cuzk_build_info{goversion="`+runtime.Version()+`",version="1.2.3-test"} 1`)
	require.Equal(t, 2.0, metricValue(t, text, "cuzk_jobs_completed_total"))
	require.Equal(t, 1.0, metricValue(t, text, "cuzk_circuits_registered"))
	require.Equal(t, 1.0, metricValue(t, text, "cuzk_parameter_sets_loaded"))
	require.Equal(t, pointBytes, metricValue(t, text, "cuzk_parameter_sets_bytes"))
	require.Equal(t, 1.0, metricValue(t, text, "cuzk_srs_cache_entries"))
	require.Equal(t, pointBytes, metricValue(t, text, "cuzk_srs_cache_bytes"))

	// The C calls' text is the same set, and as clean.
	viaC, err := s.MetricsText()
	require.NoError(t, err)
	wiretest.Prometheus(t, viaC)
	require.Contains(t, viaC, "cuzk_build_info{")
	js, err := s.StatusJSON()
	require.NoError(t, err)
	wiretest.JSON(t, js)

	code, _, _ = get(t, addr, "/nothing")
	require.Equal(t, http.StatusNotFound, code)
	resp, err := client.Post("http://"+addr+"/status", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// Configure starts, keeps, rebinds and stops the listener; Close stops
// it; an address that cannot be bound is a BadConfig error that leaves the
// service as it was, and so is a reconfiguration while a job runs.
func TestListenerFollowsConfiguration(t *testing.T) {
	dir, _, ws := fixture(t)
	s := New(nil, config.CUDASearch{})
	t.Cleanup(s.Close)
	require.NoError(t, s.RegisterCircuit("c", filepath.Join(dir, "c.r1cs")))
	require.NoError(t, s.LoadParams("c", filepath.Join(dir, "c.params"), true))

	listen := func(addr string) string { return "[metrics]\nlisten = \"" + addr + "\"\n" }
	require.NoError(t, s.Configure(listen("127.0.0.1:0")))
	first := s.ListenAddr()
	code, _, _ := get(t, first, "/status")
	require.Equal(t, http.StatusOK, code)

	// The same address keeps the listener (port 0 is not rebound).
	require.NoError(t, s.Configure(listen("127.0.0.1:0")+"[synthesis]\nmax_parallel = 1\n"))
	require.Equal(t, first, s.ListenAddr())
	code, _, _ = get(t, first, "/metrics")
	require.Equal(t, http.StatusOK, code)

	// Another address rebinds: the old one stops.
	require.NoError(t, s.Configure(listen("localhost:0")))
	second := s.ListenAddr()
	require.NotEqual(t, first, second)
	require.True(t, refused(first), "the old address is closed")
	code, _, _ = get(t, second, "/status")
	require.Equal(t, http.StatusOK, code)

	// An address in use: a configuration error naming the key; the old
	// listener and configuration stay.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	err = s.Configure(listen(taken.Addr().String()) + "[synthesis]\nmax_parallel = 3\n")
	require.Equal(t, BadConfig, CodeOf(err), "%v", err)
	require.ErrorContains(t, err, "metrics.listen")
	require.ErrorContains(t, err, "address already in use")
	require.Equal(t, second, s.ListenAddr())
	require.Equal(t, "localhost:0", s.config().Metrics.Listen)
	require.Equal(t, 2, s.config().Synthesis.MaxParallel)
	code, _, _ = get(t, second, "/status")
	require.Equal(t, http.StatusOK, code)
	// So is a host that is not this machine's.
	require.Equal(t, BadConfig, CodeOf(s.Configure(listen("192.0.2.1:0"))), "TEST-NET-1 is never local")
	require.Equal(t, second, s.ListenAddr())

	// Refused while a job runs, the listener unchanged.
	s.Throttle().SetHost(true)
	job, err := s.Submit(Request{CircuitID: "c", Witnesses: ws[:1]})
	require.NoError(t, err)
	require.Equal(t, Busy, CodeOf(s.Configure(listen("127.0.0.1:0"))))
	require.Equal(t, second, s.ListenAddr())
	s.Throttle().SetHost(false)
	_, err = s.Await(job, 0)
	require.NoError(t, err)

	// An engine that cannot start: the listener serves the reason.
	err = s.Configure(listen("localhost:0") + "[gpus]\nrequired = true\ncuda_lib = \"/nonexistent/libcuzk_cuda.so\"\n")
	require.Equal(t, BadConfig, CodeOf(err), "%v", err)
	code, _, body := get(t, second, "/status")
	require.Equal(t, http.StatusInternalServerError, code)
	require.Contains(t, string(body), "/nonexistent/libcuzk_cuda.so")

	// Off again; then Close stops a running one.
	require.Eventually(t, func() bool { return s.Configure("") == nil }, 10*time.Second, 10*time.Millisecond)
	require.Empty(t, s.ListenAddr())
	require.True(t, refused(second))
	require.NoError(t, s.Configure(listen("127.0.0.1:0")))
	third := s.ListenAddr()
	code, _, _ = get(t, third, "/status")
	require.Equal(t, http.StatusOK, code)
	s.Close()
	require.Empty(t, s.ListenAddr())
	require.True(t, refused(third))
}

// An engine run without the service (the CLI's bench, a Go host) is served
// the same way: its status JSON and its metrics with the Go, process and
// build-info collectors, promlint-clean; stop closes the listener.
func TestServeEngine(t *testing.T) {
	e, err := engine.New(config.Default(), engine.Options{})
	require.NoError(t, err)
	defer e.Close()
	addr, stop, err := ServeEngine(config.Metrics{Listen: "127.0.0.1:0"}, e, "9.9.9-test", nil)
	require.NoError(t, err)
	code, ctype, body := get(t, addr, "/status")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "application/json", ctype)
	doc := wiretest.JSON(t, body)
	require.Equal(t, []any{}, wiretest.Get(t, doc, "jobs"))
	code, _, body = get(t, addr, "/metrics")
	require.Equal(t, http.StatusOK, code)
	wiretest.Prometheus(t, string(body))
	for _, m := range []string{"go_goroutines", "process_resident_memory_bytes", `cuzk_build_info{goversion=`, `version="9.9.9-test"`} {
		require.Contains(t, string(body), m)
	}
	stop()
	_, err = http.Get("http://" + addr + "/status")
	require.Error(t, err, "stopped")
	_, _, err = ServeEngine(config.Metrics{Listen: addr + "x"}, e, "", nil)
	require.ErrorContains(t, err, "metrics.listen")
}
