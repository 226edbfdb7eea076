//! The Rust structs have the C header's layout: sizes and offsets come from
//! tests/layout_probe.c, compiled against include/ by build.rs.
use std::mem::{offset_of, size_of};

use cuzk::supraseal::Assignment;
use cuzk::sys;

macro_rules! probes {
    ($($name:ident),*) => {
        extern "C" { $(fn $name() -> usize;)* }
    };
}

probes!(
    cuzk_probe_assignment_size, cuzk_probe_assignment_a, cuzk_probe_assignment_abc_size, cuzk_probe_assignment_aux_size,
    cuzk_probe_proof_size, cuzk_probe_proof_b, cuzk_probe_proof_c, cuzk_probe_fr_size, cuzk_probe_srs_size,
    cuzk_probe_rust_error_size, cuzk_probe_rust_error_message, cuzk_probe_request_size, cuzk_probe_request_flags,
    cuzk_probe_request_timeout, cuzk_probe_request_s, cuzk_probe_witness_size, cuzk_probe_result_size,
    cuzk_probe_result_report, cuzk_probe_error_size
);

#[test]
fn layouts_match_the_header() {
    unsafe {
        assert_eq!(size_of::<Assignment<[u64; 4]>>(), cuzk_probe_assignment_size());
        assert_eq!(offset_of!(Assignment<[u64; 4]>, a), cuzk_probe_assignment_a());
        assert_eq!(offset_of!(Assignment<[u64; 4]>, abc_size), cuzk_probe_assignment_abc_size());
        assert_eq!(offset_of!(Assignment<[u64; 4]>, aux_assignment_size), cuzk_probe_assignment_aux_size());
        assert_eq!(384, cuzk_probe_proof_size());
        assert_eq!(96, cuzk_probe_proof_b());
        assert_eq!(288, cuzk_probe_proof_c());
        assert_eq!(size_of::<[u64; 4]>(), cuzk_probe_fr_size());
        assert_eq!(size_of::<cuzk::supraseal::SRS>(), cuzk_probe_srs_size());
        assert_eq!(size_of::<sys::SRS>(), cuzk_probe_srs_size());
        assert_eq!(size_of::<sys::RustError>(), cuzk_probe_rust_error_size());
        assert_eq!(offset_of!(sys::RustError, message), cuzk_probe_rust_error_message());
        assert_eq!(size_of::<sys::cuzk_request>(), cuzk_probe_request_size());
        assert_eq!(offset_of!(sys::cuzk_request, flags), cuzk_probe_request_flags());
        assert_eq!(offset_of!(sys::cuzk_request, timeout_ms), cuzk_probe_request_timeout());
        assert_eq!(offset_of!(sys::cuzk_request, s), cuzk_probe_request_s());
        assert_eq!(size_of::<sys::cuzk_witness>(), cuzk_probe_witness_size());
        assert_eq!(size_of::<sys::cuzk_result>(), cuzk_probe_result_size());
        assert_eq!(offset_of!(sys::cuzk_result, report_json), cuzk_probe_result_report());
        assert_eq!(size_of::<sys::cuzk_error>(), cuzk_probe_error_size());
    }
}
