// Package config holds cuzk's configuration: one struct, parsed once from
// TOML or JSON and passed down. No package below it reads the environment.
//
// Keys and sections follow the reference daemon's cuzk.toml; example.toml in
// this directory lists every key with its default. Sizes take units
// ("64GiB", "512MiB", "1.5GB", or a plain byte count); durations take Go
// syntax ("30s", "250ms").
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the engine's whole configuration.
type Config struct {
	// VerifyProofs verifies every proof before it is returned; a failure is
	// reported as an error, never returned as a proof.
	VerifyProofs bool `toml:"verify_proofs" json:"verify_proofs"`

	Memory    Memory    `toml:"memory" json:"memory"`
	GPUs      GPUs      `toml:"gpus" json:"gpus"`
	Synthesis Synthesis `toml:"synthesis" json:"synthesis"`
	Scheduler Scheduler `toml:"scheduler" json:"scheduler"`
	SRS       SRS       `toml:"srs" json:"srs"`
	Throttle  Throttle  `toml:"throttle" json:"throttle"`
	Dealloc   Dealloc   `toml:"dealloc" json:"dealloc"`
	Logging   Logging   `toml:"logging" json:"logging"`
	Metrics   Metrics   `toml:"metrics" json:"metrics"`
}

// Memory bounds host memory.
type Memory struct {
	// Budget is the working-set bytes that partitions in flight may
	// reserve together; a partition waits for room before synthesis, and a
	// request whose partition can never fit is refused at once. "auto" (the
	// default) is the machine's memory, or its cgroup's limit when lower,
	// less SafetyMargin: a 2^27-domain partition (~30 GiB of working set)
	// must fit wherever the machine can hold it, and hosts such as
	// bellperson never configure the library.
	Budget AutoSize `toml:"budget" json:"budget"`
	// SafetyMargin is what an "auto" budget leaves to everything the
	// budget does not count: the host's own buffers, the rest of the
	// machine (the reference daemon's default: 5 GiB). The loaded
	// parameters' host copies are counted in the budget, beside the
	// partitions' working sets.
	SafetyMargin Size `toml:"safety_margin" json:"safety_margin"`
	// PoolMax caps the bytes of freed big buffers kept for reuse. "auto"
	// (the default) is the budget: idle buffers stay as long as they and
	// the partitions' reservations fit in it together (a buffer given back
	// is freed rather than pooled past that, and the pool is trimmed as
	// partitions reserve). With a GPU the buffers are page-locked, and
	// locking them again for every partition costs more than copying
	// into them (hundreds of ms a GiB), so they must survive from one call
	// to the next: at 2^24 a partition holds 2 GiB of them (a, b, c, aux),
	// at 2^27 16 GiB.
	PoolMax AutoSize `toml:"pool_max" json:"pool_max"`
}

// GPUs configures the devices.
type GPUs struct {
	// Devices lists the GPU ordinals to use; empty means every GPU found.
	Devices []int `toml:"devices" json:"devices"`
	// Required makes a missing GPU (or CUDA library) an error instead of a
	// fall-back to the CPU backend.
	Required bool `toml:"required" json:"required"`
	// WorkersPerDevice is the number of workers sharing one device's
	// interlock: one worker's CPU prep and G2 MSM overlap the other's
	// kernels (2 reached ~100% GPU utilisation in the reference system).
	WorkersPerDevice int `toml:"workers_per_device" json:"workers_per_device"`
	// CPUWorkers is the number of workers when the CPU is the device; two
	// overlap one partition's G2 MSM with the next one's device region.
	CPUWorkers int `toml:"cpu_workers" json:"cpu_workers"`
	// G2Threads bounds the goroutines of the CPU G2 MSM (0 = GOMAXPROCS).
	// The reference system shrank its pool from 192 to 32 threads to stop
	// L3 thrashing against synthesis.
	G2Threads int `toml:"g2_threads" json:"g2_threads"`
	// G2OnGPU runs a GPU partition's G2 MSM on the GPU, inside the
	// interlock; false runs it on the CPU after the interlock, with the
	// bandwidth throttle raised (the reference system's way).
	G2OnGPU bool `toml:"g2_on_gpu" json:"g2_on_gpu"`
	// DevicePrep selects a GPU partition's A and B query scalars on the
	// GPU from the witness (uploaded once) instead of gathering them on
	// the host (checked on the H200 against the CPU backend; −135 ms a
	// 2^24 partition predicted).
	DevicePrep bool `toml:"device_prep" json:"device_prep"`
	// CUDALib is the path of libcuzk_cuda.so (a regular file), or a bare
	// name for the dynamic loader to find; "" lets the host layer choose
	// (CUDASearch: CUZK_CUDA_LIB, beside libcuzk.so, beside the command,
	// the install prefix, the loader's path), and none found means no GPU
	// backend.
	CUDALib string `toml:"cuda_lib" json:"cuda_lib"`
	// CUDASearched is where the host layer looked when gpus.cuda_lib
	// named no library (CUDASearch.Resolve), for the message when none
	// loads; not a key.
	CUDASearched []string `toml:"-" json:"-"`
	// MaxDeviceMemory caps what cuzk's process uses on each GPU: a size
	// ("16GiB"), a share of the card ("0.5"), or "" for what is free when
	// the engine starts. DeviceMemoryMargin of it is left for the CUDA
	// context; cuzk's own allocations (resident points, scalars, MSM and
	// NTT scratch, stream buffers) keep within the rest. Point sets that do not fit
	// are streamed from page-locked host memory; a partition that cannot
	// run even so is refused at once.
	MaxDeviceMemory string `toml:"max_device_memory" json:"max_device_memory"`
	// MSMPool keeps an MSM's device scratch for the next MSM (~4% faster at
	// 2^24); false hands it back after each MSM (a GPU shared with other
	// processes).
	MSMPool bool `toml:"msm_pool" json:"msm_pool"`
	// HostSync is how a thread waits for its GPU's work: "auto" (the
	// default, "" the same: the CUDA runtime's choice, which spins while
	// the process has fewer CUDA contexts than the host has cores),
	// "spin", "yield", or "blocking" (the thread sleeps until the device
	// is done, leaving its core to synthesis).
	HostSync string `toml:"host_sync" json:"host_sync"`
}

