package config

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

func TestExampleIsTheDefaults(t *testing.T) {
	data, err := os.ReadFile("example.toml")
	require.NoError(t, err)
	cfg, err := Parse(string(data))
	require.NoError(t, err)
	require.Equal(t, Default(), cfg)
}

func TestParseTOMLAndJSON(t *testing.T) {
	toml := `
verify_proofs = false
[memory]
budget = "64GiB"
pool_max = 1073741824
[gpus]
devices = [0, 2]
workers_per_device = 3
[scheduler]
batch_max = 4
batch_wait = "250ms"
[throttle]
sleep = "1ms"
`
	cfg, err := Parse(toml)
	require.NoError(t, err)
	require.False(t, cfg.VerifyProofs)
	require.Equal(t, AutoSize(64*GiB), cfg.Memory.Budget)
	require.Equal(t, AutoSize(GiB), cfg.Memory.PoolMax)
	require.Equal(t, []int{0, 2}, cfg.GPUs.Devices)
	require.Equal(t, 3, cfg.GPUs.WorkersPerDevice)
	require.Equal(t, 250*time.Millisecond, cfg.Scheduler.BatchWait.D())
	require.Equal(t, 2, cfg.Synthesis.MaxParallel, "unset keys keep their defaults")

	js := `{"verify_proofs": false, "memory": {"budget": "64GiB", "pool_max": 1073741824},
	        "gpus": {"devices": [0, 2], "workers_per_device": 3},
	        "scheduler": {"batch_max": 4, "batch_wait": "250ms"}, "throttle": {"sleep": "1ms"}}`
	fromJSON, err := Parse(js)
	require.NoError(t, err)
	require.Equal(t, cfg, fromJSON)

	empty, err := Parse("")
	require.NoError(t, err)
	require.Equal(t, Default(), empty)
}

func TestParseErrorsNameTheKey(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{`[synthesis]
max_paralel = 3`, "unknown key synthesis.max_paralel"},
		{`{"gpus": {"workerz": 1}}`, "unknown key gpus.workerz"},
		{`[gpus]
workers_per_device = 0`, "gpus.workers_per_device: must be 1 to 16 (got 0)"},
		{`[memory]
budget = "lots"`, "invalid size"},
		{`[memory]
budget = "0"`, `invalid size 0: want "auto" or a positive size`},
		{`[scheduler]
batch_wait = "soon"`, "invalid duration"},
		{`[logging]
level = "loud"`, "logging.level"},
		{`[gpus]
devices = [-1]`, "gpus.devices[0]"},
		{`[synthesis]
max_parallel = "two"`, "max_parallel"},
		{`[metrics]
listen = "9821"`, `metrics.listen: want host:port, such as "127.0.0.1:9821" (got "9821")`},
		{`[metrics]
listen = "localhost:http"`, "metrics.listen: the port must be a number from 0 to 65535"},
		{`[metrics]
listen = "127.0.0.1:65536"`, "metrics.listen: the port must be a number"},
		{`{"metrics": {"listen": 9821}}`, "listen"},
		{`{"memory": `, "config: json"},
		{`[memory`, "config: "},
	} {
		_, err := Parse(c.text)
		require.ErrorContains(t, err, c.msg, c.text)
	}
}

// metrics.listen takes host:port, port 0 (a free port) and an empty host
// (every interface) included; "" is off.
func TestMetricsListen(t *testing.T) {
	require.Empty(t, Default().Metrics.Listen, "off by default")
	for _, addr := range []string{"127.0.0.1:9821", ":0", "[::1]:9821", "localhost:0", ""} {
		cfg, err := Parse("[metrics]\nlisten = \"" + addr + "\"\n")
		require.NoError(t, err, addr)
		require.Equal(t, addr, cfg.Metrics.Listen)
	}
	cfg, err := Parse(`{"metrics": {"listen": "127.0.0.1:9821"}}`)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9821", cfg.Metrics.Listen)
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]Size{"64GiB": 64 * GiB, "512MiB": 512 * MiB, "1.5GB": 1_500_000_000, "4096": 4096, "2 KiB": 2 * KiB, "1TiB": TiB} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "-1GiB", "GiB", "1XB", "NaN"} {
		_, err := ParseSize(bad)
		require.Error(t, err, bad)
	}
	require.Equal(t, "64GiB", (64 * GiB).String())
	require.Equal(t, "1000B", Size(1000).String())
}

