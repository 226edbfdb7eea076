package service

import (
	"bytes"
	"encoding/json"
	"sort"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk/cuzk/core/engine"
	"github.com/cuzk/cuzk/core/params"
)

// Status is the library's status document (cuzk_status_json, GET /status):
// what the service holds beside the engine's snapshot. Its JSON is one
// object, the engine's members inline after the service's, snake_case,
// durations in seconds, every list [] when empty.
type Status struct {
	Version string `json:"version"`
	// MetricsListen is the address the listener is bound to ("" when
	// metrics.listen is off): with port 0 configured, the port it took.
	MetricsListen string          `json:"metrics_listen"`
	Circuits      []CircuitStatus `json:"circuits"`
	ParameterSets []ParamsStatus  `json:"parameter_sets"`
	SRSCache      []SRSStatus     `json:"srs_cache"`
	Engine        engine.Status   `json:"-"` // inline
}

// CircuitStatus is a registered constraint system.
type CircuitStatus struct {
	ID          string `json:"id"`
	Constraints int    `json:"constraints"`
	Inputs      int    `json:"inputs"` // the constant ONE included
	Aux         int    `json:"aux"`
	// Parameters says whether parameters are loaded for it (ParameterSets).
	Parameters bool `json:"parameters_loaded"`
}

// ParamsStatus is a parameter set loaded for a circuit (cuzk_load_params).
type ParamsStatus struct {
	Circuit string `json:"circuit"`
	Path    string `json:"path"`
	Bytes   uint64 `json:"bytes"` // host memory of the decoded points
}

// SRSStatus is an entry of the SRS cache (supraseal-c2's create_SRS).
type SRSStatus struct {
	Path  string `json:"path"`
	Bytes uint64 `json:"bytes"` // host memory of the decoded points
	// Handles are the host's open handles on it (the cache's own not
	// counted): an entry with none is the next to go when a fifth path
	// is opened, the least recently opened first.
	Handles int64 `json:"handles"`
}

// MarshalJSON writes the service's members, then the engine's.
func (st Status) MarshalJSON() ([]byte, error) {
	type fields Status // without this method
	own, err := json.Marshal(fields(st))
	if err != nil {
		return nil, err
	}
	eng, err := json.Marshal(st.Engine)
	if err != nil {
		return nil, err
	}
	return joinObjects(own, eng), nil
}

// joinObjects joins the members of two JSON objects into one.
func joinObjects(a, b []byte) []byte {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	out := append([]byte(nil), a[:len(a)-1]...)
	if len(a) > 2 && len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}

// Status returns a snapshot, starting the engine if it is not running.
func (s *Service) Status() (Status, error) {
	eng, err := s.engine()
	if err != nil {
		return Status{}, err
	}
	st := Status{Engine: eng.Status(), Circuits: []CircuitStatus{}, ParameterSets: []ParamsStatus{}, SRSCache: []SRSStatus{}}
	s.mu.Lock()
	st.Version = s.version
	if s.http != nil {
		st.MetricsListen = s.http.ln.Addr().String()
	}
	for id, c := range s.circuits {
		if c.cs != nil {
			st.Circuits = append(st.Circuits, CircuitStatus{ID: id, Constraints: c.cs.NumConstraints,
				Inputs: c.cs.NumInputs, Aux: c.cs.NumAux, Parameters: c.pk != nil})
		}
		if c.pk != nil {
			st.ParameterSets = append(st.ParameterSets, ParamsStatus{Circuit: id, Path: c.pkPath, Bytes: keyBytes(c.pk)})
		}
	}
	for path, h := range s.srs {
		st.SRSCache = append(st.SRSCache, SRSStatus{Path: path, Bytes: keyBytes(h.pk), Handles: h.refs.Load() - 1})
	}
	s.mu.Unlock()
	sort.Slice(st.Circuits, func(i, j int) bool { return st.Circuits[i].ID < st.Circuits[j].ID })
	sort.Slice(st.ParameterSets, func(i, j int) bool { return st.ParameterSets[i].Circuit < st.ParameterSets[j].Circuit })
	sort.Slice(st.SRSCache, func(i, j int) bool { return st.SRSCache[i].Path < st.SRSCache[j].Path })
	return st, nil
}

// StatusJSON returns Status as indented JSON.
func (s *Service) StatusJSON() ([]byte, error) {
	st, err := s.Status()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, js, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// keyBytes is the host memory of a decoded proving key's points (affine,
// as gnark-crypto holds them: 96 bytes a G1 point, 192 a G2 point).
func keyBytes(pk *params.ProvingKey) uint64 {
	g1 := uint64(unsafe.Sizeof(bls.G1Affine{}))
	g2 := uint64(unsafe.Sizeof(bls.G2Affine{}))
	n1 := 3 + len(pk.IC) + len(pk.H) + len(pk.L) + len(pk.A) + len(pk.BG1) // alpha, beta, delta
	n2 := 3 + len(pk.BG2)                                                  // beta, gamma, delta
	return uint64(n1)*g1 + uint64(n2)*g2
}
