//! Any lines fed to the protocol loop: it never panics or hangs and ends
//! at the end of input. `bench` and `go perft` are left out: they run on
//! the protocol thread by design and can take hours at their deepest.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let script: Vec<u8> = data
        .split(|&b| b == b'\n')
        .filter(|line| {
            let line = String::from_utf8_lossy(line);
            let first = line.split_whitespace().next().unwrap_or("");
            first != "bench" && !line.contains("perft")
        })
        .flat_map(|line| line.iter().copied().chain([b'\n']))
        .collect();
    let mut out = Vec::new();
    morris::uci::run(Cursor::new(script), &mut out).expect("output to memory");
});
