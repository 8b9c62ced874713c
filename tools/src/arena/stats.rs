//! Match statistics: Elo difference with a 95% interval, and the
//! sequential probability ratio test (SPRT) for two engines.

/// Wins, draws and losses from one side's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// The z value of a two-sided 95% interval.
const Z_95: f64 = 1.959_964;

/// The Elo difference that gives an expected score `s` (0 < s < 1).
pub fn elo_from_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score at an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Score {
    /// Games played.
    pub fn games(self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The mean score per game, 0 to 1.
    pub fn mean(self) -> f64 {
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(self.games().max(1))
    }

    /// The games as a sample of independent game scores.
    pub fn sample(self) -> Sample {
        let n = f64::from(self.games().max(1));
        let s = self.mean();
        Sample {
            units: f64::from(self.games()),
            mean: s,
            variance: (f64::from(self.wins) * (1.0 - s).powi(2)
                + f64::from(self.draws) * (0.5 - s).powi(2)
                + f64::from(self.losses) * s.powi(2))
                / n,
        }
    }

    /// The Elo difference and the half-width of its 95% interval, from
    /// the games taken one by one (see [`Sample::elo`]).
    pub fn elo(self) -> Option<(f64, f64)> {
        self.sample().elo()
    }
}

/// Results of game pairs (one opening played with both colours) from one
/// side's view: `counts[k]` pairs scored `k` half-points of the two games'
/// two points (0 = both lost, 2 = a loss and a win or two draws, 4 = both
/// won). Since an opening often favours one colour, pairs vary far less
/// than single games, and the interval and SPRT taken over pairs are the
/// honest ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by half-points scored, 0 to 4.
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Complete pairs.
    pub fn pairs(self) -> u32 {
        self.counts.iter().sum()
    }

    /// Counts a pair in which this side scored `half_points` (0 to 4).
    pub fn add(&mut self, half_points: usize) {
        self.counts[half_points] += 1;
    }

    /// The same pairs from the other side's view.
    pub fn reversed(self) -> Pentanomial {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }

    /// The pairs as a sample of independent pair scores (each the mean of
    /// its two games).
    pub fn sample(self) -> Sample {
        let n = f64::from(self.pairs().max(1));
        let score = |k: usize| k as f64 / 4.0;
        let mean = (0..5)
            .map(|k| f64::from(self.counts[k]) * score(k))
            .sum::<f64>()
            / n;
        let variance = (0..5)
            .map(|k| f64::from(self.counts[k]) * (score(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Sample {
            units: f64::from(self.pairs()),
            mean,
            variance,
        }
    }
}

/// Results reduced to what the statistics need: independent units (games
/// or game pairs), the mean score per game, and the variance of one
/// unit's score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Independent units.
    pub units: f64,
    /// Mean score per game, 0 to 1.
    pub mean: f64,
    /// Variance of one unit's mean score.
    pub variance: f64,
}

impl Sample {
    /// The Elo difference and the half-width of its 95% interval; `None`
    /// without results, and the difference is infinite after nothing but
    /// wins (or losses).
    pub fn elo(self) -> Option<(f64, f64)> {
        if self.units == 0.0 {
            return None;
        }
        let s = self.mean;
        let error = (self.variance / self.units).sqrt();
        let bounded = |x: f64| x.clamp(1e-9, 1.0 - 1e-9);
        let low = elo_from_score(bounded(s - Z_95 * error));
        let high = elo_from_score(bounded(s + Z_95 * error));
        Some((elo_from_score(s), (high - low) / 2.0))
    }
}

/// Ratings of every engine from all the games of a tournament, by maximum
/// likelihood under the Elo model (a draw counts as half a win and half a
/// loss), with the first engine at 0: unlike each engine's score against
/// the field, these compare engines that met different opponents.
/// `scores[i][j]` holds engine `i`'s results against engine `j`. `None`
/// for an engine that won or lost every game (its rating is unbounded) or
/// when the first engine has no rating.
pub fn joint_ratings(scores: &[Vec<Score>]) -> Vec<Option<f64>> {
    let n = scores.len();
    let points = |i: usize| -> f64 {
        scores[i]
            .iter()
            .map(|s| s.mean() * f64::from(s.games()))
            .sum()
    };
    let games = |i: usize, j: usize| f64::from(scores[i][j].games());
    let rated: Vec<bool> = (0..n)
        .map(|i| {
            let played: f64 = (0..n).map(|j| games(i, j)).sum();
            played > 0.0 && points(i) > 0.0 && points(i) < played
        })
        .collect();
    // Minorisation-maximisation (Hunter 2004) on strengths 10^(elo/400):
    // each engine's strength becomes its points over its expected games.
    let mut strength = vec![1.0_f64; n];
    for _ in 0..10_000 {
        let mut change = 0.0_f64;
        for i in (0..n).filter(|&i| rated[i]) {
            let denominator: f64 = (0..n)
                .filter(|&j| j != i && rated[j])
                .map(|j| games(i, j) / (strength[i] + strength[j]))
                .sum();
            if denominator > 0.0 {
                let next = points(i) / denominator;
                change = change.max((next / strength[i]).ln().abs());
                strength[i] = next;
            }
        }
        if change < 1e-10 {
            break;
        }
    }
    if !rated.first().copied().unwrap_or(false) {
        return vec![None; n];
    }
    let anchor = strength[0];
    (0..n)
        .map(|i| rated[i].then(|| 400.0 * (strength[i] / anchor).log10()))
        .collect()
}

/// The hypotheses and error rates of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo difference of the null hypothesis.
    pub elo0: f64,
    /// Elo difference of the alternative.
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SprtState {
    /// Not decided yet.
    Running,
    /// H0 accepted: the first engine is not `elo1` better.
    AcceptH0,
    /// H1 accepted: the first engine is better by `elo1` or so.
    AcceptH1,
}

impl Sprt {
    /// The bounds of the log-likelihood ratio: below the first H0 is
    /// accepted, above the second H1.
    pub fn bounds(self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the results so far, by the normal
    /// approximation of the generalised SPRT (as fishtest and fastchess
    /// compute it, over games or over game pairs).
    pub fn llr(self, sample: Sample) -> f64 {
        if sample.units == 0.0 || sample.variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        sample.units * (s1 - s0) * (2.0 * sample.mean - s0 - s1) / (2.0 * sample.variance)
    }

    /// The decision the results allow.
    pub fn state(self, sample: Sample) -> SprtState {
        let llr = self.llr(sample);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Running
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joint_ratings_recover_known_differences() {
        // Three engines 0, 100 and 250 Elo apart, each pair playing many
        // games with the expected scores (no draws).
        let elos = [0.0, 100.0, 250.0];
        let games = 10_000.0;
        let scores: Vec<Vec<Score>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        if i == j {
                            return Score::default();
                        }
                        let wins = (games * score_from_elo(elos[i] - elos[j])).round() as u32;
                        Score {
                            wins,
                            draws: 0,
                            losses: games as u32 - wins,
                        }
                    })
                    .collect()
            })
            .collect();
        let ratings = joint_ratings(&scores);
        for (rating, elo) in ratings.iter().zip(elos) {
            assert!((rating.unwrap() - elo).abs() < 1.0, "{ratings:?}");
        }
        // Engine 2 wins every game against 0 only: still rated through 1.
        let mut one_sided = scores.clone();
        one_sided[2][0] = Score {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        one_sided[0][2] = Score {
            wins: 0,
            draws: 0,
            losses: 10,
        };
        assert!(joint_ratings(&one_sided)[2].is_some());
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    // The expected values below were worked out by hand (with a pocket
    // calculator) from the formulas: s = (W + D/2) / N, the per-game
    // variance of the score, s ± 1.959964 standard errors turned into Elo.
    #[test]
    fn elo_and_interval() {
        let score = Score {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let (elo, margin) = score.elo().unwrap();
        assert!(close(elo, 147.190_714), "{elo}");
        assert!((margin - 66.013_38).abs() < 1e-4, "{margin}");
        let even = Score {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let (elo, margin) = even.elo().unwrap();
        assert!(close(elo, 0.0));
        assert!((margin - 53.157_9).abs() < 1e-3, "{margin}");
        assert_eq!(Score::default().elo(), None);
    }

    #[test]
    fn sprt_ratio_and_bounds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lower, upper) = sprt.bounds();
        assert!(close(lower, -2.944_439));
        assert!(close(upper, 2.944_439));
        let llr = sprt.llr(
            Score {
                wins: 60,
                draws: 20,
                losses: 20,
            }
            .sample(),
        );
        assert!((llr - 1.733_713).abs() < 1e-5, "{llr}");
        assert_eq!(
            sprt.state(
                Score {
                    wins: 60,
                    draws: 20,
                    losses: 20
                }
                .sample()
            ),
            SprtState::Running
        );
        let llr = sprt.llr(
            Score {
                wins: 30,
                draws: 40,
                losses: 30,
            }
            .sample(),
        );
        assert!((llr + 0.068_997).abs() < 1e-5, "{llr}");
        assert_eq!(
            sprt.state(
                Score {
                    wins: 400,
                    draws: 100,
                    losses: 100
                }
                .sample()
            ),
            SprtState::AcceptH1
        );
        assert_eq!(
            sprt.state(
                Score {
                    wins: 100,
                    draws: 100,
                    losses: 400
                }
                .sample()
            ),
            SprtState::AcceptH0
        );
    }

    // Worked out by hand from the formulas: pair scores 0, 1/4, 1/2, 3/4,
    // 1; their mean and variance; the interval over 100 pairs.
    #[test]
    fn pentanomial_elo_and_llr_count_pairs() {
        let pairs = Pentanomial {
            counts: [5, 10, 60, 15, 10],
        };
        let sample = pairs.sample();
        assert!(close(sample.mean, 0.5375));
        assert!(close(sample.variance, 0.051_718_75));
        let (elo, margin) = sample.elo().unwrap();
        assert!((elo - 26.106_693).abs() < 1e-5, "{elo}");
        assert!((margin - 31.232_998).abs() < 1e-4, "{margin}");
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        assert!((sprt.llr(sample) - 0.843_067).abs() < 1e-5);
        assert_eq!(pairs.reversed().counts, [10, 15, 60, 10, 5]);
        assert_eq!(Pentanomial::default().sample().elo(), None);
        // Fifty openings each won by White: as single games a coin toss
        // with a wide interval, as pairs an exact even score.
        let colour_wins = Pentanomial {
            counts: [0, 0, 50, 0, 0],
        };
        assert_eq!(colour_wins.sample().elo(), Some((0.0, 0.0)));
        let singly = Score {
            wins: 50,
            draws: 0,
            losses: 50,
        };
        assert!(singly.elo().unwrap().1 > 60.0);
    }
}