// HostSyncModes are gpus.host_sync's values, in the order of the CUDA
// library's host_sync option (0-3); "" is "auto".
var HostSyncModes = []string{"auto", "spin", "yield", "blocking"}

// HostSyncMode returns gpus.host_sync as the CUDA library's option
// (0-3), or an error naming the values.
func (g *GPUs) HostSyncMode() (int, error) {
	if g.HostSync == "" {
		return 0, nil
	}
	if i := slices.Index(HostSyncModes, g.HostSync); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("config: gpus.host_sync: must be auto, spin, yield or blocking (got %q)", shown(g.HostSync))
}

// DeviceMemoryMargin is what cuzk leaves for the CUDA context of its
// process: the context itself and the kernels' local memory, which the
// driver reserves beside cuzk's own allocations. Measured on an H100 at
// 2^27 under 16 and 24 GiB caps: the process held 1.215 GiB more than
// cuzk's count at its peak, under either cap (BENCHMARKS.md); a 1 GiB
// margin let a 16 GiB cap's process reach 16.18 GiB. The default
// gpus.max_device_memory is the GPU's free memory less the margin; a
// given cap counts the context too, so cuzk's own allocations get the cap
// less the margin.
const DeviceMemoryMargin = 1536 * MiB

// DeviceMemoryCap resolves gpus.max_device_memory for a GPU with total and
// free bytes into the bytes cuzk's own allocations may hold.
func DeviceMemoryCap(s string, total, free uint64) (uint64, error) {
	s = strings.TrimSpace(s)
	limit := free
	if s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f <= 1 && !strings.ContainsAny(s, "eE") {
			limit = uint64(f * float64(total))
		} else if v, err := ParseSize(s); err == nil && v > 0 && v <= MaxSize {
			limit = uint64(v)
		} else {
			return 0, fmt.Errorf("config: gpus.max_device_memory: %q: want a size up to %s (\"16GiB\"), a share of the card in (0, 1], or \"\"", shown(s), Size(MaxSize))
		}
	}
	if limit <= uint64(2*DeviceMemoryMargin) {
		return 0, fmt.Errorf("config: gpus.max_device_memory: %s leaves nothing beside the %s for the CUDA context (want more than %s)",
			Size(limit), DeviceMemoryMargin, 2*DeviceMemoryMargin)
	}
	return limit - uint64(DeviceMemoryMargin), nil
}

// Synthesis configures witness → a, b, c.
type Synthesis struct {
	// MaxParallel partitions are synthesized at once.
	MaxParallel int `toml:"max_parallel" json:"max_parallel"`
	// Threads per mat-vec (0 = GOMAXPROCS).
	Threads int `toml:"threads" json:"threads"`
	// QueueDepth is the number of synthesized partitions that may wait for
	// a device (backpressure on synthesis).
	QueueDepth int `toml:"queue_depth" json:"queue_depth"`
}

// Scheduler configures the queue.
type Scheduler struct {
	// BatchMax same-circuit jobs are dispatched together (1 = no batching).
	BatchMax int `toml:"batch_max" json:"batch_max"`
	// BatchWait is how long the dispatcher waits to fill a batch.
	BatchWait Duration `toml:"batch_wait" json:"batch_wait"`
	// DefaultTimeout applies to jobs submitted without a deadline (0 = none).
	DefaultTimeout Duration `toml:"default_timeout" json:"default_timeout"`
}

