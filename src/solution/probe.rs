//! The loaded databases: every valid sector file of a folder, probed by
//! the search.

use std::collections::HashMap;
use std::path::Path;

use super::error::{DbError, DbProblem};
use super::format::is_placing_file;
use super::format::moving::{MovingFile, MovingHeader};
use super::format::placing::PlacingFile;
use super::format::reader::{NotInMemory, Reads, Urgency};
use super::index::MAX_STONES;
use super::sector::Sector;
use super::value::{DbOutcome, DbValue};
use crate::board::{Bitboard, Color, Move, Position, Rules, Variant};

/// What the databases know of one legal move, for the side making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: Move,
    /// Its outcome as stored, the draw rules left out, as a published
    /// solution gives it (`None` where the databases do not know it).
    pub outcome: Option<DbOutcome>,
    /// In the moving phase, its outcome with the plies to the next removal
    /// (a move that wins the game at once is a win in 1, as a removal into
    /// a lost position is); `None` in the placing phase.
    pub value: Option<DbValue>,
    /// Its outcome once the N-move rule is applied to the position it
    /// leads to, where the moving phase's distance lets it be (after a
    /// removal the rule counts afresh, and the next removal must come in
    /// time too), as for the last placement; before that, the placing
    /// phase's values having no distance, only where the stored outcome
    /// tells it: a stored draw (which the rule leaves a draw), the rule
    /// off (the stored outcome), or already reached (a draw). `None` where
    /// it is not known.
    pub with_rule: Option<DbOutcome>,
}

impl MoveValue {
    /// The outcome under the N-move rule of a position whose legal moves
    /// are `moves`, as [`Database::outcome_with_rule`] gives it: the best
    /// of theirs; `None` if one of them is not known, or there are none.
    pub fn best_with_rule(moves: &[MoveValue]) -> Option<DbOutcome> {
        best_known(moves, |known| known.with_rule).flatten()
    }

    /// Its value once the N-move rule is applied, in the moving phase: the
    /// outcome with the rule and the plies to the next removal. The engine
    /// ranks its root moves by it.
    pub fn value_with_rule(self) -> Option<DbValue> {
        Some(DbValue {
            outcome: self.with_rule?,
            distance: self.value?.distance,
        })
    }
}

/// Every sector file of a folder that passed its checks.
pub struct Database {
    /// The moving phase by variant, then (mover, other) stones (see
    /// `moving_slot`).
    moving: Vec<Option<MovingFile>>,
    /// The placing phase.
    placing: HashMap<Sector, PlacingFile>,
    /// The sectors with stones in hand whose values keep distances (where
    /// a side with stones in hand may slide).
    with_hands: HashMap<Sector, MovingFile>,
}

impl Default for Database {
    fn default() -> Database {
        Database {
            moving: (0..MOVING_SLOTS).map(|_| None).collect(),
            placing: HashMap::new(),
            with_hands: HashMap::new(),
        }
    }
}

