//! The database files: damaged and foreign files refused by name, a
//! damaged block found when read, and values read in the background the
//! same as those read waiting.

mod common;

use common::session::session;
use common::solution::{database, placing_database, placing_position, position, twelve_database};
use morris::Position;
use morris::Variant;
use morris::solution::{Database, Sector, SectorIndex};

#[test]
fn damaged_and_foreign_files_are_refused_by_name() {
    use morris::DbProblem;
    use morris::solution::format::MovingFile;
    let (dir, _) = database();
    let good = std::fs::read(dir.join("nine-flying-3-3.mdb")).unwrap();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let try_file = |name: &str, bytes: &[u8]| {
        let path = scratch.join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = MovingFile::open(&path).err().expect("refused");
        assert_eq!(err.path, path);
        std::fs::remove_file(&path).unwrap();
        err.problem
    };
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &good[..10]),
        DbProblem::TooShort
    ));
    let truncated = &good[..good.len() - 2];
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", truncated),
        DbProblem::Length { .. }
    ));
    // A table of blocks, read at open, just after the header.
    let mut flipped = good.clone();
    let header = std::mem::size_of::<morris::solution::format::MovingHeader>();
    flipped[header + 9] ^= 0x40;
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &flipped),
        DbProblem::Checksum
    ));
    let mut foreign = good.clone();
    foreign[..8].copy_from_slice(b"NOTMORRI");
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &foreign),
        DbProblem::BadMagic
    ));
    assert!(matches!(
        try_file("nine-flying-3-4.mdb", &good),
        DbProblem::Sector { .. }
    ));
    // Another variant's file, under either name, is refused by its name.
    let (twelve_dir, _) = twelve_database();
    let twelve = std::fs::read(twelve_dir.join("twelve-flying-3-3.mdb")).unwrap();
    assert_ne!(good, twelve);
    for (name, bytes) in [
        ("twelve-flying-3-3.mdb", &good),
        ("nine-flying-3-3.mdb", &twelve),
    ] {
        assert!(matches!(try_file(name, bytes), DbProblem::Sector { .. }));
    }
    let placing = "twelve-placing-0-1-3-2.mdb";
    let twelve_placing = std::fs::read(twelve_dir.join(placing)).unwrap();
    let path = scratch.join(placing.replace("twelve", "nine"));
    std::fs::write(&path, twelve_placing).unwrap();
    let refused = morris::solution::format::PlacingFile::open(&path).err();
    assert!(matches!(
        refused.map(|e| e.problem),
        Some(DbProblem::Sector { .. })
    ));
    std::fs::remove_file(&path).unwrap();
    // A folder with one good and one damaged file loads the good one.
    std::fs::write(scratch.join("nine-flying-3-3.mdb"), &good).unwrap();
    std::fs::write(scratch.join("nine-flying-4-3.mdb"), &good[..100]).unwrap();
    let (db, rejected) = Database::open(&scratch).unwrap();
    assert_eq!(db.len(), 1);
    assert_eq!(rejected.len(), 1);
    assert!(rejected[0].to_string().contains("nine-flying-4-3.mdb"));
    // Through the protocol: the engine says what it left out and plays on,
    // probing 3-3 behind a removal from 3-4 (whose file was refused).
    let script = format!(
        "setoption name EndgameDB value {}\nsetoption name EndgameDB value /nonexistent/folder\nisready\nposition fen W.W/.../BB./....../..B/.W./W.. b 0 0 0 40\ngo depth 2\n",
        scratch.display()
    );
    let out = session(script.as_bytes()).join("\n");
    assert!(
        out.contains("info string endgame database left out: "),
        "{out}"
    );
    assert!(
        out.contains("info string endgame databases: 1 sectors loaded"),
        "{out}"
    );
    assert!(
        out.contains("info string error: setoption: option 'EndgameDB'"),
        "{out}"
    );
    assert!(out.contains("readyok"));
    let info = out
        .lines()
        .rev()
        .find(|l| l.starts_with("info depth 2"))
        .unwrap();
    assert!(!info.contains(" dbhits 0 "), "{info}");
    assert!(out.contains("bestmove "));
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_damaged_block_is_found_when_read_and_its_values_are_not_used() {
    use morris::DbProblem;
    use morris::solution::format::MovingFile;
    let (dir, _) = database();
    let name = "nine-flying-4-4.mdb";
    let mut bytes = std::fs::read(dir.join(name)).unwrap();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-block-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    // A byte in the middle of the file, among the blocks: the header and
    // the tables are intact, so the file opens.
    let sector = SectorIndex::new(4, 4);
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x3;
    std::fs::write(scratch.join(name), &bytes).unwrap();
    let file = MovingFile::open(&scratch.join(name)).expect("the header and tables are intact");
    assert!(matches!(
        file.verify().unwrap_err().problem,
        DbProblem::Checksum
    ));
    let (db, rejected) = Database::open(&scratch).unwrap();
    assert!(rejected.is_empty());
    assert!(db.damaged().is_empty());
    // The values of the damaged block are not used; those of the others
    // still serve.
    let good = &database().1;
    let mut unknown = 0;
    for class in 0..sector.class_count() {
        for (_, m, o) in sector.canonical_positions(class) {
            match db.value(&position(m, o)) {
                None => unknown += 1,
                value => assert_eq!(value, good.value(&position(m, o))),
            }
        }
    }
    assert!(unknown > 0, "a damaged block's values are not used");
    assert_eq!(db.damaged(), vec![scratch.join(name).as_path()]);
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn values_read_in_the_background_are_those_read_waiting() {
    use morris::solution::{Reads, Urgency, blocks_read, wait_for_reads_after};
    let (dir, _) = placing_database();
    // A database of its own, so that no other test has read its blocks.
    let db = Database::open(dir).unwrap().0;
    let positions: Vec<Position> = Sector::placing_within(Variant::Nine, 4)
        .into_iter()
        .flat_map(|sector| {
            let step = (sector.len() / 4).max(1);
            (0..sector.len())
                .step_by(step as usize)
                .map(move |index| {
                    let (mover, other) = sector.board.decode(index);
                    placing_position(sector, mover, other)
                })
                .collect::<Vec<_>>()
        })
        .chain((0..400).map(|seed| {
            let (mover, other) = SectorIndex::new(4, 4).decode(seed * 9_000);
            position(mover, other)
        }))
        // Whose wins' distances are derived from its own losses'.
        .chain((0..100).map(|seed| {
            let sector = SectorIndex::new(3, 3);
            let (mover, other) = sector.decode(seed * (sector.len() / 100));
            position(mover, other)
        }))
        // Whose distances are derived from those of 4-3.
        .chain((0..100).map(|seed| {
            let (mover, other) = SectorIndex::new(3, 4).decode(seed * 9_000);
            position(mover, other)
        }))
        .collect();
    // Read ahead, none is read while asked for: the reader reads them.
    let ready = |pos: &Position, urgency| db.reading(Reads::InMemory(urgency)).value(pos).is_ok();
    for pos in &positions {
        ready(pos, Urgency::Game);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let seen = blocks_read();
        if positions.iter().all(|pos| ready(pos, Urgency::Root)) {
            break;
        }
        assert!(wait_for_reads_after(seen, deadline), "blocks never read");
    }
    for pos in &positions {
        let in_memory = db.reading(Reads::InMemory(Urgency::Search));
        assert_eq!(in_memory.value(pos), Ok(db.value(pos)));
    }
    // Wins derived from the distances of the other sector, and of their own.
    for stones in [[3, 4], [3, 3]] {
        assert!(
            positions.iter().any(|pos| {
                let us = pos.side_to_move();
                pos.stones_to_place() == 0
                    && [pos.stones(us).len(), pos.stones(us.opponent()).len()] == stones
                    && db
                        .value(pos)
                        .is_some_and(|v| v.outcome == morris::DbOutcome::Win)
            }),
            "no win in {stones:?}"
        );
    }
}

#[test]
fn every_value_up_to_five_stones_a_side_reads_back_as_it_was_built() {
    use morris::solution::Reads;
    use morris::solution::format::write_sector;
    use morris::solution::retrograde::build_pair;
    use morris::{DbValue, Rules};
    use rayon::prelude::*;
    let dir = std::env::temp_dir().join(format!("morris-endgame-five-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The values as the build makes them, which the format before kept
    // whole, a byte an index.
    let mut built = Vec::new();
    for (a, b) in [(3, 3), (3, 4), (4, 4), (3, 5), (4, 5), (5, 5)] {
        let (smaller, _) = Database::open(&dir).unwrap();
        for sector in build_pair(Variant::Nine, a, b, &smaller, &|_| {}) {
            write_sector(&dir, &sector).unwrap();
            built.push(sector);
        }
    }
    let (db, rejected) = Database::open(&dir).unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    for sector in &built {
        let index = sector.sector.board;
        let checked: u64 = (0..index.class_count())
            .into_par_iter()
            .map(|class| {
                let mut checked = 0;
                for (at, mover, other) in index.canonical_positions(class) {
                    let value = DbValue::decode(sector.values[at as usize]);
                    assert_eq!(db.value(&position(mover, other)), value, "{index:?} {at}");
                    let pos = position(mover, other);
                    assert_eq!(db.outcome(&pos), value.map(|v| v.outcome));
                    // Under the N-move rule, as late as it can bite.
                    if at % 5 == 0 {
                        let value = value.expect("a position");
                        for plies in [0, 25, 45, 59] {
                            let fen = pos.fen().replace(" 0 0 0 ", &format!(" 0 0 {plies} "));
                            let pos = Position::from_fen(&fen, Rules::default()).unwrap();
                            let ruled = db.reading(Reads::Wait).value_under_rule(&pos).unwrap();
                            let ruled = ruled.expect("held").outcome;
                            assert_eq!(ruled, value.outcome_at(&pos), "{}", pos.fen());
                        }
                    }
                    checked += 1;
                }
                checked
            })
            .sum();
        assert!(checked > 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nine_files_are_byte_for_byte_those_pinned() {
    // FNV-1a over the bytes: any change to a nine file's values, layout or
    // compression shows, whatever part of the build it comes from.
    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
    let (dir, _) = placing_database();
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            format!("{name} {} {:016x}", bytes.len(), fnv(&bytes))
        })
        .collect();
    found.sort();
    let pinned = include_str!("data/nine-files.txt");
    let pinned: Vec<&str> = pinned
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(found, pinned, "found:\n{}", found.join("\n"));
}

#[test]
fn a_folder_of_both_variants_answers_each_from_its_own_files() {
    use morris::{Rules, Variant};
    let (nine_dir, nine) = placing_database();
    let (twelve_dir, twelve) = twelve_database();
    let both = std::env::temp_dir().join(format!("morris-both-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&both);
    std::fs::create_dir_all(&both).unwrap();
    for dir in [nine_dir, twelve_dir] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, both.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    let (db, rejected) = Database::open(&both).unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    assert_eq!(db.len(), nine.len() + twelve.len());
    for (variant, alone) in [(Variant::Nine, nine), (Variant::Twelve, twelve)] {
        assert!(
            db.sectors()
                .iter()
                .filter(|s| s.variant == variant)
                .eq(alone.sectors().iter())
        );
        let sector = SectorIndex::new(4, 3);
        for index in (0..sector.len()).step_by(101) {
            let (mover, other) = sector.decode(index);
            let pos = morris::solution::sector_position(variant, mover, other);
            assert_eq!(db.value(&pos), alone.value(&pos), "{variant} {}", pos.fen());
        }
        let start = Position::from_fen(
            ".../.../.../....../.../.../... w 4 4 0 1",
            Rules::new(variant),
        )
        .unwrap();
        assert_eq!(db.outcome(&start), alone.outcome(&start));
        assert!(db.outcome(&start).is_some());
    }
    let _ = std::fs::remove_dir_all(&both);
}