// SRS configures parameter loading.
type SRS struct {
	// SkipSubgroupCheck trusts parameter files (curve checks stay).
	SkipSubgroupCheck bool `toml:"skip_subgroup_check" json:"skip_subgroup_check"`
	// ValidationRecordDir holds the record of parameter files (by content)
	// whose subgroup check passed; a file recorded there loads with the
	// curve checks only. "" lets the host choose: the library and the
	// command use the platform cache directory (os.UserCacheDir()/cuzk).
	ValidationRecordDir string `toml:"validation_record_dir" json:"validation_record_dir"`
}

// Throttle configures the memory-bandwidth throttle.
type Throttle struct {
	// Enabled lets the G2 MSM raise the throttle.
	Enabled bool `toml:"enabled" json:"enabled"`
	// CheckRows is how many mat-vec rows run between throttle checks.
	CheckRows int `toml:"check_rows" json:"check_rows"`
	// Sleep is how long a throttled mat-vec goroutine sleeps per check.
	Sleep Duration `toml:"sleep" json:"sleep"`
}

// Dealloc configures the deallocation goroutine.
type Dealloc struct {
	// MaxConcurrent frees run at once; 1 avoids the TLB-shootdown storms the
	// reference system saw when many threads freed tens of GiB together.
	MaxConcurrent int `toml:"max_concurrent" json:"max_concurrent"`
}

// Logging configures log output.
type Logging struct {
	// Level is one of debug, info, warn, error: the level of the log the
	// host layer writes (the C library's on stderr from the host's first
	// cuzk_config on, unless CUZK_LOG_LEVEL is set; the cuzk command's).
	// A Go host's own Options.Logger keeps its own level.
	Level string `toml:"level" json:"level"`
	// Format is "text" (key=value lines, the default; "" is the same) or
	// "json" (one JSON object a line, slog's JSON handler), as the
	// reference daemon's logging.format.
	Format string `toml:"format" json:"format"`
}

// Handler returns a log handler writing to w in Format, at opts' level.
func (l Logging) Handler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	if l.Format == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// Metrics configures the library's own HTTP listener.
type Metrics struct {
	// Listen is the host:port on which the library serves GET /metrics
	// (Prometheus text) and GET /status (the status JSON); "" (the
	// default) serves nothing, and the host reads both through
	// cuzk_metrics_text and cuzk_status_json. An empty host listens on
	// every interface; port 0 takes a free port. The listener has no
	// authentication: bind it to loopback or a private interface.
	Listen string `toml:"listen" json:"listen"`
	// MaxConnections bounds the connections the listener holds, each a
	// descriptor of the host's process: one beyond it is accepted only to
	// close the connection that has waited longest on its client (idle,
	// still sending its request, or not reading its response), and when
	// every one is computing a response the rest wait in the kernel's
	// backlog. A scraper needs one; 32 leaves room for a few and for
	// people with curl.
	MaxConnections int `toml:"max_connections" json:"max_connections"`
}

// SlogLevel returns Level for log/slog (info for a value Validate
// refuses).
func (l Logging) SlogLevel() slog.Level {
	switch l.Level {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// Default returns the documented defaults.
func Default() Config {
	return Config{
		VerifyProofs: true,
		Memory:       Memory{SafetyMargin: 5 * GiB},
		GPUs:         GPUs{Devices: []int{}, WorkersPerDevice: 2, CPUWorkers: 2, G2OnGPU: true, DevicePrep: true, MSMPool: true, HostSync: "auto"},
		Synthesis:    Synthesis{MaxParallel: 2, QueueDepth: 2},
		Scheduler:    Scheduler{BatchMax: 1},
		Throttle:     Throttle{Enabled: true, CheckRows: 4096, Sleep: Duration(50 * time.Microsecond)},
		Dealloc:      Dealloc{MaxConcurrent: 1},
		Logging:      Logging{Level: "info", Format: "text"},
		Metrics:      Metrics{MaxConnections: 32},
	}
}

// Parse reads a configuration in TOML or JSON (a document starting with
// '{'), over the defaults. Unknown keys and invalid values are errors that
// name the key. The reference daemon's keys are read too (see
// ParseWarnings).
func Parse(text string) (Config, error) {
	cfg, _, err := ParseWarnings(text)
	return cfg, err
}

// ParseWarnings is Parse, also returning a warning for each of the
// reference daemon's keys it read as one of ours or ignored (reference.go).
func ParseWarnings(text string) (Config, []string, error) {
	cfg := Default()
	if err := checkText(text); err != nil {
		return cfg, nil, err
	}
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "{") {
		var err error
		if trimmed, err = jsonToTOML(trimmed); err != nil {
			return cfg, nil, err
		}
	}
	trimmed, warnings, err := migrateTOML(trimmed)
	if err != nil {
		return cfg, nil, err
	}
	md, err := toml.Decode(trimmed, &cfg)
	if err != nil {
		return cfg, warnings, decodeError(err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return cfg, warnings, fmt.Errorf("config: unknown key %s", listKeys(keys))
	}
	return cfg, warnings, cfg.Validate()
}

// decodeError wraps a decoder's error; one at a numeric key (an integer
// beyond int64, a float for an integer) also says the key's range.
func decodeError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		if r := rangeOf(pe.LastKey); r != "" {
			return fmt.Errorf("config: %s: %s (line %d: %s)", pe.LastKey, r, pe.Position.Line, pe.Message)
		}
		return fmt.Errorf("config: %w", err)
	}
	// A value of the wrong type comes as text naming Go's types ("toml:
	// line 2 (last key "srs.validation_record_dir"): incompatible types:
	// TOML value has type int64; destination has type string"): said in
	// the configuration's words instead.
	if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
		if want := keyWants(m[2]); want != "" {
			return fmt.Errorf("config: %s: want %s, got %s (line %s)", m[2], want, tomlType(m[3]+m[4]), m[1])
		}
	}
	return fmt.Errorf("config: %w", err)
}