func TestBudgetAuto(t *testing.T) {
	cfg := Default()
	require.True(t, cfg.Memory.Budget.Auto(), "the default budget is auto")
	require.Equal(t, 5*GiB, cfg.Memory.SafetyMargin)
	cfg, err := Parse("[memory]\nbudget = \"auto\"\nsafety_margin = \"8GiB\"\n")
	require.NoError(t, err)
	require.True(t, cfg.Memory.Budget.Auto())
	require.Equal(t, 8*GiB, cfg.Memory.SafetyMargin)
	cfg, err = Parse(`{"memory": {"budget": "48GiB"}}`)
	require.NoError(t, err)
	require.Equal(t, AutoSize(48*GiB), cfg.Memory.Budget)
	b, err := cfg.Memory.Budget.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "48GiB", string(b))
	b, err = Default().Memory.Budget.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "auto", string(b))
}

// The reference daemon's configuration is accepted: each of its keys read
// as ours or ignored, with a warning that names it.
func TestReferenceDaemonConfig(t *testing.T) {
	text, err := os.ReadFile("testdata/reference-cuzk.toml")
	require.NoError(t, err)
	_, err = Parse(string(text))
	require.NoError(t, err)
	cfg, warnings, err := ParseWarnings(string(text))
	require.NoError(t, err)
	require.True(t, cfg.Memory.Budget.Auto())
	require.Equal(t, 5*GiB, cfg.Memory.SafetyMargin)
	require.Equal(t, 32, cfg.GPUs.G2Threads)
	require.Equal(t, 2, cfg.GPUs.WorkersPerDevice)
	require.Equal(t, 1, cfg.Scheduler.BatchMax)
	require.Equal(t, Duration(10*time.Second), cfg.Scheduler.BatchWait)
	require.Equal(t, 2, cfg.Synthesis.QueueDepth)
	require.Equal(t, "0.0.0.0:9821", cfg.Metrics.Listen, "the reference's status_listen serves /status here too")
	require.Equal(t, "json", cfg.Logging.Format, "logging.format is ours")
	for _, r := range referenceKeys {
		n := 0
		for _, w := range warnings {
			if strings.Contains(w, r.key+" (the reference daemon's)") {
				n++
			}
		}
		require.Equal(t, 1, n, "one warning names %s", r.key)
	}
	require.Len(t, warnings, len(referenceKeys))
	// The file holds every key of the reference daemon's config struct.
	var doc map[string]map[string]any
	_, err = toml.Decode(string(text), &doc)
	require.NoError(t, err)
	for _, k := range referenceDaemonKeys {
		sec, key, _ := strings.Cut(k, ".")
		_, ok := doc[sec][key]
		require.True(t, ok, "testdata/reference-cuzk.toml sets %s", k)
	}

	// JSON too, and a key given under both names is refused.
	cfg, _, err = ParseWarnings(`{"memory": {"total_budget": "48GiB"}, "scheduler": {"max_batch_wait_ms": 250}}`)
	require.NoError(t, err)
	require.Equal(t, AutoSize(48*GiB), cfg.Memory.Budget)
	require.Equal(t, Duration(250*time.Millisecond), cfg.Scheduler.BatchWait)
	_, _, err = ParseWarnings("[memory]\nbudget = \"8GiB\"\ntotal_budget = \"9GiB\"\n")
	require.ErrorContains(t, err, "memory.budget and memory.total_budget")
	_, _, err = ParseWarnings("[scheduler]\nmax_batch_wait_ms = \"soon\"\n")
	require.ErrorContains(t, err, "max_batch_wait_ms")
	// Our own keys give no warning.
	_, warnings, err = ParseWarnings("[memory]\nbudget = \"auto\"\n")
	require.NoError(t, err)
	require.Empty(t, warnings)
}

// referenceDaemonKeys is every key the reference daemon's config struct
// reads (its cuzk.toml; Curio, Aug 2026).
var referenceDaemonKeys = []string{
	"daemon.listen", "daemon.status_listen",
	"srs.param_cache", "srs.preload",
	"memory.total_budget", "memory.safety_margin", "memory.eviction_min_idle", "memory.pinned_budget", "memory.working_memory_budget",
	"gpus.devices", "gpus.gpu_threads", "gpus.gpu_workers_per_device",
	"scheduler.max_batch_size", "scheduler.max_batch_wait_ms", "scheduler.sort_by_type",
	"synthesis.threads", "synthesis.partition_workers",
	"pipeline.enabled", "pipeline.synthesis_lookahead", "pipeline.synthesis_concurrency", "pipeline.max_parallel_synthesis",
	"pipeline.slot_size", "pipeline.max_gpu_queue_depth",
	"logging.level", "logging.format",
}