impl Database {
    /// Loads every sector file in `dir`; the files that fail their checks
    /// are left out and returned as errors.
    ///
    /// # Errors
    ///
    /// [`DbError`] if the folder cannot be read.
    pub fn open(dir: &Path) -> Result<(Database, Vec<DbError>), DbError> {
        let entries = std::fs::read_dir(dir).map_err(|e| DbError {
            path: dir.to_owned(),
            problem: DbProblem::from(e),
        })?;
        let mut db = Database::default();
        let mut rejected = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("mdb") {
                continue;
            }
            let placing = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(is_placing_file);
            let opened = if placing {
                PlacingFile::open(&path).map(|file| db.insert_placing(file))
            } else {
                MovingFile::open(&path).map(|file| db.insert_moving(file))
            };
            if let Err(err) = opened {
                rejected.push(err);
            }
        }
        Ok((db, rejected))
    }

    /// Adds a sector file, in place of any of the same sector.
    pub(super) fn insert_moving(&mut self, file: MovingFile) {
        if file.sector.is_placing() {
            self.with_hands.insert(file.sector, file);
            return;
        }
        let board = file.sector.board;
        let slot = moving_slot(file.sector.variant, board.mover, board.other);
        self.moving[slot] = Some(file);
    }

    /// Adds a placing sector's file, in place of any of the same sector.
    pub(super) fn insert_placing(&mut self, file: PlacingFile) {
        self.placing.insert(file.sector, file);
    }

    /// The file of a placing sector, if loaded.
    pub(crate) fn placing_file(&self, sector: Sector) -> Option<&PlacingFile> {
        self.placing.get(&sector)
    }

    /// The loaded placing sectors' files, the last placements first.
    pub fn placing_files(&self) -> Vec<&PlacingFile> {
        let mut files: Vec<&PlacingFile> = self.placing.values().collect();
        files.sort_by_key(|f| f.sector.order());
        files
    }

    /// The file of `variant`'s moving sector of `mover` and `other`
    /// stones, if loaded.
    pub(crate) fn moving_file(
        &self,
        variant: Variant,
        mover: usize,
        other: usize,
    ) -> Option<&MovingFile> {
        if mover > MAX_STONES || other > MAX_STONES {
            return None;
        }
        self.moving[moving_slot(variant, mover, other)].as_ref()
    }

    /// The file of `sector`, whose values keep distances, if loaded.
    pub(crate) fn file_with_distances(&self, sector: Sector) -> Option<&MovingFile> {
        if sector.is_placing() {
            self.with_hands.get(&sector)
        } else {
            let board = sector.board;
            self.moving_file(sector.variant, board.mover, board.other)
        }
    }

    /// The loaded sector files whose values keep distances, by variant,
    /// then fewest stones in hand, then smallest first.
    pub fn moving_files(&self) -> Vec<&MovingFile> {
        let mut files: Vec<&MovingFile> = self
            .moving
            .iter()
            .flatten()
            .chain(self.with_hands.values())
            .collect();
        files.sort_by_key(|f| {
            let sector = f.sector;
            let board = sector.board;
            (
                moving_slot(sector.variant, 0, 0),
                sector.to_place(),
                board.mover + board.other,
                board.mover,
                sector.mover_hand,
            )
        });
        files
    }

    /// Every sector loaded: the moving phase's smallest first, then the
    /// placing phase's, the last placements first.
    pub fn sectors(&self) -> Vec<Sector> {
        let moving = self.moving_files().into_iter().map(|f| f.sector);
        let placing = self.placing_files().into_iter().map(|f| f.sector);
        moving.chain(placing).collect()
    }

    /// Checks every block of the file of `sector`, if it is loaded.
    ///
    /// # Errors
    ///
    /// [`DbError`] for a damaged file.
    pub fn verify_file(&self, sector: Sector) -> Option<Result<(), DbError>> {
        if sector.keeps_distances() {
            self.file_with_distances(sector).map(MovingFile::verify)
        } else {
            self.placing_file(sector).map(PlacingFile::verify)
        }
    }

    /// The number of sectors loaded, of both phases.
    pub fn len(&self) -> usize {
        self.moving.iter().flatten().count() + self.placing.len() + self.with_hands.len()
    }

    /// Whether no sector is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The headers of the loaded sectors, smallest first.
    pub fn moving_headers(&self) -> Vec<MovingHeader> {
        self.moving_files().iter().map(|f| f.header).collect()
    }

    /// The files in which a damaged block was met (whose values there are
    /// not used).
    pub fn damaged(&self) -> Vec<&Path> {
        let moving = self.moving_files().into_iter().filter(|f| f.is_damaged());
        let placing = self.placing_files().into_iter().filter(|f| f.is_damaged());
        moving
            .map(|f| f.path.as_path())
            .chain(placing.map(|f| f.path.as_path()))
            .collect()
    }

    /// Whether files of these rules are loaded: of their variant, built
    /// with flying.
    pub fn holds(&self, rules: Rules) -> bool {
        can_hold(rules)
            && (self
                .moving
                .iter()
                .flatten()
                .any(|f| f.sector.variant == rules.variant)
                || self.placing.keys().any(|s| s.variant == rules.variant))
    }

    /// Whether the databases hold every position the placing phase of
    /// `pos` (every turn a placement) can end in: their rules, and the sectors of all stones placed, whoever
    /// moves (those with fewer stones, after removals, come before them).
    pub fn holds_end_of_placing(&self, pos: &Position) -> bool {
        let [white, black] = Color::ALL.map(|c| pos.stone_count(c) as usize);
        let variant = pos.rules().variant;
        can_hold(pos.rules())
            && pos.in_placing_phase()
            && self.moving_file(variant, white, black).is_some()
            && self.moving_file(variant, black, white).is_some()
    }

    /// The databases read as `reads` allows: a search on the clock reads
    /// from memory only, and what a probe reading so cannot answer yet is
    /// asked of the background reader, so that a probe that answers is
    /// also how to know that a value is ready.
    pub fn reading(&self, reads: Reads) -> Probe<'_> {
        Probe { db: self, reads }
    }

    /// The outcome for the side to move of any position the databases
    /// hold, placing or moving, the draw rules left out, as a published
    /// solution gives it.
    pub fn outcome(&self, pos: &Position) -> Option<DbOutcome> {
        self.reading(Reads::Wait).outcome(pos).unwrap_or(None)
    }

    /// The value of a moving position, with its distance, if the databases
    /// hold it: their rules, nothing in hand, its sector loaded.
    pub fn value(&self, pos: &Position) -> Option<DbValue> {
        self.reading(Reads::Wait).value(pos).unwrap_or(None)
    }

    /// The outcome for the side to move under the N-move rule, as the
    /// engine weighs it at its root: the best of its moves'
    /// [`MoveValue::with_rule`] (after a removal the rule counts afresh), a
    /// win if one of them is known to win, else `None` if one of them is
    /// not known; in the placing phase the stored outcome then, where it
    /// tells the outcome under the rule (see [`MoveValue::with_rule`]).
    pub fn outcome_with_rule(&self, pos: &Position) -> Option<DbOutcome> {
        // The rules' order: a block or too few stones first, then the
        // rule, which has drawn the game however its moves would go on.
        if let Some(end) = pos.terminal_outcome() {
            return Some(DbOutcome::of_end(end, pos.side_to_move()));
        }
        if pos.n_move_rule_reached() {
            return Some(DbOutcome::Draw);
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            // Blocked: the position's own value says the game is lost.
            return self.value(pos).map(|value| value.outcome_at(pos));
        }
        // A move known to win decides, whatever the others.
        let (mut best, mut unknown) = (DbOutcome::Loss, false);
        for mv in moves {
            match self.move_value(pos, mv).with_rule {
                Some(DbOutcome::Win) => return Some(DbOutcome::Win),
                Some(outcome) => best = best.max(outcome),
                None => unknown = true,
            }
        }
        if !unknown {
            return Some(best);
        }
        if !pos.in_placing_phase() {
            return None;
        }
        placing_outcome_under_rule(pos, self.outcome(pos)?)
    }

    /// Every legal move of `pos` with what the databases know of it, for
    /// the side making it: in the moving phase best first (see
    /// [`DbValue`]; the moves not known after the draws, before the
    /// losses), in the placing phase, whose values have no distance, in the
    /// order of the legal moves.
    pub fn moves(&self, pos: &Position) -> Vec<MoveValue> {
        let mut moves: Vec<MoveValue> = pos
            .legal_moves()
            .into_iter()
            .map(|mv| self.move_value(pos, mv))
            .collect();
        if !pos.in_placing_phase() {
            // Wins and draws share a tier: their values tell them apart.
            let tier = |value: Option<DbValue>| match value {
                Some(value) if value.outcome == DbOutcome::Loss => 0,
                None => 1,
                Some(_) => 2,
            };
            moves.sort_by_key(|m| std::cmp::Reverse((tier(m.value), m.value)));
        }
        moves
    }

    /// The outcome of the legal move `mv` of `pos` for the side making it,
    /// as stored (the draw rules left out).
    pub(crate) fn move_outcome(&self, pos: &Position, mv: Move) -> Option<DbOutcome> {
        match after(pos, mv) {
            After::Ends(outcome) => Some(outcome),
            After::Leads(child) => self.outcome(&child).map(|theirs| -theirs),
        }
    }

    /// What the databases know of the legal move `mv` of `pos`, from the
    /// position it leads to.
    pub fn move_value(&self, pos: &Position, mv: Move) -> MoveValue {
        let child = match after(pos, mv) {
            After::Ends(outcome) => {
                let value = (!pos.in_placing_phase()).then(|| value_of_ending(outcome));
                return MoveValue {
                    mv,
                    outcome: Some(outcome),
                    value,
                    with_rule: Some(outcome),
                };
            }
            After::Leads(child) => child,
        };
        if pos.in_placing_phase() {
            let outcome = self.outcome(&child).map(|theirs| -theirs);
            // After the last placement the rule is weighed with the
            // distance, as in the moving phase; before it, the values have
            // none.
            let with_rule = if child.stones_to_place() == 0 {
                let theirs = self.reading(Reads::Wait).value_under_rule(&child);
                theirs.unwrap_or(None).map(|theirs| -theirs.outcome)
            } else {
                outcome.and_then(|outcome| {
                    placing_outcome_under_rule(&child, -outcome).map(|theirs| -theirs)
                })
            };
            return MoveValue {
                mv,
                outcome,
                value: None,
                with_rule,
            };
        }
        let theirs = self.value(&child);
        MoveValue {
            mv,
            outcome: theirs.map(|theirs| -theirs.outcome),
            value: theirs.map(|theirs| value_of_move(mv, theirs)),
            with_rule: theirs.map(|theirs| -theirs.outcome_at(&child)),
        }
    }

    /// The outcomes of `positions` of `variant` (each the stones of the
    /// side to move and of the other side, in the moving phase) as stored,
    /// appended to `outcomes`: the build's probe of the sectors it leads to.
    pub(crate) fn sector_outcomes(
        &self,
        variant: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    ) {
        outcomes.extend(positions.iter().map(|&(mover, other)| {
            let (file, index) = self.sector_entry(variant, mover, other)?;
            file.outcome(index)
        }));
    }

    /// Asks the background reader for the placing phase's first sectors,
    /// the fewest stones placed first, up to about `bytes`: what the first
    /// moves of a game will read.
    pub fn read_ahead_opening(&self, bytes: usize) {
        let mut files = self.placing_files();
        files.reverse();
        let mut asked = 0;
        for file in files {
            if asked >= bytes {
                break;
            }
            asked += file.read_ahead(Urgency::Game);
        }
    }

    /// The file and index of the position of `variant` with `mover` to
    /// move against `other`, if its sector is loaded.
    fn sector_entry(
        &self,
        variant: Variant,
        mover: Bitboard,
        other: Bitboard,
    ) -> Option<(&MovingFile, u64)> {
        let file = self.moving_file(variant, mover.len() as usize, other.len() as usize)?;
        Some((file, file.sector.board.canonical(mover, other).index))
    }

    /// The file and index of a position whose values keep distances (of
    /// the moving phase, or where a side with stones in hand may slide),
    /// if its sector is loaded.
    fn moving_entry(&self, pos: &Position) -> Option<(&MovingFile, u64)> {
        if !can_hold(pos.rules()) || pos.in_placing_phase() {
            return None;
        }
        let (us, them) = (pos.side_to_move(), pos.side_to_move().opponent());
        let (mover, other) = (pos.stones(us), pos.stones(them));
        if pos.stones_to_place() == 0 {
            return self.sector_entry(pos.rules().variant, mover, other);
        }
        let hand = |side: Color| usize::from(pos.in_hand(side));
        let sector = Sector::new(
            pos.rules().variant,
            mover.len() as usize,
            other.len() as usize,
            hand(us),
            hand(them),
        )?;
        let file = self.with_hands.get(&sector)?;
        Some((file, sector.board.canonical(mover, other).index))
    }

    /// Where the value of a placing position is: the file and index of its
    /// sector, if loaded, or derived if its sector's values are.
    fn placing_entry(&self, pos: &Position) -> Option<PlacingEntry<'_>> {
        if !can_hold(pos.rules()) || !pos.in_placing_phase() {
            return None;
        }
        let (us, them) = (pos.side_to_move(), pos.side_to_move().opponent());
        let count = |side: Color| pos.stones(side).len() as usize;
        let hand = |side: Color| pos.in_hand(side) as usize;
        let rules = pos.rules();
        let sector = Sector::placing(rules.variant, count(us), count(them), hand(us), hand(them))?
            .under(rules.full_board);
        match self.placing_file(sector) {
            Some(file) => {
                let index = sector
                    .board
                    .canonical(pos.stones(us), pos.stones(them))
                    .index;
                Some(PlacingEntry::Stored(file, index))
            }
            None if !sector.is_stored() => Some(PlacingEntry::Derived),
            None => None,
        }
    }
}

