package params

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cuzk/cuzk/core/internal/fileio"
	"github.com/cuzk/cuzk/core/progress"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// VerifyingKey is the part of the parameters a verifier needs.
type VerifyingKey struct {
	Alpha1, Beta1, Delta1 bls.G1Affine
	Beta2, Gamma2, Delta2 bls.G2Affine
	// IC has one point per public input, the constant ONE first.
	IC []bls.G1Affine
}

// ProvingKey is a whole parameter file.
type ProvingKey struct {
	VerifyingKey
	H   []bls.G1Affine // N-1 points: τ^i·Z(τ)/δ
	L   []bls.G1Affine // one per aux variable
	A   []bls.G1Affine // inputs, then aux variables with their A-density bit set
	BG1 []bls.G1Affine // B-input-density inputs, then B-aux-density aux
	BG2 []bls.G2Affine // same selection as BG1, in G2

	file *keptFile // the file's descriptor, for sections read off the heap (hostmem.go)
}

// Options control decoding.
type Options struct {
	// SkipSubgroupCheck skips the prime-order subgroup check (points are
	// still checked to be on the curve). Only for files from a trusted
	// source: the check dominates decoding time.
	SkipSubgroupCheck bool
	// NbTasks bounds the goroutines used to decode; 0 means GOMAXPROCS.
	NbTasks int
	// Checker runs the subgroup check; nil means CPUChecker{NbTasks}.
	Checker SubgroupChecker
	// Record, when set, lets ReadProvingKey skip the subgroup check of
	// contents validated before, and remembers the contents it validates.
	Record *Record
	// Manifest, when set, lets ReadProvingKey trust a file whose base name
	// it lists and whose BLAKE2b digest matches. Leave it nil when Checker
	// outruns BLAKE2b (~1 GB/s on one core), as a GPU does.
	Manifest Manifest
	// OffHeap puts the large query sections of a key read from a file
	// (ReadProvingKey) in mappings of their own, whose pages can be given
	// back once a device holds them (hostmem.go).
	OffHeap bool
	// src is the file being read, for sections off the heap.
	src *source
	// Progress, when set, is told how a long load advances: the event's
	// stage is one of the Stage constants, counted in bytes (points for
	// StageSubgroup). Calls are serialised (progress.Serialised); see
	// progress.RateLimited.
	Progress progress.Func
}

// Stages of a load, as reported to Options.Progress.
const (
	StageDecode   = "decode"   // parsing and curve checks, bytes
	StageDigest   = "digest"   // BLAKE2b against the manifest, bytes
	StageSubgroup = "subgroup" // subgroup check, points
)

