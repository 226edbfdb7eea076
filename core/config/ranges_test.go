package config

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// numericLeaves walks Config's toml keys and returns every numeric one: an
// integer, a size, a duration, or a list of integers.
func numericLeaves(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := tomlName(f)
		if name == "" || name == "-" {
			continue
		}
		key := strings.TrimPrefix(prefix+"."+name, ".")
		ft := f.Type
		if ft.Kind() == reflect.Struct {
			keys = append(keys, numericLeaves(ft, key)...)
			continue
		}
		if ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
			keys = append(keys, key)
		}
	}
	return keys
}

// Every numeric key of Config has a range (a key added without one fails
// here), and the table names no key Config lacks.
func TestEveryNumericKeyHasARange(t *testing.T) {
	leaves := numericLeaves(reflect.TypeOf(Config{}), "")
	var table []string
	for _, n := range numericKeys {
		table = append(table, n.key)
	}
	require.ElementsMatch(t, leaves, table)
	def := Default()
	require.NoError(t, def.Validate(), "the defaults are in range")
}

// Every numeric key at 0, −1, 2^31, 2^63−1 and 2^64−1, written as a TOML
// integer and (sizes, durations) as a string with a unit: each is either
// accepted as exactly that value, inside the key's range, or refused
// naming the key and its range. Never accepted out of range.
func TestNumericKeysAtTheEdges(t *testing.T) {
	values := []string{"0", "-1", "2147483648", "9223372036854775807", "18446744073709551615"}
	for _, n := range numericKeys {
		sec, name, _ := strings.Cut(n.key, ".")
		field, _ := fieldByKey(reflect.ValueOf(&Config{}).Elem(), n.key)
		typ := field.Type()
		list := typ.Kind() == reflect.Slice
		if list {
			typ = typ.Elem()
		}
		var texts []string
		for _, v := range values {
			lit := v
			if list {
				lit = "[" + v + "]"
			}
			texts = append(texts, lit)
			switch typ {
			case reflect.TypeOf(Duration(0)):
				texts = append(texts, `"`+v+`ns"`)
			case reflect.TypeOf(Size(0)), reflect.TypeOf(AutoSize(0)):
				texts = append(texts, `"`+v+`"`, `"`+v+`B"`)
			}
		}
		for _, lit := range texts {
			text := fmt.Sprintf("[%s]\n%s = %s\n", sec, name, lit)
			cfg, err := Parse(text)
			if err != nil {
				require.Contains(t, err.Error(), n.key, text)
				if !strings.Contains(err.Error(), "want ") && !strings.Contains(err.Error(), "invalid ") {
					require.Contains(t, err.Error(), n.rangeText(typ), text)
				}
				continue
			}
			got, _ := fieldByKey(reflect.ValueOf(&cfg).Elem(), n.key)
			if list {
				require.Equal(t, 1, got.Len(), text)
				got = got.Index(0)
			}
			// Accepted: the value written, inside the range.
			want := strings.Trim(lit, `[]"nsB`)
			var asInt int64
			if got.Kind() == reflect.Uint64 {
				require.LessOrEqual(t, got.Uint(), uint64(math.MaxInt64), text)
				asInt = int64(got.Uint())
			} else {
				asInt = got.Int()
			}
			require.Equal(t, want, fmt.Sprint(asInt), text)
			if asInt != 0 || n.zero == "" {
				require.GreaterOrEqual(t, asInt, n.min, text)
				require.LessOrEqual(t, asInt, n.max, text)
			}
		}
	}
}

// JSON reaches the same checks, and the reference daemon's millisecond
// key is bounded as batch_wait is.
func TestNumericKeysJSONAndReference(t *testing.T) {
	_, err := Parse(`{"throttle": {"check_rows": 9223372036854775807}}`)
	require.ErrorContains(t, err, "throttle.check_rows: must be 1 to 1073741824")
	_, err = Parse(`{"throttle": {"check_rows": 18446744073709551615}}`)
	require.ErrorContains(t, err, "check_rows")
	_, err = Parse(`{"memory": {"budget": 9223372036854775807}}`)
	require.ErrorContains(t, err, "memory.budget: must be \"auto\" or 1B to 1024TiB")
	_, err = Parse("[scheduler]\nmax_batch_wait_ms = 9223372036854775807\n")
	require.ErrorContains(t, err, "scheduler.max_batch_wait_ms: want an integer of milliseconds from 0 to 3600000")
	cfg, err := Parse("[scheduler]\nmax_batch_wait_ms = 3600000\n")
	require.NoError(t, err)
	require.Equal(t, time.Hour, cfg.Scheduler.BatchWait.D())
	_, err = Parse("[gpus]\nmax_device_memory = \"9223372036854775807\"\n")
	require.ErrorContains(t, err, "gpus.max_device_memory")
	_, err = Parse("[gpus]\ndevices = [" + strings.Repeat("0,", maxDevices) + "0]\n")
	require.ErrorContains(t, err, "gpus.devices: at most 1024 entries")
}
