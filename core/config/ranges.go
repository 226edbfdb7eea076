package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// MaxSize bounds every size key: far above any machine's memory, and low
// enough that the engine's sums of reservations and budgets (uint64) and
// the metrics' float64 figures stay exact.
const MaxSize = 1 << 50 // 1 PiB

// numeric is the range of one numeric key: what the code that consumes it
// can use. A value outside it is refused naming the key and the range
// (throttle.check_rows = 2^63−1 once overflowed the mat-vec's block count
// and skipped the mat-vec: every proof was wrong).
type numeric struct {
	key      string // dotted; a list's elements each
	min, max int64  // sizes in bytes, durations in nanoseconds
	zero     string // what 0 means when it is allowed and special
}

// numericKeys lists every numeric key with its range, and where it goes.
// TestEveryNumericKeyHasARange walks Config so that none is forgotten.
var numericKeys = []numeric{
	// A budget's bytes (admission.go: reserved+n ≤ budget in uint64).
	{key: "memory.budget", min: 1, max: MaxSize, zero: "auto"},
	{key: "memory.safety_margin", min: 0, max: MaxSize},
	{key: "memory.pool_max", min: 1, max: MaxSize, zero: "auto"},
	// GPU ordinals (CUDA's are C ints; no host has 1,024 GPUs).
	{key: "gpus.devices", min: 0, max: 1023},
	// Workers are goroutines sharing an interlock.
	{key: "gpus.workers_per_device", min: 1, max: 16},
	{key: "gpus.cpu_workers", min: 1, max: 256},
	{key: "gpus.g2_threads", min: 0, max: 1024, zero: "all"},
	// Goroutines and a channel's capacity.
	{key: "synthesis.max_parallel", min: 1, max: 1024},
	// Also the CPU backend's NbTasks: gnark-crypto's MSM refuses more
	// than 1024.
	{key: "synthesis.threads", min: 0, max: 1024, zero: "all"},
	{key: "synthesis.queue_depth", min: 0, max: 1024},
	{key: "scheduler.batch_max", min: 1, max: 1024},
	// A batch waits at most this long to fill: an hour is already far past
	// any proof's own time.
	{key: "scheduler.batch_wait", min: 0, max: int64(maxBatchWait)},
	{key: "scheduler.default_timeout", min: 0, max: int64(7 * 24 * time.Hour), zero: "none"},
	// Rows between throttle checks: r1cs.Eval's block; its block count is
	// (rows + block − 1) / block in int, and a domain has at most 2^32 rows
	// (BLS12-381's two-adicity), so 2^30 stays exact and checks ~never.
	{key: "throttle.check_rows", min: 1, max: 1 << 30},
	// A throttled goroutine's sleep per check.
	{key: "throttle.sleep", min: 0, max: int64(time.Second)},
	{key: "dealloc.max_concurrent", min: 1, max: 64},
	// Descriptors of the host's process: many hosts run with a soft limit
	// of 1,024.
	{key: "metrics.max_connections", min: 1, max: 512},
}

const maxBatchWait = time.Hour

// maxDevices bounds the length of gpus.devices.
const maxDevices = 1024

// rangeText says a key's range in its own units.
func (n numeric) rangeText(t reflect.Type) string {
	show := func(v int64) string {
		switch t {
		case reflect.TypeOf(Duration(0)):
			return time.Duration(v).String()
		case reflect.TypeOf(Size(0)), reflect.TypeOf(AutoSize(0)):
			return Size(v).String()
		}
		return fmt.Sprint(v)
	}
	lo := show(n.min)
	if n.zero != "" {
		if n.min == 0 {
			lo = "0 (" + n.zero + ")"
		} else {
			lo = fmt.Sprintf("%q or %s", n.zero, lo)
		}
	}
	return fmt.Sprintf("must be %s to %s", lo, show(n.max))
}

// check refuses v outside n's range, naming the key (label, for a list's
// element).
func (n numeric) check(label string, v reflect.Value) error {
	ok := false
	var got any
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		x := v.Int()
		ok, got = x >= n.min && x <= n.max || x == 0 && n.zero != "", x
	case reflect.Uint64:
		x := v.Uint()
		ok, got = x <= uint64(n.max) && x >= uint64(n.min) || x == 0 && n.zero != "", x
	}
	if ok {
		return nil
	}
	if s, isStr := v.Interface().(fmt.Stringer); isStr {
		got = s.String()
	}
	return fmt.Errorf("config: %s: %s (got %v)", label, n.rangeText(v.Type()), got)
}

// checkNumeric checks every key of numericKeys in c.
func (c *Config) checkNumeric() error {
	for _, n := range numericKeys {
		v, ok := fieldByKey(reflect.ValueOf(c).Elem(), n.key)
		if !ok {
			return fmt.Errorf("config: internal: no key %s", n.key)
		}
		if v.Kind() != reflect.Slice {
			if err := n.check(n.key, v); err != nil {
				return err
			}
			continue
		}
		if v.Len() > maxDevices {
			return fmt.Errorf("config: %s: at most %d entries (got %d)", n.key, maxDevices, v.Len())
		}
		for i := 0; i < v.Len(); i++ {
			if err := n.check(fmt.Sprintf("%s[%d]", n.key, i), v.Index(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldByKey finds the field a dotted key names through the toml tags.
func fieldByKey(v reflect.Value, key string) (reflect.Value, bool) {
	for _, part := range strings.Split(key, ".") {
		found := false
		for i := 0; i < v.NumField(); i++ {
			if tomlName(v.Type().Field(i)) == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}, false
		}
	}
	return v, true
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// rangeOf is the range text of a key, or "" when it is not numeric.
func rangeOf(key string) string {
	for _, n := range numericKeys {
		if n.key == key {
			var c Config
			if v, ok := fieldByKey(reflect.ValueOf(&c).Elem(), key); ok {
				t := v.Type()
				if t.Kind() == reflect.Slice {
					t = t.Elem()
				}
				return n.rangeText(t)
			}
		}
	}
	return ""
}
