package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Size is a byte count; it reads "64GiB", "512MiB", "1.5GB", "4096" or a
// plain integer, and prints in binary units.
type Size uint64

// Binary size units.
const (
	KiB Size = 1 << (10 * (iota + 1))
	MiB
	GiB
	TiB
)

var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3}, {"B", 1},
}

// ParseSize reads a size with an optional unit.
func ParseSize(s string) (Size, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*mult >= math.MaxUint64 {
		return 0, fmt.Errorf("invalid size %q (want e.g. \"64GiB\", \"512MiB\" or a byte count)", shown(s))
	}
	return Size(v * mult), nil
}

func (s Size) String() string {
	for _, u := range sizeUnits[:4] {
		if m := Size(u.mult); s >= m && s%m == 0 {
			return fmt.Sprintf("%d%s", s/m, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", uint64(s))
}

// UnmarshalTOML accepts a string with a unit or an integer byte count.
func (s *Size) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := ParseSize(x)
		*s = p
		return err
	case int64:
		if x < 0 {
			return fmt.Errorf("invalid size %d: negative", x)
		}
		*s = Size(x)
		return nil
	case float64:
		return s.UnmarshalTOML(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return fmt.Errorf("invalid size %v: want a string like \"64GiB\" or a byte count", v)
}

// MarshalText prints the size with its unit.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON prints the size as a string with its unit.
func (s Size) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Duration is a time.Duration read from Go syntax ("30s", "250ms").
type Duration time.Duration

// D returns the time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalTOML accepts "30s"-style strings (and 0).
func (d *Duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("invalid duration %q (want e.g. \"30s\", \"250ms\")", shown(x))
		}
		*d = Duration(p)
		return nil
	case int64:
		if x == 0 {
			*d = 0
			return nil
		}
	}
	return fmt.Errorf("invalid duration %v: want a string like \"30s\"", v)
}

// MarshalText prints Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// MarshalJSON prints Go syntax as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// AutoSize is a Size that may be "auto" (stored as 0): the engine resolves
// it from the machine when it starts.
type AutoSize Size

// Auto reports whether the size is left to the engine.
func (s AutoSize) Auto() bool { return s == 0 }

func (s AutoSize) String() string {
	if s.Auto() {
		return "auto"
	}
	return Size(s).String()
}

// UnmarshalTOML accepts "auto", or a size as Size does (which must not be 0).
func (s *AutoSize) UnmarshalTOML(v any) error {
	if str, ok := v.(string); ok && strings.TrimSpace(str) == "auto" {
		*s = 0
		return nil
	}
	var z Size
	if err := z.UnmarshalTOML(v); err != nil {
		return err
	}
	if z == 0 {
		return fmt.Errorf("invalid size 0: want \"auto\" or a positive size")
	}
	*s = AutoSize(z)
	return nil
}

// MarshalText prints "auto" or the size with its unit.
func (s AutoSize) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON prints "auto" or the size as a string with its unit.
func (s AutoSize) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