/// The databases read one way (see [`Database::reading`]): the probes of
/// the search, and the readiness of a value, which is whether a probe
/// reading from memory answers it.
#[derive(Clone, Copy, Debug)]
pub struct Probe<'a> {
    db: &'a Database,
    reads: Reads,
}

impl Probe<'_> {
    /// [`Database::outcome`], read as this probe reads.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and what it needs is
    /// not there: it is then read in the background.
    pub fn outcome(&self, pos: &Position) -> Result<Option<DbOutcome>, NotInMemory> {
        if !pos.in_placing_phase() {
            return match self.db.moving_entry(pos) {
                Some((file, index)) => file.outcome_with(index, self.reads),
                None => Ok(None),
            };
        }
        match self.db.placing_entry(pos) {
            Some(PlacingEntry::Stored(file, index)) => file.outcome_with(index, self.reads),
            Some(PlacingEntry::Derived) => self.best_placement(pos),
            None => Ok(None),
        }
    }

    /// [`Database::value`], read as this probe reads.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and what it needs is
    /// not there: it is then read in the background.
    pub fn value(&self, pos: &Position) -> Result<Option<DbValue>, NotInMemory> {
        match self.db.moving_entry(pos) {
            Some((file, index)) => self.stored_value(file, index, pos),
            None => Ok(None),
        }
    }

    /// The value of a moving position once the N-move rule is applied (its
    /// outcome as [`DbValue::outcome_at`] gives it): the distance is read
    /// only where the rule may draw the game; elsewhere the value holds the
    /// most it can be (the file's [`far`](MovingFile::far), or its longest
    /// win or loss). The search reads this at every position the databases
    /// hold.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and what it needs is
    /// not there: it is then read in the background.
    pub fn value_under_rule(&self, pos: &Position) -> Result<Option<DbValue>, NotInMemory> {
        let Some((file, index)) = self.db.moving_entry(pos) else {
            return Ok(None);
        };
        // The search's leaves: a miss asks for the outcome alone, as the
        // distance is seldom read here.
        let Some(outcome) = file.outcome_with(index, self.reads)? else {
            return Ok(None);
        };
        if outcome == DbOutcome::Draw {
            return Ok(Some(DbValue::draw()));
        }
        let longest = file.longest(outcome);
        let most = if file.is_far(index) {
            longest
        } else {
            longest.min(file.far())
        };
        let bound = DbValue {
            outcome,
            distance: u16::try_from(most).unwrap_or(u16::MAX),
        };
        if bound.outcome_at(pos) == outcome {
            return Ok(Some(bound));
        }
        let distance = self.distance(file, index, pos, outcome)?;
        Ok(distance.map(|distance| {
            let value = DbValue { outcome, distance };
            DbValue {
                outcome: value.outcome_at(pos),
                ..value
            }
        }))
    }

    /// The outcome of a placing position whose sector's values are derived
    /// (see [`Sector::is_stored`]): the best of its placements, each the
    /// reverse of the outcome of the position it leads to (stored, or
    /// derived in turn); a win as soon as one wins, else `None` if one of
    /// those is not known.
    fn best_placement(&self, pos: &Position) -> Result<Option<DbOutcome>, NotInMemory> {
        let (mut best, mut unknown, mut missing) = (DbOutcome::Loss, false, false);
        for mv in pos.legal_moves() {
            let outcome = match after(pos, mv) {
                After::Ends(outcome) => Some(outcome),
                // Once one is missing, the others are still read, so that
                // every block missing is asked for and all are read
                // together.
                After::Leads(child) => match self.outcome(&child) {
                    Err(NotInMemory) => {
                        missing = true;
                        continue;
                    }
                    Ok(theirs) => theirs.map(|theirs| -theirs),
                },
            };
            match outcome {
                Some(DbOutcome::Win) => return Ok(Some(DbOutcome::Win)),
                Some(outcome) => best = best.max(outcome),
                None => unknown = true,
            }
        }
        if missing {
            return Err(NotInMemory);
        }
        Ok((!unknown).then_some(best))
    }

    /// The value of the moving position `pos` at `index` of `file`: its
    /// outcome as stored, with its distance, stored or derived.
    fn stored_value(
        &self,
        file: &MovingFile,
        index: u64,
        pos: &Position,
    ) -> Result<Option<DbValue>, NotInMemory> {
        let Some(outcome) = self.moving_outcome(file, index, pos)? else {
            return Ok(None);
        };
        if outcome == DbOutcome::Draw {
            return Ok(Some(DbValue::draw()));
        }
        let distance = self.distance(file, index, pos, outcome)?;
        Ok(distance.map(|distance| DbValue { outcome, distance }))
    }

    /// The outcome of the moving position `pos` at `index` of `file`, on
    /// the way to its value with the distance. Reading from memory, when it
    /// is missing, what the distance of either outcome reads is asked for
    /// with it, so that all is read together.
    fn moving_outcome(
        &self,
        file: &MovingFile,
        index: u64,
        pos: &Position,
    ) -> Result<Option<DbOutcome>, NotInMemory> {
        let outcome = file.outcome_with(index, self.reads);
        if outcome.is_err() {
            for either in [DbOutcome::Win, DbOutcome::Loss] {
                let _asked = self.distance(file, index, pos, either);
            }
        }
        outcome
    }

    /// The distance of the moving position `pos` at `index` of `file`, won
    /// or lost as `outcome` says: stored, or derived.
    fn distance(
        &self,
        file: &MovingFile,
        index: u64,
        pos: &Position,
        outcome: DbOutcome,
    ) -> Result<Option<u16>, NotInMemory> {
        if file.kept().covers(outcome) {
            file.distance_with(index, outcome, self.reads)
        } else {
            self.derived_distance(pos, outcome)
        }
    }

    /// The distance of a moving position won or lost as `outcome` says,
    /// whose file does not keep it: its best move's, one ply over the
    /// positions the moves lead to, whose files keep the distances of the
    /// other outcome (see [`Kept`](super::format::Kept)), the only ones
    /// read. `None` if one is not known, or if the best move's outcome is
    /// not `outcome`, which only a damaged file can make.
    fn derived_distance(
        &self,
        pos: &Position,
        outcome: DbOutcome,
    ) -> Result<Option<u16>, NotInMemory> {
        let (mut best, mut unknown, mut missing) = (None, false, false);
        for mv in pos.legal_moves() {
            let value = match after(pos, mv) {
                After::Ends(ending) => Some(value_of_ending(ending)),
                // Once one is missing, the others are still read (see
                // `best_placement`).
                After::Leads(child) => match self.value_for_distance(mv, &child, outcome) {
                    Err(NotInMemory) => {
                        missing = true;
                        continue;
                    }
                    Ok(value) => value,
                },
            };
            match value {
                // No move does better.
                Some(value) if outcome == DbOutcome::Win && value == DbValue::win(1) => {
                    return Ok(Some(1));
                }
                Some(value) => best = best.max(Some(value)),
                None => unknown = true,
            }
        }
        if missing {
            return Err(NotInMemory);
        }
        if unknown {
            return Ok(None);
        }
        Ok(match best {
            // Blocked.
            None => (outcome == DbOutcome::Loss).then_some(0),
            Some(best) => (best.outcome == outcome).then_some(best.distance),
        })
    }

    /// The value of the move `mv` to `child` for a position won or lost as
    /// `outcome` says, as deriving that position's distance needs it: the
    /// distance where the move may be the best one, 0 elsewhere, where its
    /// outcome is enough (a removal is the next, or the move is not the
    /// best).
    fn value_for_distance(
        &self,
        mv: Move,
        child: &Position,
        outcome: DbOutcome,
    ) -> Result<Option<DbValue>, NotInMemory> {
        let Some((file, index)) = self.db.moving_entry(child) else {
            return Ok(None);
        };
        let reads_distance = |theirs: DbOutcome| mv.removal.is_none() && -theirs == outcome;
        let theirs = file.outcome_with(index, self.reads);
        if theirs.is_err() && mv.removal.is_none() {
            // Asked for with the outcome (see `moving_outcome`).
            let _asked = file.distance_with(index, -outcome, self.reads);
        }
        let Some(theirs) = theirs? else {
            return Ok(None);
        };
        let distance = if reads_distance(theirs) {
            match file.distance_with(index, theirs, self.reads)? {
                Some(distance) => distance,
                None => return Ok(None),
            }
        } else {
            0
        };
        Ok(Some(value_of_move(
            mv,
            DbValue {
                outcome: theirs,
                distance,
            },
        )))
    }
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let moving: Vec<String> = self
            .moving_files()
            .iter()
            .map(|f| f.sector.to_string())
            .collect();
        let placing: Vec<String> = self
            .placing_files()
            .iter()
            .map(|f| f.sector.to_string())
            .collect();
        f.debug_struct("Database")
            .field("moving", &moving)
            .field("placing", &placing)
            .finish()
    }
}