func (o Options) tasks() int {
	if o.NbTasks > 0 {
		return o.NbTasks
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) checker() SubgroupChecker {
	if o.Checker != nil {
		return o.Checker
	}
	return CPUChecker{NbTasks: o.NbTasks}
}

// reader walks a byte slice section by section.
type reader struct {
	data     []byte
	off      int
	opt      Options
	subgroup bool // check each point's subgroup while decoding
	// decoded counts the bytes of point sections decoded, for progress.
	decoded  atomic.Int64
	progress progress.Func
	// regs collects the off-heap sections made (nil: none are).
	regs *[]*hostRegion
}

func (r *reader) take(section string, n int) ([]byte, error) {
	if n < 0 || len(r.data)-r.off < n {
		return nil, fmt.Errorf("params: %s: %w: need %d bytes at offset %d, file has %d", section, ErrTruncated, n, r.off, len(r.data))
	}
	b := r.data[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) count(section string, size int) (int, error) {
	b, err := r.take(section+" count", 4)
	if err != nil {
		return 0, err
	}
	n := int(binary.BigEndian.Uint32(b))
	if left := len(r.data) - r.off; n > left/size {
		return 0, fmt.Errorf("params: %s: %w: count %d needs %d bytes, %d left", section, ErrTruncated, n, n*size, left)
	}
	return n, nil
}

func (r *reader) g1(section string, p *bls.G1Affine) error {
	b, err := r.take(section, G1Uncompressed)
	if err != nil {
		return err
	}
	if err := decodeG1(b, p, r.subgroup); err != nil {
		return fmt.Errorf("params: %s: %w", section, err)
	}
	return nil
}

func (r *reader) g2(section string, p *bls.G2Affine) error {
	b, err := r.take(section, G2Uncompressed)
	if err != nil {
		return err
	}
	if err := decodeG2(b, p, r.subgroup); err != nil {
		return fmt.Errorf("params: %s: %w", section, err)
	}
	return nil
}

func (r *reader) g1s(section string) ([]bls.G1Affine, error) {
	return r.g1sTo(section, nil)
}

// g1sTo decodes a G1 section; start, when set, is given the section's
// slice before any point is decoded into it and returns a function called
// with each range [from, to) once decoded (nil: none).
func (r *reader) g1sTo(section string, start func([]bls.G1Affine) func(from, to int)) ([]bls.G1Affine, error) {
	n, err := r.count(section, G1Uncompressed)
	if err != nil {
		return nil, err
	}
	at := r.off
	b, _ := r.take(section, n*G1Uncompressed)
	out := mapPoints[bls.G1Affine](n, r.opt, at, r.regs)
	var decoded func(from, to int)
	if start != nil {
		decoded = start(out)
	}
	err = r.decodeParallel(section, n, G1Uncompressed, func(i int) error {
		return decodeG1(b[i*G1Uncompressed:], &out[i], r.subgroup)
	}, decoded)
	return out, err
}

// g2sTo is g1sTo for G2.
func (r *reader) g2sTo(section string, start func([]bls.G2Affine) func(from, to int)) ([]bls.G2Affine, error) {
	n, err := r.count(section, G2Uncompressed)
	if err != nil {
		return nil, err
	}
	at := r.off
	b, _ := r.take(section, n*G2Uncompressed)
	out := mapPoints[bls.G2Affine](n, r.opt, at, r.regs)
	var decoded func(from, to int)
	if start != nil {
		decoded = start(out)
	}
	err = r.decodeParallel(section, n, G2Uncompressed, func(i int) error {
		return decodeG2(b[i*G2Uncompressed:], &out[i], r.subgroup)
	}, decoded)
	return out, err
}

// minDecodeBlock is the fewest points a decoding goroutine takes at a time
// (tests lower it to split small sections).
var minDecodeBlock = 1024

// decodeParallel runs decode(i) for i in [0, n) on the reader's
// goroutines, in blocks taken in turn (so that the first blocks are done
// first: a range-by-range check starts early), calling decoded, when set,
// with each block once decoded without error. It reports the failure with
// the lowest index, so errors are deterministic.
func (r *reader) decodeParallel(section string, n, size int, decode func(i int) error, decoded func(from, to int)) error {
	nbTasks := min(r.opt.tasks(), n)
	if nbTasks < 1 {
		return nil
	}
	// Blocks of checkChunk points at most (a device check's range), at
	// least four a goroutine when the section is small.
	block := min(checkChunk, max(minDecodeBlock, (n+4*nbTasks-1)/(4*nbTasks)))
	var next atomic.Int64
	var mu sync.Mutex
	firstBad, firstErr := n, error(nil)
	var wg sync.WaitGroup
	for range nbTasks {
		wg.Go(func() {
			for {
				from := int(next.Add(int64(block))) - block
				if from >= n {
					return
				}
				to := min(from+block, n)
				mu.Lock()
				past := from > firstBad // an earlier failure is known
				mu.Unlock()
				if past {
					continue
				}
				i := from
				// The points are read from a mapping: guard this goroutine
				// against the file shrinking underneath.
				err := fileio.Guard(r.data, func() error {
					for ; i < to; i++ {
						if err := decode(i); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					mu.Lock()
					if i < firstBad {
						firstBad, firstErr = i, err
					}
					mu.Unlock()
					continue
				}
				if r.progress != nil {
					r.progress(progress.Event{Stage: StageDecode, Done: r.decoded.Add(int64(to-from) * int64(size)), Total: int64(len(r.data)), Unit: progress.Bytes})
				}
				if decoded != nil {
					decoded(from, to)
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("params: %s[%d]: %w", section, firstBad, firstErr)
	}
	return nil
}

func (r *reader) verifyingKey() (*VerifyingKey, error) {
	vk := new(VerifyingKey)
	steps := []error{
		r.g1("alpha_g1", &vk.Alpha1),
		r.g1("beta_g1", &vk.Beta1),
		r.g2("beta_g2", &vk.Beta2),
		r.g2("gamma_g2", &vk.Gamma2),
		r.g1("delta_g1", &vk.Delta1),
		r.g2("delta_g2", &vk.Delta2),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	var err error
	if vk.IC, err = r.g1s("ic"); err != nil {
		return nil, err
	}
	return vk, nil
}

// DecodeProvingKey parses a whole parameter file held in memory and, unless
// opt.SkipSubgroupCheck, runs the subgroup checker over every point, each
// section as soon as it is decoded.
func DecodeProvingKey(data []byte, opt Options) (*ProvingKey, error) {
	opt.Progress = progress.Serialised(opt.Progress)
	if opt.SkipSubgroupCheck {
		return decodeCurve(data, opt, nil, nil)
	}
	checks := startChecks(opt.checker(), pointTotal(data), opt.Progress, nil)
	pk, err := decodeCurve(data, opt, checks, nil)
	if err = checks.finish(err); err != nil {
		return nil, err
	}
	return pk, nil
}

// sectionDecoded, when set (by tests), is called as decodeCurve finishes
// each query section, to hold the decoder there.
var sectionDecoded func(name string)

// decodeCurve parses a parameter file, checking that every point is on the
// curve but not its subgroup. emit, when set, is given each section as
// soon as it is decoded, in file order: the verifying key's, then H, L, A,
// B_G1 and B_G2. The G1 sections decode fastest, so the device's checks
// start early and stay busy while B_G2 (the slowest to decode) is read;
// B_G2 first measured worse (create_SRS of a 2^24 file validated 7.6 s
// against 4.2 s unchecked on the H200: its ~2 s decode left the device
// idle). Errors do not depend on the order: the first format or curve
// error in file order wins.
func decodeCurve(data []byte, opt Options, checks *sectionChecks, regs *[]*hostRegion) (*ProvingKey, error) {
	r := &reader{data: data, opt: opt, progress: opt.Progress}
	vk, err := r.verifyingKey()
	if err != nil {
		return nil, err
	}
	if checks != nil {
		for _, s := range vkSets(vk) {
			checks.add(s)
		}
	}
	// Where each section starts (its count), scanned in file order so
	// that a count or size error is the one a sequential read would meet.
	names := [5]string{"h", "l", "a", "b_g1", "b_g2"}
	var at [5]int
	scan := &reader{data: data, off: r.off}
	for i, name := range names {
		size := G1Uncompressed
		if i == 4 {
			size = G2Uncompressed
		}
		at[i] = scan.off
		n, err := scan.count(name, size)
		if err != nil {
			return nil, err
		}
		scan.off += n * size
	}
	pk := &ProvingKey{VerifyingKey: *vk}
	dst := [4]*[]bls.G1Affine{&pk.H, &pk.L, &pk.A, &pk.BG1}
	var errs [5]error
	// A checker that takes ranges gets each range of a section as it is
	// decoded; another gets the whole section once decoded.
	// start places a section's slice in pk before its points decode and
	// returns how its decoded ranges reach the checker (nil: the whole
	// section is handed over once decoded).
	start := func(i int) func(from, to int) {
		if checks == nil {
			return nil
		}
		return checks.section(querySets(pk)[i])
	}
	for i := range 5 {
		sr := &reader{data: data, off: at[i], opt: opt, progress: opt.Progress, regs: regs}
		if i == 4 {
			pk.BG2, errs[i] = sr.g2sTo(names[i], func(p []bls.G2Affine) func(int, int) { pk.BG2 = p; return start(i) })
		} else {
			*dst[i], errs[i] = sr.g1sTo(names[i], func(p []bls.G1Affine) func(int, int) { *dst[i] = p; return start(i) })
		}
		if errs[i] != nil {
			if i < 4 {
				return nil, firstError(errs[:])
			}
			continue // an error in H..B_G1 would come first in file order
		}
		if checks != nil && checks.rc == nil {
			checks.add(querySets(pk)[i])
		}
		if sectionDecoded != nil {
			sectionDecoded(names[i])
		}
	}
	if err := firstError(errs[:]); err != nil {
		return nil, err
	}
	if left := len(data) - scan.off; left != 0 {
		return nil, fmt.Errorf("params: %w: %d bytes after b_g2", ErrTrailingData, left)
	}
	return pk, nil
}

// firstError returns the first non-nil error.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pointTotal returns the number of points data's section counts add up
// to, for progress; a malformed file, which fails to decode, counts what
// can be read.
func pointTotal(data []byte) int64 {
	r := &reader{data: data}
	if _, err := r.take("vk", 3*G1Uncompressed+3*G2Uncompressed); err != nil {
		return 0
	}
	total := int64(6)
	for _, size := range []int{G1Uncompressed, G1Uncompressed, G1Uncompressed, G1Uncompressed, G1Uncompressed, G2Uncompressed} {
		n, err := r.count("", size)
		if err != nil {
			break
		}
		r.off += n * size
		total += int64(n)
	}
	return total
}

// DecodeVerifyingKey parses a .vk file, or the verifying-key prefix of a
// whole parameter file. In the second case the rest of the file is checked
// for structure (section counts against sizes) but its points are not
// decoded.
func DecodeVerifyingKey(data []byte, opt Options) (*VerifyingKey, error) {
	r := &reader{data: data, opt: opt, subgroup: !opt.SkipSubgroupCheck}
	vk, err := r.verifyingKey()
	if err != nil {
		return nil, err
	}
	if r.off == len(data) {
		return vk, nil
	}
	for _, s := range []struct {
		name string
		size int
	}{{"h", G1Uncompressed}, {"l", G1Uncompressed}, {"a", G1Uncompressed}, {"b_g1", G1Uncompressed}, {"b_g2", G2Uncompressed}} {
		n, err := r.count(s.name, s.size)
		if err != nil {
			return nil, err
		}
		r.off += n * s.size
	}
	if left := len(data) - r.off; left != 0 {
		return nil, fmt.Errorf("params: %w: %d bytes after b_g2", ErrTrailingData, left)
	}
	return vk, nil
}

// ReadVerifyingKey reads a .vk file or the verifying key of a .params file.
func ReadVerifyingKey(path string, opt Options) (*VerifyingKey, error) {
	var vk *VerifyingKey
	err := fileio.Decode("params", path, func(data []byte) (err error) {
		vk, err = DecodeVerifyingKey(data, opt)
		return err
	})
	return vk, err
}

// WriteTo writes the verifying key (a .vk file).
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	vk.write(cw)
	return cw.n, cw.flush()
}

func (vk *VerifyingKey) write(w *countingWriter) {
	w.g1(&vk.Alpha1)
	w.g1(&vk.Beta1)
	w.g2(&vk.Beta2)
	w.g2(&vk.Gamma2)
	w.g1(&vk.Delta1)
	w.g2(&vk.Delta2)
	w.g1s(vk.IC)
}

// WriteTo writes the whole parameter file.
func (pk *ProvingKey) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	pk.VerifyingKey.write(cw)
	for _, s := range [][]bls.G1Affine{pk.H, pk.L, pk.A, pk.BG1} {
		cw.g1s(s)
	}
	cw.count(len(pk.BG2))
	for i := range pk.BG2 {
		cw.g2(&pk.BG2[i])
	}
	return cw.n, cw.flush()
}

// WriteFile writes pk to path through a temporary file and a rename, so a
// reader never sees a half-written file.
func (pk *ProvingKey) WriteFile(path string) error {
	return wrapIO(fileio.WriteAtomic(path, func(w io.Writer) error { _, err := pk.WriteTo(w); return err }))
}

// WriteFile writes vk to path (a .vk file) atomically.
func (vk *VerifyingKey) WriteFile(path string) error {
	return wrapIO(fileio.WriteAtomic(path, func(w io.Writer) error { _, err := vk.WriteTo(w); return err }))
}

// wrapIO prefixes file-system errors with the package name.
func wrapIO(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("params: %w", err)
}

type countingWriter struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [G2Uncompressed]byte
}

func (c *countingWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

func (c *countingWriter) count(n int) {
	binary.BigEndian.PutUint32(c.buf[:4], uint32(n))
	c.write(c.buf[:4])
}

func (c *countingWriter) g1(p *bls.G1Affine) {
	encodeG1(c.buf[:], p)
	c.write(c.buf[:G1Uncompressed])
}

func (c *countingWriter) g2(p *bls.G2Affine) {
	encodeG2(c.buf[:], p)
	c.write(c.buf[:G2Uncompressed])
}

func (c *countingWriter) g1s(ps []bls.G1Affine) {
	c.count(len(ps))
	for i := range ps {
		c.g1(&ps[i])
	}
}

func (c *countingWriter) flush() error {
	if c.err != nil {
		return c.err
	}
	return c.w.Flush()
}
