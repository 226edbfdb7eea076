// Package sysmem reads how much memory this process may use: the machine's
// physical memory (/proc/meminfo's MemTotal) or, when lower, the limit of
// the process's memory cgroup (v2 memory.max, or v1
// memory.limit_in_bytes). A container's quota is what the kernel enforces:
// a budget sized from MemTotal alone gets the process killed inside one.
package sysmem

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Total returns the bytes this process may use on this machine.
func Total() (uint64, error) { return TotalAt("/") }

// TotalAt is Total with /proc and /sys under root (tests).
func TotalAt(root string) (uint64, error) {
	total, err := memTotal(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return 0, err
	}
	if limit, ok := cgroupLimit(root); ok && limit < total {
		return limit, nil
	}
	return total, nil
}

func memTotal(path string) (uint64, error) { return meminfoField(path, "MemTotal:") }

// Available returns the bytes this process could map now without the
// kernel reclaiming anything it cannot (/proc/meminfo's MemAvailable:
// free memory and reclaimable page cache, not tmpfs or /dev/shm pages),
// or, when lower, what its memory cgroup leaves: the limit less what the
// cgroup holds beyond its inactive file pages.
func Available() (uint64, error) { return AvailableAt("/") }

// AvailableAt is Available with /proc and /sys under root (tests).
func AvailableAt(root string) (uint64, error) {
	avail, err := meminfoField(filepath.Join(root, "proc/meminfo"), "MemAvailable:")
	if err != nil {
		return 0, err
	}
	for _, p := range cgroupFiles(root) {
		if filepath.Base(p) != "memory.max" {
			continue // v1 has no memory.current; MemAvailable stands
		}
		limit, ok := readLimit(p)
		if !ok {
			continue
		}
		dir := filepath.Dir(p)
		cur, err := readUint(filepath.Join(dir, "memory.current"))
		if err != nil {
			continue
		}
		used := cur - min(cur, statField(filepath.Join(dir, "memory.stat"), "inactive_file"))
		return min(avail, limit-min(limit, used)), nil
	}
	return avail, nil
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

// statField returns a field of a cgroup's memory.stat (0 when absent).
func statField(path, name string) uint64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			v, _ := strconv.ParseUint(f[1], 10, 64)
			return v
		}
	}
	return 0
}

// meminfoField reads one "Name:   N kB" line of /proc/meminfo, in bytes.
func meminfoField(path, field string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("sysmem: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "MemTotal:       24589732 kB"
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == field {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil || kb > 1<<50 || kb == 0 && field == "MemTotal:" {
				return 0, fmt.Errorf("sysmem: %s: bad %s %q", path, strings.TrimSuffix(field, ":"), fields[1])
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("sysmem: %s: no %s line", path, strings.TrimSuffix(field, ":"))
}

// cgroupLimit returns the memory limit of this process's cgroup, if one is
// set (v2 "max" and v1's huge sentinel mean none).
func cgroupLimit(root string) (uint64, bool) {
	for _, p := range cgroupFiles(root) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if string(bytes.TrimSpace(b)) == "max" {
			return 0, false
		}
		if v, ok := readLimit(p); ok {
			return v, true
		}
	}
	return 0, false
}

// readLimit reads a cgroup limit file: a number of bytes ("max" and v1's
// huge sentinel are no limit).
func readLimit(path string) (uint64, bool) {
	v, err := readUint(path)
	if err != nil || v == 0 || v >= 1<<62 {
		return 0, false
	}
	return v, true
}

// cgroupFiles lists the candidate limit files: the process's own cgroup
// (from /proc/self/cgroup) under the v2 and v1 mounts, then the mounts'
// roots (a container usually sees its own cgroup as the root).
func cgroupFiles(root string) []string {
	var out []string
	b, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			// v2: "0::/path"; v1: "N:memory:/path"
			parts := strings.SplitN(line, ":", 3)
			if len(parts) != 3 || strings.Contains(parts[2], "..") {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				out = append(out, filepath.Join(root, "sys/fs/cgroup", parts[2], "memory.max"))
			case strings.Contains(","+parts[1]+",", ",memory,"):
				out = append(out, filepath.Join(root, "sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"))
			}
		}
	}
	return append(out,
		filepath.Join(root, "sys/fs/cgroup/memory.max"),
		filepath.Join(root, "sys/fs/cgroup/memory/memory.limit_in_bytes"))
}

// ErrTooSmall is returned by Budget when the margin leaves nothing.
var ErrTooSmall = errors.New("sysmem: the safety margin is at least the memory available")

// Budget is total less margin.
func Budget(total, margin uint64) (uint64, error) {
	if margin >= total {
		return 0, fmt.Errorf("%w (%d bytes, margin %d)", ErrTooSmall, total, margin)
	}
	return total - margin, nil
}
