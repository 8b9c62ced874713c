//! Which games a tournament plays: who meets whom, with which colours and
//! openings, in which rounds and pairs.

use super::MatchConfig;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tournament {
    /// Every engine against every other.
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// Engine index playing White.
    pub white: usize,
    /// Engine index playing Black.
    pub black: usize,
    /// Opening index.
    pub opening: usize,
    /// Round, from 1.
    pub round: usize,
    /// The game pair (one opening, colours swapped) the game belongs to.
    pub pair: usize,
}

/// The games of a tournament, in the order they start.
pub fn schedule(config: &MatchConfig) -> Vec<Pairing> {
    let n = config.engines.len();
    let pairs: Vec<(usize, usize)> = match config.tournament {
        Tournament::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
        Tournament::Gauntlet => (1..n).map(|j| (0, j)).collect(),
    };
    let openings_per_round = config.games.div_ceil(2);
    let mut games = Vec::new();
    for round in 0..config.rounds {
        for &(a, b) in &pairs {
            for g in 0..config.games {
                let opening = (round * openings_per_round + g / 2) % config.openings.len().max(1);
                let (white, black) = if g % 2 == 0 { (a, b) } else { (b, a) };
                let pair = games.len() / 2;
                games.push(Pairing {
                    white,
                    black,
                    opening,
                    round: round + 1,
                    pair,
                });
            }
        }
    }
    games
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use morris::Rules;

    use super::*;
    use crate::arena::game::GameSettings;
    use crate::arena::openings::random_openings;
    use crate::client::EngineConfig;

    fn config(engines: usize, tournament: Tournament, rounds: usize, games: usize) -> MatchConfig {
        MatchConfig {
            engines: (0..engines)
                .map(|i| EngineConfig {
                    name: format!("e{i}"),
                    cmd: "true".to_owned(),
                    ..EngineConfig::default()
                })
                .collect(),
            rounds,
            games,
            concurrency: 1,
            openings: random_openings(3, 2..=2, 1, Rules::default()),
            tournament,
            sprt: None,
            pgn_out: None,
            rating_interval: None,
            settings: GameSettings {
                rules: Rules::default(),
                time_margin: Duration::ZERO,
                hang_timeout: Duration::ZERO,
            },
        }
    }

    #[test]
    fn round_robin_pairs_everyone_and_swaps_colours_on_each_opening() {
        let games = schedule(&config(3, Tournament::RoundRobin, 2, 2));
        assert_eq!(games.len(), 3 * 2 * 2);
        for pair in games.chunks(2) {
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
            assert_eq!(pair[0].opening, pair[1].opening);
        }
        assert_eq!(games[0].opening, 0);
        assert_eq!(games[6].opening, 1);
        assert_eq!(games[6].round, 2);
    }

    #[test]
    fn a_gauntlet_pairs_the_first_engine_with_each_other() {
        let games = schedule(&config(4, Tournament::Gauntlet, 1, 2));
        assert_eq!(games.len(), 3 * 2);
        assert!(games.iter().all(|g| g.white == 0 || g.black == 0));
    }

    #[test]
    fn schedule_numbers_pairs() {
        let games = schedule(&config(2, Tournament::RoundRobin, 2, 2));
        let pairs: Vec<usize> = games.iter().map(|g| g.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 1]);
    }
}