// typeErr matches the TOML decoder's type errors: line, key, the type of
// the value found.
var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (?:incompatible types: TOML value has type (\S+);|type mismatch for \S+: expected \S+ but found (\S+))`)

// tomlType names a Go type the decoder read a value as in TOML's words.
func tomlType(goType string) string {
	switch goType {
	case "int64":
		return "an integer"
	case "float64":
		return "a float"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "time.Time":
		return "a date"
	case "[]interface", "[]any":
		return "an array"
	case "map[string]interface", "map[string]any":
		return "a table"
	}
	return "another type"
}

// keyWants says what a key's value must be, in the words of the
// configuration's syntax; "" for a key the configuration has not.
func keyWants(key string) string {
	var c Config
	v, ok := fieldByKey(reflect.ValueOf(&c).Elem(), key)
	if !ok {
		return ""
	}
	switch v.Interface().(type) {
	case Size, AutoSize:
		return "a size such as \"64GiB\""
	case Duration:
		return "a duration such as \"30s\""
	}
	switch v.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Uint32, reflect.Int32:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct:
		return "a table"
	}
	return ""
}

// jsonToTOML re-encodes a JSON document as TOML so that both formats go
// through one decoder (one set of key names, unknown-key and type errors).
func jsonToTOML(text string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return "", fmt.Errorf("config: json: a configuration is an object of tables, not %s", te.Value)
		}
		return "", fmt.Errorf("config: json: %w", err)
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(numbers(m)); err != nil {
		return "", fmt.Errorf("config: json: %w", err)
	}
	return buf.String(), nil
}

// numbers turns json.Number into int64 or float64, recursively.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// Validate checks every value and names the first bad key.
func (c *Config) Validate() error {
	if err := c.checkNumeric(); err != nil {
		return err
	}
	if !oneOf(c.Logging.Level, "debug", "info", "warn", "error") {
		return fmt.Errorf("config: logging.level: must be debug, info, warn or error (got %q)", shown(c.Logging.Level))
	}
	if !oneOf(c.Logging.Format, "", "text", "json") {
		return fmt.Errorf("config: logging.format: must be text or json (got %q)", shown(c.Logging.Format))
	}
	if _, err := c.GPUs.HostSyncMode(); err != nil {
		return err
	}
	if _, err := DeviceMemoryCap(c.GPUs.MaxDeviceMemory, 1<<40, 1<<40); err != nil {
		return err
	}
	if err := checkListen(c.Metrics.Listen); err != nil {
		return fmt.Errorf("config: metrics.listen: %w (got %q)", err, shown(c.Metrics.Listen))
	}
	if err := checkCUDALib(c.GPUs.CUDALib); err != nil {
		return fmt.Errorf("config: gpus.cuda_lib: %w", err)
	}
	return nil
}

// checkListen accepts "" or host:port with a numeric port (0 to 65535);
// the host is not resolved here: binding it is the listener's check.
func checkListen(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port, such as \"127.0.0.1:9821\"")
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return errors.New("the port must be a number from 0 to 65535")
	}
	return nil
}

func oneOf(s string, opts ...string) bool {
	for _, o := range opts {
		if s == o {
			return true
		}
	}
	return false
}

// Threads resolves a thread count where 0 means GOMAXPROCS.
func Threads(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