/// Where the value of a placing position is.
enum PlacingEntry<'a> {
    /// In this file, at this index.
    Stored(&'a PlacingFile, u64),
    /// One ply away, or two with two stones left to place: its sector's
    /// values are derived from those its placements lead to.
    Derived,
}

/// Whether databases can hold positions of `rules`: with flying (the
/// sectors of either full-board rule have files of their own).
fn can_hold(rules: Rules) -> bool {
    rules.flying
}

/// Slots of the moving files of one variant: `MAX_STONES + 1` to a row.
const VARIANT_SLOTS: usize = (MAX_STONES + 1) * (MAX_STONES + 1);
/// Slots of the moving files of every variant.
const MOVING_SLOTS: usize = Variant::ALL.len() * VARIANT_SLOTS;

/// Where the file of `variant`'s moving sector of `mover` and `other`
/// stones is kept.
fn moving_slot(variant: Variant, mover: usize, other: usize) -> usize {
    variant as usize * VARIANT_SLOTS + mover * (MAX_STONES + 1) + other
}

/// The best of `moves` by `known`, `Some(None)` if there is no move, and
/// `None` as soon as one is not known: this runs for every position
/// checked, so nothing is collected.
pub(super) fn best_known<I, T: Ord>(
    moves: impl IntoIterator<Item = I>,
    known: impl Fn(I) -> Option<T>,
) -> Option<Option<T>> {
    moves
        .into_iter()
        .try_fold(None, |best, mv| Some(best.max(Some(known(mv)?))))
}

