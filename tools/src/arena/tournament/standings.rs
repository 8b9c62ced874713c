//! How a match stands: the results by engine and by game pair, the SPRT's
//! decision, the time each engine thought, and the tables printed of them.

use std::collections::HashMap;
use std::time::Duration;

use morris::GameResult;

use super::{MatchConfig, Pairing};
use crate::arena::game::PlayedGame;
use crate::arena::stats::{Pentanomial, Sample, Score, Sprt, SprtState, joint_ratings};

/// The standing of a match.
#[derive(Clone, Debug, Default)]
pub struct Standings {
    /// `scores[i][j]`: engine `i`'s results against engine `j`.
    pub scores: Vec<Vec<Score>>,
    /// Games finished (interrupted ones are not counted).
    pub played: usize,
    /// Games scheduled.
    pub scheduled: usize,
    /// The records, in the order games finished.
    pub records: Vec<PlayedGame>,
    /// The SPRT decision, if one was asked for.
    pub sprt: Option<SprtState>,
    /// `pairs[i][j]`: engine `i`'s results against `j` by game pair.
    pub pairs: Vec<Vec<Pentanomial>>,
    /// Time each engine thought, and its moves.
    pub thinking: Vec<(Duration, u32)>,
    /// The first finished game of each pair whose second is not in yet:
    /// its white engine and the half-points White scored.
    waiting: HashMap<usize, (usize, usize)>,
}

impl Standings {
    /// Engine `i`'s results against all others.
    pub fn total(&self, i: usize) -> Score {
        self.scores[i]
            .iter()
            .fold(Score::default(), |acc, s| Score {
                wins: acc.wins + s.wins,
                draws: acc.draws + s.draws,
                losses: acc.losses + s.losses,
            })
    }

    /// Empty standings for `engines` engines.
    pub fn new(engines: usize, scheduled: usize) -> Standings {
        Standings {
            scores: vec![vec![Score::default(); engines]; engines],
            scheduled,
            pairs: vec![vec![Pentanomial::default(); engines]; engines],
            thinking: vec![(Duration::ZERO, 0); engines],
            ..Standings::default()
        }
    }

    /// The mean time per move of engine `i`, once it has moved.
    pub fn time_per_move(&self, i: usize) -> Option<Duration> {
        let (time, moves) = self.thinking[i];
        (moves > 0).then(|| time / moves)
    }

    /// What the SPRT and the summary weigh for two engines: the first
    /// engine's game pairs when games come in pairs, else single games.
    pub fn sample(&self, games_per_opening: usize) -> Sample {
        if games_per_opening % 2 == 0 {
            self.pairs[0][1].sample()
        } else {
            self.scores[0][1].sample()
        }
    }

    /// Applies the SPRT to the first two engines' results; whether it has
    /// decided. A decision stands: the games still running when it came
    /// do not undo it.
    pub fn weigh_sprt(&mut self, sprt: Sprt, games_per_opening: usize) -> bool {
        if self.sprt.is_some_and(|s| s != SprtState::Running) {
            return true;
        }
        let sample = self.sample(games_per_opening);
        let state = if sample.units < MIN_SPRT_UNITS {
            SprtState::Running
        } else {
            sprt.state(sample)
        };
        self.sprt = Some(state);
        state != SprtState::Running
    }

    /// Counts a finished game (an unfinished one only for the time).
    pub(super) fn add(&mut self, pairing: Pairing, game: &PlayedGame) {
        let (w, b) = (pairing.white, pairing.black);
        for (engine, colour) in [(w, 0), (b, 1)] {
            self.thinking[engine].0 += game.thinking.time[colour];
            self.thinking[engine].1 += game.thinking.moves[colour];
        }
        let white_half_points = match game.result {
            GameResult::WhiteWins => 2,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
            GameResult::Unfinished => return self.add_score(w, b, game.result),
        };
        match self.waiting.remove(&pairing.pair) {
            Some((first_white, first_half_points)) => {
                // The engine that was White first scored then, and as
                // Black now.
                let other = if first_white == w { b } else { w };
                let now = if first_white == w {
                    white_half_points
                } else {
                    2 - white_half_points
                };
                let half_points = first_half_points + now;
                self.pairs[first_white][other].add(half_points);
                self.pairs[other][first_white].add(4 - half_points);
            }
            None => {
                self.waiting.insert(pairing.pair, (w, white_half_points));
            }
        }
        self.add_score(w, b, game.result);
    }

