package sysmem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

const meminfo = "MemTotal:       131072000 kB\nMemFree:        1000 kB\n"

func TestTotalFromMeminfo(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", meminfo)
	got, err := TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(131072000)<<10, got)
}

func TestCgroupV2LimitBelowMachine(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", meminfo)
	write(t, root, "proc/self/cgroup", "0::/kubepods/pod1\n")
	write(t, root, "sys/fs/cgroup/kubepods/pod1/memory.max", "68719476736\n")
	got, err := TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(64)<<30, got)
}

func TestCgroupV2Unlimited(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", meminfo)
	write(t, root, "proc/self/cgroup", "0::/\n")
	write(t, root, "sys/fs/cgroup/memory.max", "max\n")
	got, err := TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(131072000)<<10, got)
}

func TestCgroupV1LimitAndSentinel(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", meminfo)
	write(t, root, "proc/self/cgroup", "5:cpuacct,cpu:/x\n4:memory:/docker/abc\n")
	write(t, root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "34359738368\n")
	got, err := TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(32)<<30, got)

	// v1 reports "no limit" as a huge number
	write(t, root, "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n")
	got, err = TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(131072000)<<10, got)
}

func TestLimitAboveMachineIgnored(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", meminfo)
	write(t, root, "sys/fs/cgroup/memory.max", "999999999999999\n")
	got, err := TotalAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(131072000)<<10, got)
}

func TestBadMeminfo(t *testing.T) {
	root := t.TempDir()
	_, err := TotalAt(root)
	require.Error(t, err)
	write(t, root, "proc/meminfo", "MemFree: 12 kB\n")
	_, err = TotalAt(root)
	require.ErrorContains(t, err, "no MemTotal")
	write(t, root, "proc/meminfo", "MemTotal: lots kB\n")
	_, err = TotalAt(root)
	require.ErrorContains(t, err, "bad MemTotal")
}

func TestThisMachine(t *testing.T) {
	got, err := Total()
	require.NoError(t, err)
	require.Greater(t, got, uint64(1)<<28, "a machine that runs the tests has more than 256 MiB")
}

func TestBudget(t *testing.T) {
	b, err := Budget(24<<30, 5<<30)
	require.NoError(t, err)
	require.EqualValues(t, uint64(19)<<30, b)
	_, err = Budget(4<<30, 5<<30)
	require.ErrorIs(t, err, ErrTooSmall)
}

// Available is MemAvailable, or what a v2 cgroup leaves when less: its
// limit less what it holds beyond inactive file pages (which the kernel
// reclaims for the cgroup's own allocations).
func TestAvailable(t *testing.T) {
	root := t.TempDir()
	write(t, root, "proc/meminfo", "MemTotal:       131072000 kB\nMemAvailable:    50000000 kB\n")
	got, err := AvailableAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(50000000)<<10, got, "no cgroup: MemAvailable")

	write(t, root, "proc/self/cgroup", "0::/svc\n")
	write(t, root, "sys/fs/cgroup/svc/memory.max", "34359738368\n")                       // 32 GiB
	write(t, root, "sys/fs/cgroup/svc/memory.current", "25769803776\n")                   // 24 GiB
	write(t, root, "sys/fs/cgroup/svc/memory.stat", "anon 1\ninactive_file 4294967296\n") // 4 GiB
	got, err = AvailableAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(12)<<30, got, "32 GiB less 24 GiB held, 4 GiB of it reclaimable")

	write(t, root, "sys/fs/cgroup/svc/memory.current", "40000000000\n") // over the limit
	got, err = AvailableAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(0), got)

	write(t, root, "sys/fs/cgroup/svc/memory.max", "max\n")
	got, err = AvailableAt(root)
	require.NoError(t, err)
	require.EqualValues(t, uint64(50000000)<<10, got, "no limit: MemAvailable")

	write(t, root, "proc/meminfo", "MemTotal:       131072000 kB\n")
	_, err = AvailableAt(root)
	require.ErrorContains(t, err, "no MemAvailable line")
}

func TestAvailableHere(t *testing.T) {
	avail, err := Available()
	require.NoError(t, err)
	total, err := Total()
	require.NoError(t, err)
	require.LessOrEqual(t, avail, total)
}