/// Where a legal move leads.
enum After {
    /// The game is over, with this outcome for the side that moved.
    Ends(DbOutcome),
    /// The game goes on from this position.
    Leads(Position),
}

/// Where the legal move `mv` of `pos` leads.
fn after(pos: &Position, mv: Move) -> After {
    let mut child = *pos;
    child.play_unchecked(mv);
    match child.terminal_outcome() {
        Some(end) if end.winner().is_some() => After::Ends(DbOutcome::Win),
        Some(_) => After::Ends(DbOutcome::Draw),
        None => After::Leads(child),
    }
}

/// The outcome under the N-move rule of a placing position stored as
/// `stored`, where the rule cannot change it: the rule off, or reached (a
/// draw), or a stored draw, which it leaves a draw (a side that wins under
/// the rule wins without it too); `None` elsewhere, since the placing
/// phase's values have no distance for the rule to weigh.
fn placing_outcome_under_rule(pos: &Position, stored: DbOutcome) -> Option<DbOutcome> {
    if pos.n_move_rule_reached() {
        Some(DbOutcome::Draw)
    } else if stored == DbOutcome::Draw || pos.rules().draw_plies().is_none() {
        Some(stored)
    } else {
        None
    }
}

/// The value of a move that ends the game with `outcome` for its side: a
/// win in 1, or a draw.
fn value_of_ending(outcome: DbOutcome) -> DbValue {
    match outcome {
        DbOutcome::Win => DbValue::win(1),
        _ => DbValue::draw(),
    }
}

/// The value of the move `mv` for its side, from `theirs`, the value of
/// the position it leads to for the other side.
fn value_of_move(mv: Move, theirs: DbValue) -> DbValue {
    // The next removal is this move's, or one ply further than theirs.
    let distance = if mv.removal.is_some() {
        1
    } else {
        theirs.distance + 1
    };
    match -theirs.outcome {
        DbOutcome::Draw => DbValue::draw(),
        outcome => DbValue { outcome, distance },
    }
}
