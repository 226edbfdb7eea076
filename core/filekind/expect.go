package filekind

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/cuzk/cuzk/core/internal/fileio"
)

// Expect is what a reader takes: who reads (a flag of the command line,
// "--wtns", or a call of the library, "cuzk_load_params") and the kinds of
// file it reads. When the reader fails, Explain says what the file is
// instead of what the reader tripped on: a witness given as parameters
// used to read "params: alpha_g1: invalid encoding flags".
type Expect struct {
	Name  string
	Kinds []Kind
	// Want says what Name takes when that is not a kind of file (a
	// configuration); Kinds is then empty.
	Want string
}

// Wants says what the reader takes: "a circom circuit (.r1cs) or a cuzk
// circuit file".
func (e Expect) Wants() string {
	if e.Want != "" {
		return e.Want
	}
	names := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		names[i] = k.String()
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Takes reports whether the reader takes files of kind k. A reader with
// no kinds (a configuration) takes what Sniff cannot tell from noise: no
// known kind, JSON of no known shape.
func (e Expect) Takes(k Kind) bool {
	if len(e.Kinds) == 0 {
		return k == Unknown || k == JSON
	}
	return slices.Contains(e.Kinds, k)
}

// WrongKind is the error of a reader given a file of a kind it does not
// take; it unwraps to the reader's own error.
type WrongKind struct {
	Expect Expect
	Path   string
	Info   Info
	Err    error
}

func (w *WrongKind) Error() string {
	return fmt.Sprintf("%s: %s is %s; %s takes %s", w.Expect.Name, w.Path, w.Info, w.Expect.Name, w.Expect.Wants())
}

func (w *WrongKind) Unwrap() error { return w.Err }

// Explain turns the error of a reader of path into one that says what
// went wrong in the reader's terms: for a file of a kind the reader does
// not take (of no kind cuzk knows, with its first bytes; JSON of another
// shape), what the file is and what the reader takes (a *WrongKind);
// for a file of its kind, the reader's error naming the file. Errors of
// access (missing, not a regular file) come back as they are.
func (e Expect) Explain(path string, err error) error {
	var pathErr *fs.PathError
	if err == nil || errors.As(err, &pathErr) || errors.Is(err, fileio.ErrNotRegular) {
		return err
	}
	info, serr := SniffFile(path)
	if serr != nil {
		return e.named(path, err)
	}
	return e.ExplainInfo(path, info, err)
}

// ExplainInfo is Explain for a file already sniffed.
func (e Expect) ExplainInfo(path string, info Info, err error) error {
	if err == nil {
		return nil
	}
	if e.Takes(info.Kind) {
		return e.named(path, err)
	}
	return &WrongKind{Expect: e, Path: path, Info: info, Err: err}
}

// named is err with the reader and the file named, once.
func (e Expect) named(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	return fmt.Errorf("%s: %s: %w", e.Name, path, err)
}