// logging.format = "json" writes one JSON object a line; "text" (the
// default) key=value lines.
func TestLoggingFormat(t *testing.T) {
	for _, f := range []string{"json", "text", ""} {
		cfg, err := Parse("[logging]\nformat = \"" + f + "\"\n")
		require.NoError(t, err, f)
		var buf bytes.Buffer
		slog.New(cfg.Logging.Handler(&buf, nil)).Warn("no usable GPU", "reason", "none")
		var line map[string]any
		jsonErr := json.Unmarshal(buf.Bytes(), &line)
		if f == "json" {
			require.NoError(t, jsonErr, buf.String())
			require.Equal(t, "no usable GPU", line["msg"])
			require.Equal(t, "WARN", line["level"])
		} else {
			require.Error(t, jsonErr)
			require.Contains(t, buf.String(), `msg="no usable GPU" reason=none`)
		}
	}
	_, err := Parse("[logging]\nformat = \"xml\"\n")
	require.ErrorContains(t, err, "logging.format: must be text or json")
}

// The host layer's handler switches format with the configuration, its
// derived handlers too.
func TestLogHandlerFollowsFormat(t *testing.T) {
	var buf bytes.Buffer
	h := NewLogHandler(&buf, nil)
	log := slog.New(h).With("lib", "cuzk")
	log.Info("one")
	require.Contains(t, buf.String(), "msg=one lib=cuzk")
	buf.Reset()
	h.SetFormat(Logging{Format: "json"})
	log.Info("two")
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	require.Equal(t, "two", line["msg"])
	require.Equal(t, "cuzk", line["lib"])
	buf.Reset()
	h.SetFormat(Logging{Format: "text"})
	log.Info("three")
	require.Contains(t, buf.String(), "msg=three")
}

func TestLoggingLevel(t *testing.T) {
	for text, want := range map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError} {
		cfg, err := Parse("[logging]\nlevel = \"" + text + "\"\n")
		require.NoError(t, err)
		require.Equal(t, want, cfg.Logging.SlogLevel())
	}
	require.Equal(t, slog.LevelInfo, Default().Logging.SlogLevel())
}

// gpus.max_device_memory: a size or a share of the card, or the free
// memory; the CUDA context's margin comes off each, and a cap that leaves
// nothing beside it is refused.
func TestDeviceMemoryCap(t *testing.T) {
	const total, free = 80 * uint64(GiB), 70 * uint64(GiB)
	m := uint64(DeviceMemoryMargin)
	for in, want := range map[string]uint64{
		"": free - m, "16GiB": 16*uint64(GiB) - m, " 24GiB ": 24*uint64(GiB) - m, "0.5": total/2 - m, "1": total - m,
	} {
		got, err := DeviceMemoryCap(in, total, free)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"abc", "-1", "0", "2GiB", "1.5", "1e9"} {
		_, err := DeviceMemoryCap(in, total, free)
		require.ErrorContains(t, err, "gpus.max_device_memory", in)
	}
	_, err := DeviceMemoryCap("", total, 2*uint64(GiB))
	require.ErrorContains(t, err, "CUDA context")
	// what the process held beyond cuzk's count on an H100 (2^27 under
	// 16 and 24 GiB) fits in the margin: the cap holds by NVML too
	const context = 1244 * uint64(MiB) // 1.215 GiB
	for _, limit := range []uint64{16 * uint64(GiB), 24 * uint64(GiB)} {
		own, err := DeviceMemoryCap(Size(limit).String(), total, free)
		require.NoError(t, err)
		require.LessOrEqual(t, own+context, limit, "cap %s", Size(limit))
	}
	c := Default()
	c.GPUs.MaxDeviceMemory = "lots"
	require.ErrorContains(t, c.Validate(), "gpus.max_device_memory")
}

// gpus.host_sync maps onto the CUDA library's host_sync option in the
// order the library's header gives (0 auto, 1 spin, 2 yield, 3 blocking);
// anything else is refused naming the values.
func TestHostSync(t *testing.T) {
	for want, mode := range []string{"auto", "spin", "yield", "blocking"} {
		cfg, err := Parse("[gpus]\nhost_sync = \"" + mode + "\"\n")
		require.NoError(t, err, mode)
		got, err := cfg.GPUs.HostSyncMode()
		require.NoError(t, err)
		require.Equal(t, want, got, mode)
	}
	got, err := (&GPUs{}).HostSyncMode()
	require.NoError(t, err)
	require.Zero(t, got, `"" is auto`)
	require.Equal(t, "auto", Default().GPUs.HostSync)
	for _, bad := range []string{"Blocking", "sleep", "3"} {
		_, err := Parse("[gpus]\nhost_sync = \"" + bad + "\"\n")
		require.ErrorContains(t, err, "gpus.host_sync: must be auto, spin, yield or blocking", bad)
	}
}
