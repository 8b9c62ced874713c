//! The command line's database tools, run as a user runs them.

use std::process::{Command, Output};

use morris::Variant;
use morris::solution::Sector;
use morris::solution::format::INTERMEDIATE;

/// `morris` with its default database folder under `data` (through
/// `XDG_DATA_HOME`, which names the user's data folder on Linux).
fn morris_with_data(data: &std::path::Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_morris"));
    command.args(args).env("XDG_DATA_HOME", data);
    command
}

/// `morris` run with no default databases, whatever the machine holds.
fn morris(args: &[&str]) -> Output {
    let nowhere = std::env::temp_dir().join(format!("morris-cli-no-data-{}", std::process::id()));
    morris_with_data(&nowhere, args)
        .output()
        .expect("run morris")
}

/// A fresh folder of the 3-3 database of the moving phase, named for the
/// test, as a path and as text.
fn three_stone_databases(test: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("morris-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    assert!(
        morris(&[
            "gen-db",
            "--out",
            &out,
            "--max-stones",
            "3",
            "--phase",
            "moving"
        ])
        .status
        .success()
    );
    (dir, out)
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
fn probe_applies_the_n_move_rule_and_says_what_it_changes() {
    let (dir, out) = three_stone_databases("probe");
    let first_line = |fen: &str, rule: &str| {
        let probe = morris(&["probe", fen, "--db", &out, "--nmoverule", rule]);
        assert!(probe.status.success(), "{}", stdout(&probe));
        stdout(&probe).lines().next().unwrap_or_default().to_owned()
    };
    // A win whose removal is plies away: in time with the counter at 0,
    // drawn first by the default rule with 57 plies gone, a win again
    // with the rule off.
    let moving = |plies: u32| format!("WWW/.../.../....../.../BB./..B w 0 0 {plies} 40");
    let fresh = first_line(&moving(0), "30");
    assert!(
        fresh.starts_with("position: win, next removal in "),
        "{fresh}"
    );
    let distance = fresh.rsplit(" in ").next().unwrap();
    assert_eq!(
        first_line(&moving(57), "30"),
        format!("position: draw by the N-move rule (without it: win, next removal in {distance})")
    );
    assert_eq!(first_line(&moving(57), "0"), fresh);
    // The same two placements from the end, whose values the moving
    // phase's files give by two plies (and the end of placing solved to
    // them, with the rule), and three placements from it, where they give
    // none: then the end of placing is solved to them.
    let placing = |plies: u32| format!(".../.B./.W./....../..B/W../... w 1 1 {plies} 40");
    let read = "position: win (read from the databases, ";
    assert!(first_line(&placing(0), "30").starts_with(read));
    assert!(first_line(&placing(57), "30").starts_with(
        "position: draw by the N-move rule (without it: win) (read from the databases, the N-move rule solved: "
    ));
    assert!(first_line(&placing(57), "0").starts_with(read));
    let earlier = ".../.B./.W./....../.../W../... b 1 2 0 40";
    assert!(first_line(earlier, "30").contains(" (end of placing solved: "));
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
    let (dir, out) = three_stone_databases("play");
    let mut child = morris_with_data(&dir, &[])
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

#[test]
fn gen_db_builds_one_pair_from_the_smaller_ones_and_names_those_missing() {
    let dir = std::env::temp_dir().join(format!("morris-cli-sector-{}", std::process::id()));
    let whole = std::env::temp_dir().join(format!("morris-cli-whole-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&whole);
    let out = dir.display().to_string();
    let early = morris(&["gen-db", "--out", &out, "--sector", "4-4"]);
    assert!(!early.status.success());
    let stderr = String::from_utf8_lossy(&early.stderr);
    assert!(
        stderr.contains("sector 3-4 must be built first"),
        "{stderr}"
    );
    for pair in ["3-3", "4-3", "4-4"] {
        let built = morris(&["gen-db", "--out", &out, "--sector", pair]);
        assert!(built.status.success(), "{pair}: {built:?}");
        assert!(stdout(&built).contains("the pair "), "{}", stdout(&built));
    }
    // The same files as a whole build.
    let all = morris(&[
        "gen-db",
        "--out",
        &whole.display().to_string(),
        "--max-stones",
        "4",
    ]);
    assert!(all.status.success());
    for name in ["3-3", "3-4", "4-3", "4-4"].map(|s| format!("nine-flying-{s}.mdb")) {
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(whole.join(&name)).unwrap(),
            "{name}"
        );
    }
    let bad = morris(&["gen-db", "--out", &out, "--sector", "2-5"]);
    assert!(!bad.status.success());
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(whole);
}

#[test]
fn gen_db_builds_the_placing_phase_and_refuses_damaged_placing_files_by_name() {
    let dir = std::env::temp_dir().join(format!("morris-cli-placing-{}", std::process::id()));
    let whole =
        std::env::temp_dir().join(format!("morris-cli-placing-whole-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&whole);
    let out = dir.display().to_string();
    let four = ["--max-stones", "4"];
    let moving = morris(&[&["gen-db", "--out", &out, "--phase", "moving"][..], &four].concat());
    assert!(moving.status.success());
    assert!(
        !stdout(&moving).contains("placing sectors"),
        "{}",
        stdout(&moving)
    );
    // A placing sector needs the sectors its placements lead to; one whose
    // values are derived, and that no sector kept is built from, is not
    // built.
    let early = morris(&["gen-db", "--out", &out, "--sector", "0-1-3-2"]);
    assert!(!early.status.success());
    let stderr = String::from_utf8_lossy(&early.stderr);
    assert!(
        stderr.contains("sector 1-1-2-2 must be built first"),
        "{stderr}"
    );
    let first = morris(&[&["gen-db", "--out", &out, "--sector", "0-0-4-4"][..], &four].concat());
    assert!(first.status.success());
    assert!(
        stdout(&first).contains(", 1 not needed"),
        "{}",
        stdout(&first)
    );
    let placing = morris(&[&["gen-db", "--out", &out, "--phase", "placing"][..], &four].concat());
    assert!(placing.status.success());
    // Of the 27 sectors, those with White to move or one stone to place are
    // built only for those before them, and not kept; three lead to no
    // sector kept (the side not to move has no stone on the board).
    assert!(
        stdout(&placing).starts_with("Built 24 placing sectors ("),
        "{}",
        stdout(&placing)
    );
    assert!(!dir.join(INTERMEDIATE).exists());
    let stored = Sector::placing_within(Variant::Nine, 4)
        .into_iter()
        .filter(|sector| sector.is_stored())
        .count();
    let again = morris(&[&["gen-db", "--out", &out][..], &four].concat());
    assert!(
        stdout(&again).contains(&format!(
            "Nothing to build: {stored} of the 27 placing sectors in {out} present and valid, {} not needed",
            27 - stored
        )),
        "{}",
        stdout(&again)
    );
    // One sector rebuilt: on its own it needs the sectors it is built
    // from, no longer kept; a whole build makes them again (and the two
    // before those), and the files of a whole build in one go are the same.
    std::fs::remove_file(dir.join("nine-placing-2-3-2-1.mdb")).unwrap();
    let alone = morris(&["gen-db", "--out", &out, "--sector", "2-3-2-1"]);
    assert!(!alone.status.success());
    let stderr = String::from_utf8_lossy(&alone.stderr);
    assert!(
        stderr.contains("sectors 3-3-1-1, 2-3-1-1 must be built first"),
        "{stderr}"
    );
    let rebuilt = morris(&[&["gen-db", "--out", &out][..], &four].concat());
    assert!(
        stdout(&rebuilt).contains("Built 7 placing sectors"),
        "{}",
        stdout(&rebuilt)
    );
    let all = morris(
        &[
            &["gen-db", "--out", &whole.display().to_string()][..],
            &four,
        ]
        .concat(),
    );
    assert!(all.status.success());
    for entry in std::fs::read_dir(&whole).unwrap() {
        let name = entry.unwrap().file_name();
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(whole.join(&name)).unwrap(),
            "{name:?}"
        );
    }
    // Every first placement of a game of four stones each is a draw.
    let probe = morris(&[
        "probe",
        ".../.../.../....../.../.../... w 4 4 0 1",
        "--db",
        &out,
    ]);
    let text = stdout(&probe);
    assert!(
        text.starts_with("position: draw (read from the databases, "),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.ends_with(": draw")).count(),
        24,
        "{text}"
    );
    let stats = stdout(&morris(&["db-stats", &out]));
    assert!(
        stats.contains("\nplacing 0-1-3-2 positions 24 wins 0 draws 0 losses 24\n"),
        "{stats}"
    );
    let verified = morris(&["db-verify", &out]);
    assert!(verified.status.success(), "{}", stdout(&verified));
    assert!(stdout(&verified).contains("placing 2-3-2-1: checksums good; "));
    // A damaged value is found by db-verify, a cut file refused when opened.
    let damaged = dir.join("nine-placing-2-3-2-1.mdb");
    let mut bytes = std::fs::read(&damaged).unwrap();
    // In the last block, past the header and the table of blocks.
    let at = bytes.len() - 10;
    bytes[at] ^= 0x55;
    std::fs::write(&damaged, &bytes).unwrap();
    let cut = dir.join("nine-placing-2-2-2-1.mdb");
    let length = std::fs::metadata(&cut).unwrap().len();
    std::fs::File::options()
        .write(true)
        .open(&cut)
        .unwrap()
        .set_len(length - 8)
        .unwrap();
    let verified = morris(&["db-verify", &out]);
    assert!(!verified.status.success());
    let text = stdout(&verified);
    assert!(
        text.contains("placing 2-3-2-1: checksum mismatch: the file is damaged"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&verified.stderr);
    assert!(
        stderr.contains("skipped: ") && stderr.contains("nine-placing-2-2-2-1.mdb: "),
        "{stderr}"
    );
    // A file of the format before is to be converted, not built again: the
    // build stops before it builds anything.
    let old = dir.join("nine-placing-1-2-2-1.mdb");
    let mut bytes = std::fs::read(&old).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_ne_bytes());
    std::fs::write(&old, &bytes).unwrap();
    let refused = morris(&[&["gen-db", "--out", &out][..], &four].concat());
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("nine-placing-1-2-2-1.mdb") && stderr.contains("morris db-convert"),
        "{stderr}"
    );
    assert!(!dir.join(INTERMEDIATE).exists());
    // So is a moving sector's, before anything is built from it.
    let old = dir.join("nine-flying-3-3.mdb");
    let mut bytes = std::fs::read(&old).unwrap();
    bytes[8..12].copy_from_slice(&2u32.to_ne_bytes());
    std::fs::write(&old, &bytes).unwrap();
    let refused = morris(&[&["gen-db", "--out", &out][..], &four].concat());
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("nine-flying-3-3.mdb") && stderr.contains("morris db-convert"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(whole);
}

#[test]
fn the_plan_puts_every_pair_after_the_pairs_it_needs() {
    // Twelve's 12-12 would be a full board, where the game is over.
    for (variant, pairs, last) in [(Variant::Nine, 28, "9-9"), (Variant::Twelve, 54, "11-12")] {
        let plan = morris(&["gen-db", "--plan", "--variant", variant.name()]);
        assert!(plan.status.success(), "{plan:?}");
        let text = stdout(&plan);
        let mut wave_of = std::collections::HashMap::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields.len(), 6, "{line}");
            let wave: u32 = fields[0].parse().unwrap();
            for need in fields[5].split(',').filter(|&n| n != "-") {
                assert!(wave_of[need] < wave, "{line}");
            }
            assert!(
                wave_of.insert(fields[1].to_owned(), wave).is_none(),
                "{line}"
            );
        }
        // Every pair from 3-3 to the variant's stones a side, then every
        // placing sector, the first placement last.
        let n = variant.stones();
        let listed = wave_of.keys().filter(|name| name.split('-').count() == 2);
        assert_eq!(listed.count(), pairs, "{variant}");
        assert_eq!(wave_of.len(), pairs + Sector::placing_all(variant).len());
        let moving_waves = wave_of
            .iter()
            .filter(|(name, _)| name.split('-').count() == 2);
        assert_eq!(
            moving_waves.map(|(_, &wave)| wave).max(),
            Some(wave_of[last])
        );
        assert!(wave_of[&format!("{}-{}-1-0", n - 1, n - 1)] > wave_of[last]);
        let last = wave_of.values().max().unwrap();
        assert_eq!(wave_of[&format!("0-0-{n}-{n}")], *last);
    }
}

#[test]
fn gen_db_and_probe_take_the_variant_and_refuse_sectors_it_has_not() {
    let dir = std::env::temp_dir().join(format!("morris-cli-twelve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let twelve = ["--variant", "twelve"];
    let built = morris(&[&["gen-db", "--out", &out, "--max-stones", "4"][..], &twelve].concat());
    assert!(built.status.success(), "{built:?}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.contains(&"twelve-flying-4-4.mdb".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"twelve-placing-0-1-4-3.mdb".to_owned()),
        "{names:?}"
    );
    assert!(
        names.iter().all(|name| name.starts_with("twelve-")),
        "{names:?}"
    );
    // A diagonal mill in one: White flies to c5 (a7-b6-c5).
    let fen = "W.B/W../.../...B../.../.../.WB w 0 0 0 40";
    let probe = morris(&[&["probe", fen, "--db", &out][..], &twelve].concat());
    let text = stdout(&probe);
    assert!(probe.status.success(), "{probe:?}");
    assert!(
        text.starts_with("position: win, next removal in 1 plies"),
        "{text}"
    );
    assert!(text.contains("c5"), "{text}");
    // Under either full-board rule the moving phase's files answer.
    let probe = morris(
        &[
            &["probe", fen, "--db", &out, "--full-board", "whiteloses"][..],
            &twelve,
        ]
        .concat(),
    );
    assert!(
        stdout(&probe).starts_with("position: win, next removal in 1 plies"),
        "{probe:?}"
    );
    for command in [&["probe", fen][..], &["play"]] {
        let refused = morris(&[command, &["--full-board", "blackloses"]].concat());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            !refused.status.success() && stderr.contains("draw, whiteloses"),
            "{stderr}"
        );
    }
    // Nine's rules read no twelve file.
    let nine = morris(&["probe", fen, "--db", &out]);
    assert!(
        stdout(&nine).starts_with("position: not in the databases"),
        "{}",
        stdout(&nine)
    );
    for (args, said) in [
        (
            &["--sector", "13-3", "--variant", "twelve"][..],
            "no moving pair of twelve",
        ),
        (&["--sector", "10-3"], "no moving pair of nine"),
        (&["--sector", "0-0-10-10"], "no placing sector of nine"),
        (
            &["--max-stones", "13", "--variant", "twelve"],
            "twelve has 3 to 12 stones a side",
        ),
        (
            &["--variant", "lasker", "--sector", "2-0-0-3"][..],
            "2-0-0-3 is no sector of lasker",
        ),
        (
            &["--variant", "lasker", "--phase", "moving"][..],
            "lasker's placing and moving interleave",
        ),
    ] {
        let refused = morris(&[&["gen-db", "--out", &out][..], args].concat());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            !refused.status.success() && stderr.contains(said),
            "{args:?}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
#[cfg(target_os = "linux")]
fn the_default_folder_is_used_when_none_is_named() {
    use std::io::Write;
    use std::process::Stdio;
    let data = std::env::temp_dir().join(format!("morris-cli-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let built = morris_with_data(&data, &["gen-db", "--max-stones", "3", "--phase", "moving"])
        .output()
        .unwrap();
    assert!(built.status.success());
    let folder = data.join("morris").join("db");
    assert!(folder.join("nine-flying-3-3.mdb").is_file());
    let stats = morris_with_data(&data, &["db-stats"]).output().unwrap();
    assert!(stdout(&stats).starts_with("3-3 positions "));
    // The engine loads them unless told otherwise; an empty EndgameDB turns
    // them off.
    let search = |setup: &str| {
        let mut child = morris_with_data(&data, &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let script = format!(
            "uci\n{setup}position fen WWW/.../.../....../.../BB./..B w 0 0 0 20\ngo depth 3\n"
        );
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        stdout(&child.wait_with_output().unwrap())
    };
    let with = search("");
    assert!(
        with.contains(&format!(
            "info string endgame databases: 1 sectors loaded (from {})",
            folder.display()
        )),
        "{with}"
    );
    let depth3 = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("info depth 3 "))
            .map(str::to_owned)
    };
    assert!(!depth3(&with).unwrap().contains(" dbhits 0 "), "{with}");
    let without = search("setoption name EndgameDB value\n");
    assert!(
        depth3(&without).unwrap().contains(" dbhits 0 "),
        "{without}"
    );
    let _ = std::fs::remove_dir_all(data);
}

#[test]
fn probe_counts_the_n_move_rule_afresh_after_a_removal() {
    use morris::solution::{Database, DbOutcome, SectorIndex, sector_position};
    use morris::{Position, Rules};
    let dir = std::env::temp_dir().join(format!("morris-cli-afresh-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let built = morris(&[
        "gen-db",
        "--out",
        &out,
        "--max-stones",
        "4",
        "--phase",
        "moving",
    ]);
    assert!(built.status.success());
    let (db, refused) = Database::open(&dir).unwrap();
    assert!(refused.is_empty());
    // Two moves a side without a removal draw: a removal comes at once, but
    // the win it leads to needs the next one in time too.
    let rules = Rules {
        n_move_rule: 2,
        ..Rules::default()
    };
    let sector = SectorIndex::new(3, 4);
    let (pos, mv) = (0..sector.len())
        .step_by(7)
        .find_map(|index| {
            let (mover, other) = sector.decode(index);
            let board = sector_position(Variant::Nine, mover, other).fen();
            let board = board.split(' ').next()?;
            let pos = Position::from_fen(&format!("{board} w 0 0 0 20"), rules).ok()?;
            let mv = pos.legal_moves().into_iter().find(|&mv| {
                let known = db.move_value(&pos, mv);
                mv.removal.is_some()
                    && known.outcome == Some(DbOutcome::Win)
                    && known.with_rule == Some(DbOutcome::Draw)
            })?;
            Some((pos, mv))
        })
        .expect("a removal into a win the rule draws");
    let probe = morris(&["probe", &pos.fen(), "--db", &out, "--nmoverule", "2"]);
    assert!(probe.status.success());
    let text = stdout(&probe);
    let line = text
        .lines()
        .find(|line| line.contains(&format!(". {mv}: ")))
        .unwrap_or_else(|| panic!("{mv} in {text}"));
    assert!(
        line.ends_with(": draw by the N-move rule (without it: win, next removal in 1 plies)"),
        "{text}"
    );
    // The position is worth the best of its moves so judged, as the
    // engine's root weighs it.
    let with_rule = db.outcome_with_rule(&pos).expect("known");
    let best = db
        .moves(&pos)
        .iter()
        .filter_map(|known| known.with_rule)
        .max();
    assert_eq!(Some(with_rule), best);
    let position = text.lines().next().unwrap();
    assert!(
        position.starts_with(&format!("position: {with_rule}")),
        "{with_rule}: {text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_build_stopped_after_its_time_goes_on_to_the_same_files() {
    let root = std::env::temp_dir().join(format!("morris-cli-stop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (whole, parts) = (root.join("whole"), root.join("parts"));
    let plan = ["--variant", "twelve", "--max-stones", "4"];
    let gen_db = |dir: &std::path::Path, more: &[&str]| {
        let out = dir.display().to_string();
        let output = morris(&[&["gen-db", "--out", &out][..], &plan, more].concat());
        assert!(output.status.success(), "{output:?}");
        stdout(&output)
    };
    gen_db(&whole, &[]);
    // Each run builds one pair or placing sector, then stops.
    let mut runs = 0;
    while gen_db(&parts, &["--stop-after", "0s"]).contains("Stopped after ") {
        runs += 1;
        assert!(runs < 100);
    }
    assert!(runs > 20, "{runs}");
    let names = |dir: &std::path::Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&parts), names(&whole));
    for name in names(&whole) {
        assert_eq!(
            std::fs::read(parts.join(&name)).unwrap(),
            std::fs::read(whole.join(&name)).unwrap(),
            "{name:?}"
        );
    }
    let refused = morris(&["gen-db", "--out", "/nonexistent", "--stop-after", "5 days"]);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("the unit is s, m or h"));
    let _ = std::fs::remove_dir_all(root);
}