    fn add_score(&mut self, w: usize, b: usize, result: GameResult) {
        match result {
            GameResult::WhiteWins => {
                self.scores[w][b].wins += 1;
                self.scores[b][w].losses += 1;
            }
            GameResult::BlackWins => {
                self.scores[w][b].losses += 1;
                self.scores[b][w].wins += 1;
            }
            GameResult::Draw => {
                self.scores[w][b].draws += 1;
                self.scores[b][w].draws += 1;
            }
            GameResult::Unfinished => return,
        }
        self.played += 1;
    }
}

/// The game pairs (or games) an SPRT waits for before it may decide: the
/// spread of a handful of pairs is no estimate of their variance, and a
/// run of equal pairs would otherwise end a test at once.
const MIN_SPRT_UNITS: f64 = 30.0;
/// The closing table: each engine's games, results, score, Elo against
/// the field and mean time per move, best first; with more than two
/// engines also the joint rating of all games, the first engine at 0;
/// with two, their game pairs.
pub fn results_table(config: &MatchConfig, standings: &Standings) -> String {
    let mut rows: Vec<(usize, Score)> = (0..config.engines.len())
        .map(|i| (i, standings.total(i)))
        .collect();
    rows.sort_by(|a, b| b.1.mean().total_cmp(&a.1.mean()));
    let joint = (config.engines.len() > 2).then(|| joint_ratings(&standings.scores));
    let width = config
        .engines
        .iter()
        .map(|e| e.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut text = format!(
        "{:>4} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>7} {:>16} {:>8}",
        "Rank", "Name", "Games", "W", "D", "L", "Score", "Elo (95%)", "s/move"
    );
    if joint.is_some() {
        text.push_str("   Rating");
    }
    text.push('\n');
    for (rank, (i, score)) in rows.iter().enumerate() {
        let time = standings
            .time_per_move(*i)
            .map_or("-".to_owned(), |t| format!("{:.3}", t.as_secs_f64()));
        text.push_str(&format!(
            "{:>4} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>6.1}% {:>16} {time:>8}",
            rank + 1,
            config.engines[*i].name,
            score.games(),
            score.wins,
            score.draws,
            score.losses,
            100.0 * score.mean(),
            elo_text(score.sample()),
        ));
        if let Some(joint) = &joint {
            match joint[*i] {
                Some(rating) => text.push_str(&format!(" {rating:>8.0}")),
                None => text.push_str("        -"),
            }
        }
        text.push('\n');
    }
    if config.engines.len() == 2 && standings.pairs[0][1].pairs() > 0 {
        text.push_str(&format!("{}\n", pairs_text(config, standings)));
    }
    text
}

/// `+25.0 ± 30.1`, or `-` when there is no finite difference.
pub fn elo_text(sample: Sample) -> String {
    match sample.elo() {
        Some((elo, margin)) if elo.is_finite() => format!("{elo:+.1} ± {margin:.1}"),
        _ => "-".to_owned(),
    }
}

/// The first engine's game pairs against the second: how many scored 0,
/// ½, 1, 1½ and 2 points, and the Elo they give.
pub fn pairs_text(config: &MatchConfig, standings: &Standings) -> String {
    let pairs = standings.pairs[0][1];
    let [ll, ld, dd, wd, ww] = pairs.counts;
    format!(
        "Pairs for {}: {} (LL {ll}, LD {ld}, DD/WL {dd}, WD {wd}, WW {ww}), Elo {}",
        config.engines[0].name,
        pairs.pairs(),
        elo_text(pairs.sample())
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::arena::game::Thinking;

    fn played(result: GameResult) -> PlayedGame {
        PlayedGame {
            result,
            termination: String::new(),
            record: morris::GameRecord {
                tags: Vec::new(),
                moves: Vec::new(),
                comments: Default::default(),
                result,
            },
            thinking: Thinking {
                time: [Duration::from_millis(300), Duration::from_millis(100)],
                moves: [3, 1],
            },
        }
    }

    fn pairing(white: usize, black: usize, pair: usize) -> Pairing {
        Pairing {
            white,
            black,
            opening: 0,
            round: 1,
            pair,
        }
    }

    #[test]
    fn standings_add_up() {
        let mut standings = Standings::new(3, 4);
        standings.add(pairing(0, 1, 0), &played(GameResult::WhiteWins));
        standings.add(pairing(2, 0, 1), &played(GameResult::Draw));
        standings.add(pairing(1, 2, 2), &played(GameResult::BlackWins));
        standings.add(pairing(1, 2, 3), &played(GameResult::Unfinished));
        assert_eq!(standings.played, 3);
        let score = |wins, draws, losses| Score {
            wins,
            draws,
            losses,
        };
        assert_eq!(standings.total(0), score(1, 1, 0));
        assert_eq!(standings.total(2), score(1, 1, 0));
        assert_eq!(standings.total(1), score(0, 0, 2));
        assert_eq!(standings.time_per_move(0), Some(Duration::from_millis(100)));
    }

    #[test]
    fn pairs_are_scored_when_both_games_are_in() {
        let mut standings = Standings::new(2, 8);
        // Pair 0: engine 0 wins with White, loses with Black (1 point).
        standings.add(pairing(0, 1, 0), &played(GameResult::WhiteWins));
        assert_eq!(standings.pairs[0][1].pairs(), 0);
        standings.add(pairing(1, 0, 0), &played(GameResult::WhiteWins));
        // Pair 1, finished in the other order: engine 0 wins both.
        standings.add(pairing(1, 0, 1), &played(GameResult::BlackWins));
        standings.add(pairing(0, 1, 1), &played(GameResult::WhiteWins));
        // Pair 2: a draw, then engine 0 loses with Black (half a point).
        standings.add(pairing(0, 1, 2), &played(GameResult::Draw));
        standings.add(pairing(1, 0, 2), &played(GameResult::WhiteWins));
        // Pair 3: one game unfinished, so no pair.
        standings.add(pairing(0, 1, 3), &played(GameResult::Unfinished));
        standings.add(pairing(1, 0, 3), &played(GameResult::Draw));
        assert_eq!(standings.pairs[0][1].counts, [0, 1, 1, 0, 1]);
        assert_eq!(standings.pairs[1][0].counts, [1, 0, 1, 1, 0]);
        assert_eq!(standings.sample(2).units, 3.0);
        assert_eq!(standings.sample(1).units, 7.0);
    }

    #[test]
    fn the_sprt_waits_for_enough_pairs_and_its_decision_stands() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let mut standings = Standings::new(2, 200);
        let mut pair = 0;
        let mut play_pair = |standings: &mut Standings, first, second| {
            standings.add(pairing(0, 1, pair), &played(first));
            standings.add(pairing(1, 0, pair), &played(second));
            pair += 1;
        };
        // Ten pairs, won twice or won and drawn in turn: a run that would
        // end the test at once if a few pairs were trusted.
        let won = [GameResult::WhiteWins, GameResult::BlackWins];
        let won_and_drawn = [GameResult::WhiteWins, GameResult::Draw];
        for i in 0..10 {
            let [first, second] = if i % 2 == 0 { won } else { won_and_drawn };
            play_pair(&mut standings, first, second);
            assert!(!standings.weigh_sprt(sprt, 2));
        }
        assert!(sprt.llr(standings.sample(2)) > sprt.bounds().1);
        for i in 0..20 {
            let [first, second] = if i % 2 == 0 { won } else { won_and_drawn };
            play_pair(&mut standings, first, second);
            standings.weigh_sprt(sprt, 2);
        }
        assert_eq!(standings.sprt, Some(SprtState::AcceptH1));
        // Later losses do not take the decision back.
        for _ in 0..20 {
            play_pair(&mut standings, GameResult::BlackWins, GameResult::WhiteWins);
        }
        assert!(standings.weigh_sprt(sprt, 2));
        assert_eq!(standings.sprt, Some(SprtState::AcceptH1));
    }
}
