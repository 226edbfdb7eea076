package params

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/stretchr/testify/require"
)

// deviceChecker stands for a device's checker (not CPUChecker, so it gets
// each query whole): it checks on the CPU, logs each call's size and, when
// first is set, signals it at the start of its first call and then waits
// for release (nil: no wait).
type deviceChecker struct {
	mu      sync.Mutex
	calls   []int
	first   chan struct{}
	release chan struct{}
	once    sync.Once
	fail    bool // report the first point of every call bad (a broken check)
}

func (d *deviceChecker) call(n int) {
	d.mu.Lock()
	d.calls = append(d.calls, n)
	d.mu.Unlock()
	d.once.Do(func() {
		if d.first != nil {
			close(d.first)
		}
		if d.release != nil {
			<-d.release
		}
	})
}

func (d *deviceChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	d.call(len(p))
	if d.fail {
		return 0, nil
	}
	return CPUChecker{}.CheckSubgroupG1(p)
}

func (d *deviceChecker) CheckSubgroupG2(p []bls.G2Affine) (int, error) {
	d.call(len(p))
	if d.fail {
		return 0, nil
	}
	return CPUChecker{}.CheckSubgroupG2(p)
}

// The first query is checked before decoding ends: the decoder is held
// after its last section until the checker has been called, which a check
// run after the decode never is. Then every query is checked, whole (two
// at a time on a device checker, so in no fixed order).
func TestChecksOverlapDecoding(t *testing.T) {
	dir, path := keyFile(t, 31)
	pk, err := ReadProvingKey(path, Options{SkipSubgroupCheck: true})
	require.NoError(t, err)
	t.Cleanup(func() { sectionDecoded = nil })
	for _, rec := range []*Record{nil, OpenRecord(filepath.Join(dir, "empty"))} {
		chk := &deviceChecker{first: make(chan struct{})}
		overlapped := false
		sectionDecoded = func(name string) {
			if name == "b_g2" { // the last section decoded
				select {
				case <-chk.first:
					overlapped = true
				case <-time.After(10 * time.Second): // a deadlock guard, not a measure
				}
			}
		}
		_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
		require.NoError(t, err)
		require.Equal(t, ValidationChecked, info.Validation)
		require.True(t, overlapped, "record %v: the check started before decoding ended", rec != nil)
		require.ElementsMatch(t, []int{len(pk.H), len(pk.L), len(pk.A), len(pk.BG1), len(pk.BG2)}, chk.calls)
	}
}

// sequentialErr is the reference: decode everything, then check.
func sequentialErr(data []byte) error {
	pk, err := decodeCurve(data, Options{}, nil, nil)
	if err != nil {
		return err
	}
	return CheckSubgroups(pk, CPUChecker{}, nil)
}

// badKey is a key file with points corrupted and the error it must give
// (its text contains msg; it is the sequential one, sequentialErr).
type badKey struct {
	name     string
	bad      func(b []byte)
	msg      string
	truncate bool // the file also loses its last 10 bytes
}

// keyEdits returns editors of pk's file: put places an encoded point at
// point i of a section, flip changes a byte of one (off the curve).
func keyEdits(pk *ProvingKey) (put func(b []byte, section string, i int, p []byte), flip func(b []byte, section string, i int)) {
	put = func(b []byte, section string, i int, p []byte) { copy(b[sectionOffset(pk, section, i):], p) }
	flip = func(b []byte, section string, i int) { b[sectionOffset(pk, section, i)+G1Uncompressed-1] ^= 1 }
	return put, flip
}

// eachBadKey writes each case's file and runs check on it with the error
// of the stages run one after the other.
func eachBadKey(t *testing.T, good []byte, cases []badKey, check func(t *testing.T, c badKey, path string, data []byte, want error)) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := append([]byte(nil), good...)
			c.bad(data)
			if c.truncate {
				data = data[:len(data)-10]
			}
			want := sequentialErr(data)
			require.ErrorContains(t, want, c.msg)
			path := filepath.Join(t.TempDir(), "k.params")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			check(t, c, path, data, want)
		})
	}
}

