//! Fixture loading shared by the integration tests; fixture.rs says where
//! the files come from (generated on first use, or CUZK_FIXTURE).
#![allow(dead_code)]
mod fixture;

pub use fixture::dir;

pub fn read(name: &str) -> Vec<u8> {
    let path = dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn elements(name: &str) -> Vec<[u8; 32]> {
    read(name).chunks_exact(32).map(|c| c.try_into().unwrap()).collect()
}

pub fn limbs(name: &str) -> Vec<[u64; 4]> {
    read(name)
        .chunks_exact(32)
        .map(|c| {
            let mut l = [0u64; 4];
            for (i, w) in c.chunks_exact(8).enumerate() {
                l[i] = u64::from_le_bytes(w.try_into().unwrap());
            }
            l
        })
        .collect()
}

pub fn words(name: &str) -> Vec<usize> {
    read(name).chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap()) as usize).collect()
}

pub fn meta(key: &str) -> usize {
    let js = String::from_utf8(read("assignment.json")).unwrap();
    let pat = format!("\"{key}\":");
    let at = js.find(&pat).unwrap_or_else(|| panic!("no {key}")) + pat.len();
    js[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}
