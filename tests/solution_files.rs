//! The database files: damaged and foreign files refused by name, a
//! damaged block found when read, and values read in the background the
//! same as those read waiting.

mod common;

use common::session::session;
use common::solution::{database, placing_database, placing_position, position};
use morris::Position;
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
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
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
    // An entry in the middle of the file: the header and the tables are
    // intact, so the file opens.
    let sector = SectorIndex::new(4, 4);
    let (m, o) = (0..sector.len())
        .map(|index| sector.decode(index))
        .find(|&(m, o)| sector.canonical(m, o).index > sector.len() / 2)
        .unwrap();
    // The entries follow the 112-byte header, a byte each.
    let at = 112 + sector.canonical(m, o).index as usize;
    bytes[at] ^= 0x3;
    std::fs::write(scratch.join(name), &bytes).unwrap();
    let file = MovingFile::open(&scratch.join(name)).expect("the header and tables are intact");
    assert!(matches!(
        file.verify().unwrap_err().problem,
        DbProblem::Checksum
    ));
    let (db, rejected) = Database::open(&scratch).unwrap();
    assert!(rejected.is_empty());
    assert!(db.damaged().is_empty());
    assert_eq!(
        db.sector_value(m, o),
        None,
        "a damaged block's value is not used"
    );
    assert_eq!(db.damaged(), vec![scratch.join(name).as_path()]);
    // Values of other blocks still serve.
    let (m0, o0) = sector.decode(0);
    assert_eq!(db.sector_value(m0, o0), database().1.sector_value(m0, o0));
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn values_read_in_the_background_are_those_read_waiting() {
    use morris::solution::{Reads, Urgency, blocks_read, wait_for_reads_after};
    let (dir, _) = placing_database();
    // A database of its own, so that no other test has read its blocks.
    let db = Database::open(dir).unwrap().0;
    let positions: Vec<Position> = Sector::placing_within(4)
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
        .collect();
    // Read ahead, none is read while asked for: the reader reads them.
    for pos in &positions {
        db.ready_or_ask(pos, Urgency::Game);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let seen = blocks_read();
        if positions
            .iter()
            .all(|pos| db.ready_or_ask(pos, Urgency::Root))
        {
            break;
        }
        assert!(wait_for_reads_after(seen, deadline), "blocks never read");
    }
    for pos in &positions {
        assert_eq!(db.value_with(pos, Reads::InMemory), Ok(db.value(pos)));
    }
    assert!(positions.iter().any(|pos| db.value(pos).is_some()));
}