// The error is the one of the stages run one after the other, whatever the
// timing: the first point off the subgroup in file order, or a format or
// curve error anywhere before it; the checker stops at the first failure.
func TestOverlappedErrorIsFirstBadPoint(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(33, 34)))
	put, flip := keyEdits(pk)
	cases := []badKey{
		{"two off subgroup", func(b []byte) { put(b, "l", 3, offSubgroupG1(t)); put(b, "b_g2", 1, offSubgroupG2(t)) }, "params: l[3]: point not in the prime-order subgroup", false},
		{"off subgroup in a vk point and h", func(b []byte) { copy(b[2*G1Uncompressed:], offSubgroupG2(t)); put(b, "h", 0, offSubgroupG1(t)) }, "params: beta_g2: point not in the prime-order subgroup", false},
		{"off subgroup then off curve", func(b []byte) { put(b, "h", 1, offSubgroupG1(t)); flip(b, "a", 2) }, "params: a[2]: point not on curve", false},
		{"off subgroup then truncated", func(b []byte) { put(b, "h", 1, offSubgroupG1(t)) }, "params: b_g2: truncated", true},
	}
	eachBadKey(t, keyBytes(t, pk), cases, func(t *testing.T, c badKey, path string, data []byte, want error) {
		for range 5 {
			chk := &deviceChecker{}
			_, err := ReadProvingKey(path, Options{Checker: chk, NbTasks: 2})
			require.Equal(t, want.Error(), err.Error())
			require.True(t, errors.Is(err, ErrNotInGroup) == errors.Is(want, ErrNotInGroup))
			if c.name == "two off subgroup" {
				// H and L (bad) are checked; of the later sections only
				// those a second worker took before L failed
				require.Subset(t, chk.calls, []int{len(pk.H), len(pk.L)})
			}
			_, err = DecodeProvingKey(data, Options{})
			require.Equal(t, want.Error(), err.Error())
		}
	})
}

// A record hit by content stops the check before the device is called:
// the check waits for the key (the decoded sections queue meanwhile).
func TestRecordHitSparesTheChecker(t *testing.T) {
	dir, path := keyFile(t, 35)
	rec := OpenRecord(dir) // the fresh file is not stamped: found by content
	require.NoError(t, rec.AddFile(path, ValidationSetup, 0))
	for range 5 {
		chk := &deviceChecker{}
		_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
		require.NoError(t, err)
		require.Equal(t, ValidationRecord, info.Validation)
		require.False(t, info.Stamped)
		require.Empty(t, chk.calls)
	}
}

