// Package units writes byte counts and durations for people: the one
// formatter of each that the command line and the library's messages use,
// so that a figure reads the same wherever it is printed ("peak reserved
// 14 MiB of budget 18.5 GiB", "load params: done in 1.23s"). Byte counts
// are in binary units (KiB, MiB, GiB, TiB, PiB); both keep three
// significant digits.
//
// The configuration's own syntax ("64GiB", exact, config.Size) is not
// this: it writes what a configuration file reads back.
package units

import (
	"strconv"
	"strings"
	"time"
)

var byteUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Bytes writes n in binary units to three significant digits: "512 B",
// "1.5 KiB", "14 MiB", "18.5 GiB".
func Bytes(n uint64) string {
	if n < 1024 {
		return strconv.FormatUint(n, 10) + " B"
	}
	v, i := float64(n), 0
	for v >= 1024 && i < len(byteUnits)-1 {
		v, i = v/1024, i+1
	}
	// 1023.7 KiB rounds to 1024 at three digits: that is 1 MiB
	if v >= 1023.5 && i < len(byteUnits)-1 {
		v, i = v/1024, i+1
	}
	return significant(v) + " " + byteUnits[i]
}

// significant writes v (1 ≤ v < 1024) to three significant digits, without
// trailing zeros: "14", "18.5", "1.02", "1000".
func significant(v float64) string {
	prec := 2
	switch {
	case v >= 99.95:
		prec = 0
	case v >= 9.995:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Duration writes d to three significant digits, in Go's notation:
// "450ms", "1.23s", "12.3s", "2m3s" (a minute or more to the second).
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	unit := time.Duration(1)
	for unit*1000 <= d {
		unit *= 10
	}
	return d.Round(unit).String()
}
