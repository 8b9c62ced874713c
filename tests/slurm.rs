//! The database build on a real scheduler: a one-node Slurm on 127.0.0.1
//! (tools/slurm/start-local.sh) runs the plan's waves as job arrays, the
//! moving phase's and then the placing phase's, and the files are those of
//! a build on one machine. Needs root and Debian's
//! slurm-wlm and munge, so it is ignored by default:
//! `cargo test --release --test slurm -- --ignored`.

use morris::Variant;
use std::path::{Path, PathBuf};
use std::process::Command;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tools/slurm")
        .join(name)
}

fn run(command: &mut Command) {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The database files of a folder, by name, with their bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("the folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mdb"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("the file"))
        })
        .collect();
    files.sort();
    files
}

#[test]
#[ignore = "needs root, slurm-wlm and munge; starts daemons"]
fn the_waves_as_job_arrays_build_the_files_of_one_machine() {
    let root = std::env::temp_dir().join(format!("morris-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (cluster, shared, logs, single) = (
        root.join("slurm"),
        root.join("shared"),
        root.join("logs"),
        root.join("single"),
    );
    let morris = env!("CARGO_BIN_EXE_morris");
    run(Command::new(script("start-local.sh")).arg(&cluster));
    let conf = cluster.join("slurm.conf");
    // Up to 5 stones a side: five waves, one of them of two pairs. Then
    // twelve up to 4 stones, and Lasker up to 4 stones a side (its units
    // of stones on the board and in hand), in the same folder, in logs of
    // their own.
    let waves = |plan: &[&str], logs: &Path| {
        Command::new(script("gen-db-waves.sh"))
            .args([morris.as_ref(), shared.as_os_str(), logs.as_os_str()])
            .args(plan)
            .env("SLURM_CONF", &conf)
            .output()
            .expect("the waves start")
    };
    let nine = ["--max-stones", "5"];
    let twelve = ["--variant", "twelve", "--max-stones", "4"];
    let lasker = ["--variant", "lasker", "--max-stones", "4"];
    let built = [
        waves(&nine, &logs),
        waves(&twelve, &root.join("logs-twelve")),
        waves(&lasker, &root.join("logs-lasker")),
    ];
    run(Command::new(script("stop-local.sh")).arg(&cluster));
    for built in built {
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    for plan in [&nine[..], &twelve, &lasker] {
        run(Command::new(morris)
            .arg("gen-db")
            .args(plan)
            .arg("--out")
            .arg(&single));
    }
    let (on_slurm, on_one) = (files(&shared), files(&single));
    // 3-3 to 5-5, both sides of each pair, then the placing phase of five
    // stones a side, the sectors whose values are derived set aside while
    // they were needed.
    let placing = morris::solution::Sector::placing_within(Variant::Nine, 5);
    let stored = |variant, stones| {
        let sectors = morris::solution::Sector::placing_within(variant, stones);
        sectors.iter().filter(|sector| sector.is_stored()).count()
    };
    let twelve_files = 4 + stored(Variant::Twelve, 4);
    // Every Lasker sector up to 4 stones a side, each side 3 or 4 in all.
    let lasker_files = 81;
    assert_eq!(
        on_slurm.len(),
        9 + stored(Variant::Nine, 5) + twelve_files + lasker_files
    );
    assert!(!shared.join(morris::solution::format::INTERMEDIATE).exists());
    let names =
        |files: &[(String, Vec<u8>)]| files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&on_slurm), names(&on_one));
    for ((name, a), (_, b)) in on_slurm.iter().zip(&on_one) {
        assert!(a == b, "{name} differs");
    }
    // One log a task: a task of each moving wave, two in the wave of two
    // pairs, and one a placing sector.
    assert_eq!(std::fs::read_dir(&logs).unwrap().count(), 6 + placing.len());
    let _ = std::fs::remove_dir_all(root);
}