// No load leaves a goroutine behind: not on success, a record hit, a
// decode error while a check is blocked in the device, nor a failed check.
func TestLoadLeavesNoGoroutine(t *testing.T) {
	pk := randomKey(rand.New(rand.NewPCG(37, 38)))
	good := keyBytes(t, pk)
	offCurve := append([]byte(nil), good...)
	offCurve[sectionOffset(pk, "b_g1", 1)+G1Uncompressed-1] ^= 1
	offGroup := append([]byte(nil), good...)
	copy(offGroup[sectionOffset(pk, "h", 0):], offSubgroupG1(t))
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	goodPath, curvePath, groupPath := write("good.params", good), write("curve.params", offCurve), write("group.params", offGroup)
	rec := OpenRecord(filepath.Join(dir, "rec"))
	require.NoError(t, rec.AddFile(goodPath, ValidationSetup, 0))

	base := runtime.NumGoroutine()
	_, err := ReadProvingKey(goodPath, Options{Checker: &deviceChecker{}})
	require.NoError(t, err)
	_, err = ReadProvingKey(goodPath, Options{Checker: &deviceChecker{}, Record: rec})
	require.NoError(t, err)
	// The checker is in its first call (h, held there a moment) when
	// decoding fails (b_g1).
	release := make(chan struct{})
	blocked := &deviceChecker{first: make(chan struct{}), release: release}
	sectionDecoded = func(name string) {
		if name == "a" {
			<-blocked.first
		}
	}
	go func() { <-blocked.first; time.Sleep(time.Millisecond); close(release) }()
	_, err = ReadProvingKey(curvePath, Options{Checker: blocked})
	sectionDecoded = nil
	require.ErrorIs(t, err, ErrNotOnCurve)
	_, err = ReadProvingKey(groupPath, Options{Checker: &deviceChecker{}})
	require.ErrorIs(t, err, ErrNotInGroup)

	for end := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	if runtime.NumGoroutine() > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines left behind:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// slowBadChecker finds H (3 points) slowly with its point 1 outside the
// subgroup, and fails on L (2 points) at once with a device error.
type slowBadChecker struct{}

func (slowBadChecker) CheckSubgroupG1(p []bls.G1Affine) (int, error) {
	switch len(p) {
	case 3:
		time.Sleep(50 * time.Millisecond)
		return 1, nil
	case 2:
		return -1, errors.New("device: out of memory")
	}
	return -1, nil
}

func (slowBadChecker) CheckSubgroupG2([]bls.G2Affine) (int, error) { return -1, nil }

// Of two failures in sections checked at once, the earlier in the file
// wins whatever its kind: H's point outside the subgroup, found after L's
// device error.
func TestEarlierFailureWinsOverLaterDeviceError(t *testing.T) {
	pk := &ProvingKey{H: make([]bls.G1Affine, 3), L: make([]bls.G1Affine, 2)}
	s := startChecks(slowBadChecker{}, 5, nil, nil)
	for _, set := range querySets(pk)[:2] {
		s.add(set)
	}
	err := s.finish(nil)
	require.ErrorIs(t, err, ErrNotInGroup)
	require.ErrorContains(t, err, "h[1]")
}

// With a record that holds no contents of the file's size, no hit is
// possible: the check starts at once instead of after the content hash.
// The hash here waits for the checker's first call, which a check that
// waited for the hash would never make (the test would time out). A
// record with contents of that size makes the check wait for the hash.
func TestCheckStartsBeforeTheHashWhenNoHitIsPossible(t *testing.T) {
	dir, path := keyFile(t, 41)
	rec := OpenRecord(filepath.Join(dir, "rec"))
	require.NoError(t, rec.Add(ContentKey{1}, 12345, "other.params", ValidationChecked))
	chk := &deviceChecker{first: make(chan struct{})}
	t.Cleanup(func() { hashContent = ContentKeyOf })
	hashContent = func(data []byte, nbTasks int) ContentKey {
		select {
		case <-chk.first:
		case <-time.After(30 * time.Second):
			t.Error("the check waited for the content hash")
		}
		return ContentKeyOf(data, nbTasks)
	}
	_, info, err := ReadProvingKeyInfo(path, Options{Checker: chk, Record: rec})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)

	// Recorded contents of the file's size: the check waits for the hash
	// (a hit would spare it).
	var checkedFirst atomic.Bool
	chk2 := &deviceChecker{first: make(chan struct{})}
	hashContent = func(data []byte, nbTasks int) ContentKey {
		select {
		case <-chk2.first:
			checkedFirst.Store(true)
		default:
		}
		return ContentKeyOf(data, nbTasks)
	}
	size := info.Size
	rec2 := OpenRecord(filepath.Join(dir, "rec2"))
	require.NoError(t, rec2.Add(ContentKey{2}, size, "same-size.params", ValidationChecked))
	_, info, err = ReadProvingKeyInfo(path, Options{Checker: chk2, Record: rec2})
	require.NoError(t, err)
	require.Equal(t, ValidationChecked, info.Validation)
	require.False(t, checkedFirst.Load(), "checked before the hash with a hit possible")
}
