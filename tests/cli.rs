//! The command line's database tools, run as a user runs them.

use std::process::{Command, Output};

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(args)
        .output()
        .expect("run morris")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn gen_db_says_what_it_built_and_what_it_kept() {
    let dir = std::env::temp_dir().join(format!("morris-cli-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let first = morris(&["gen-db", "--out", &out, "--max-stones", "3"]);
    assert!(first.status.success());
    assert!(
        stdout(&first).starts_with("Built 1 sectors (") && stdout(&first).contains("kept 0"),
        "{}",
        stdout(&first)
    );
    let again = morris(&["gen-db", "--out", &out, "--max-stones", "3"]);
    assert!(again.status.success());
    assert!(
        stdout(&again).starts_with("Nothing to build: all 1 sectors"),
        "{}",
        stdout(&again)
    );
    let stats = morris(&["db-stats", &out]);
    assert!(stats.status.success());
    assert!(
        stdout(&stats).starts_with("3-3 positions "),
        "{}",
        stdout(&stats)
    );
    // A won position: the ranked moves begin with one that keeps the win.
    let probe = morris(&[
        "probe",
        "WWW/.../.../....../.../BB./..B w 0 0 0 20",
        "--db",
        &out,
    ]);
    assert!(probe.status.success());
    let text = stdout(&probe);
    let mut lines = text.lines();
    let position = lines.next().unwrap();
    assert!(
        position.starts_with("position: win, next removal in "),
        "{text}"
    );
    let distance = position.rsplit(" in ").next().unwrap();
    assert_eq!(
        lines.next(),
        Some("moves, best first (the value for the side moving):")
    );
    let best = lines.next().unwrap();
    assert!(best.starts_with("  1. "), "{text}");
    assert!(
        best.ends_with(&format!(": win, next removal in {distance}")),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn db_stats_of_a_folder_without_databases_is_an_error() {
    let dir = std::env::temp_dir().join(format!("morris-cli-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = morris(&["db-stats", &dir.display().to_string()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no endgame databases in"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn play_takes_the_n_move_rule_and_the_databases() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("morris-cli-play-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    assert!(
        morris(&["gen-db", "--out", &out, "--max-stones", "3"])
            .status
            .success()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["play", "--color", "white", "--movetime", "20"])
        .args(["--nmoverule", "1", "--db", &out])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"d6\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("endgame databases: 1 sectors loaded"),
        "{stderr}"
    );
    // One move a side without a removal draws.
    let text = stdout(&output);
    assert!(text.contains("Game over: draw (n-move rule)"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}
