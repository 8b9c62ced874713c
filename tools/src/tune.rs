//! Texel tuning: the evaluation's weights fitted so that a logistic curve
//! of the evaluation predicts known results (game results, database
//! values) with the least squared error.

use std::fmt;

use morris::Position;

use morris::eval::{FEATURES, Feature, PHASE_SCALE, STONE, Weights, draw_rule_share, features};

use morris::search::WdlModel;
use rayon::prelude::*;

/// A position reduced to what the fit needs, from the side to move's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Material difference in centi-stones.
    material: f64,
    /// Feature differences (own less the opponent's), in counts.
    features: [f64; FEATURES],
    /// The share of the evaluation the N-move counter leaves standing.
    share: f64,
    /// The result: 1 a win, 0.5 a draw, 0 a loss.
    result: f64,
}

impl Sample {
    /// The sample of `pos` with the side to move's `result`.
    pub fn new(pos: &Position, result: f64) -> Sample {
        let us = pos.side_to_move();
        let them = us.opponent();
        let (ours, theirs) = (features(pos, us), features(pos, them));
        Sample {
            material: f64::from(STONE)
                * (f64::from(pos.stone_count(us)) - f64::from(pos.stone_count(them))),
            features: std::array::from_fn(|i| {
                f64::from(ours[i] - theirs[i]) / f64::from(PHASE_SCALE)
            }),
            share: f64::from(draw_rule_share(pos)) / f64::from(PHASE_SCALE),
            result,
        }
    }

    /// The evaluation under `weights` (features then tempo).
    fn eval(&self, weights: &[f64; FEATURES + 1]) -> f64 {
        self.share
            * (self.material
                + (0..FEATURES)
                    .map(|i| weights[i] * self.features[i])
                    .sum::<f64>()
                + weights[FEATURES])
    }
}

/// Whether a position is quiet enough for its static evaluation to speak
/// for it: the game goes on and the side to move closes no mill. (The
/// opponent's threats stay: weighing them is the evaluation's job.)
pub fn quiet(pos: &Position) -> bool {
    !pos.side_to_move_is_short() && pos.count_legal_moves() > 0 && pos.legal_mill_moves().is_empty()
}

/// The weights as the fit works on them: the features' weights, then the
/// tempo.
fn as_vector(weights: &Weights) -> [f64; FEATURES + 1] {
    std::array::from_fn(|i| f64::from(weights.features.get(i).copied().unwrap_or(weights.tempo)))
}

/// The chance of winning an evaluation of `eval` gives, with scale `k`.
fn sigmoid(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-k * eval).exp())
}

/// How many items each parallel task sums: a fixed number, so that the
/// partial sums, added in their order, make the same total on any number
/// of threads (floating-point addition is not associative, and a fit must
/// give the same weights from the same data).
const CHUNK: usize = 1024;

/// The sum over `items` of what `add` adds to a vector of `N` values, the
/// same to the last bit on any number of threads.
fn ordered_sum<T: Sync, const N: usize>(
    items: &[T],
    add: impl Fn(&T, &mut [f64; N]) + Sync,
) -> [f64; N] {
    items
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sum = [0.0; N];
            for item in chunk {
                add(item, &mut sum);
            }
            sum
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold([0.0; N], |a, b| std::array::from_fn(|i| a[i] + b[i]))
}

/// The mean squared error of the predictions.
fn loss(samples: &[Sample], weights: &[f64; FEATURES + 1], k: f64) -> f64 {
    let [total] = ordered_sum(samples, |s, [sum]| {
        *sum += (s.result - sigmoid(s.eval(weights), k)).powi(2);
    });
    total / samples.len().max(1) as f64
}

/// The scale of the logistic curve that fits `weights` best (golden-section
/// search), so that the weights are then fitted at the scale of the data.
fn fit_scale(samples: &[Sample], weights: &[f64; FEATURES + 1]) -> f64 {
    let (mut low, mut high) = (1e-4_f64, 0.1_f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if loss(samples, weights, a) < loss(samples, weights, b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// The result of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The weights, rounded.
    pub weights: Weights,
    /// The logistic scale at the end.
    pub k: f64,
    /// The error of the starting weights, at the scale that fits them best.
    pub loss_before: f64,
    /// The error of the fitted weights (rounded).
    pub loss_after: f64,
    /// Positions fitted to.
    pub samples: usize,
}

impl fmt::Display for Fitted {
    /// The figures of the fit, then the weights as the engine's source
    /// writes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} positions, k = {:.6}, error {:.6} -> {:.6}",
            self.samples, self.k, self.loss_before, self.loss_after
        )?;
        for (feature, weight) in Feature::ALL.iter().zip(self.weights.features) {
            writeln!(f, "{:<18} {weight:>6}", feature.name())?;
        }
        writeln!(f, "{:<18} {:>6}", "tempo", self.weights.tempo)?;
        write!(
            f,
            "features: {:?},\ntempo: {},",
            self.weights.features, self.weights.tempo
        )
    }
}

/// Fits the weights to `samples` from `start` by `epochs` passes of
/// gradient descent (Adam), the logistic scale fitted to `start` and again
/// every 200 passes; `progress` hears the error now and then.
pub fn fit(
    samples: &[Sample],
    start: Weights,
    epochs: usize,
    mut progress: impl FnMut(usize, f64),
) -> Fitted {
    let mut weights = as_vector(&start);
    let mut k = fit_scale(samples, &weights);
    let loss_before = loss(samples, &weights, k);
    let n = samples.len().max(1) as f64;
    let (rate, beta1, beta2) = (1.0, 0.9, 0.999);
    let mut first = [0.0; FEATURES + 1];
    let mut second = [0.0; FEATURES + 1];
    for epoch in 1..=epochs {
        let gradient = ordered_sum(samples, |s, g: &mut [f64; FEATURES + 1]| {
            let p = sigmoid(s.eval(&weights), k);
            let common = -2.0 * (s.result - p) * p * (1.0 - p) * k * s.share;
            for (i, slot) in g.iter_mut().take(FEATURES).enumerate() {
                *slot += common * s.features[i];
            }
            g[FEATURES] += common;
        });
        for i in 0..=FEATURES {
            let g = gradient[i] / n;
            first[i] = beta1 * first[i] + (1.0 - beta1) * g;
            second[i] = beta2 * second[i] + (1.0 - beta2) * g * g;
            let m = first[i] / (1.0 - beta1.powi(epoch as i32));
            let v = second[i] / (1.0 - beta2.powi(epoch as i32));
            weights[i] -= rate * m / (v.sqrt() + 1e-12);
        }
        // The scale follows the weights: material is fixed, so the two
        // settle together.
        if epoch % 200 == 0 {
            k = fit_scale(samples, &weights);
        }
        if epoch % 50 == 0 || epoch == epochs {
            progress(epoch, loss(samples, &weights, k));
        }
    }
    let rounded = Weights {
        features: std::array::from_fn(|i| weights[i].round() as i32),
        tempo: weights[FEATURES].round() as i32,
    };
    Fitted {
        weights: rounded,
        k,
        loss_before,
        loss_after: loss(samples, &as_vector(&rounded), k),
        samples: samples.len(),
    }
}

/// The mean log-likelihood of `(score, result)` pairs under `model`, the
/// result 1, 0.5 or 0 for the side that scored.
fn likelihood(model: WdlModel, scored: &[(f64, f64)]) -> f64 {
    let [total] = ordered_sum(scored, |&(score, result), [sum]| {
        let [win, draw, loss] = model.chances(score);
        let p = if result > 0.75 {
            win
        } else if result < 0.25 {
            loss
        } else {
            draw
        };
        *sum += p.max(1e-9).ln();
    });
    total / scored.len().max(1) as f64
}

/// The win/draw/loss model most likely to have produced `scored`: a grid
/// over midpoints of 0 to 2000 and scales of 10 to 1000, refined twice
/// around the best point.
pub fn fit_wdl(scored: &[(f64, f64)]) -> WdlModel {
    let mut best = WdlModel {
        midpoint: 1000.0,
        scale: 500.0,
    };
    let (mut midpoint_span, mut scale_span) = (1000.0, 495.0);
    for _ in 0..3 {
        let centre = best;
        let mut best_likelihood = f64::NEG_INFINITY;
        for i in 0..=40 {
            for j in 0..=40 {
                let model = WdlModel {
                    midpoint: centre.midpoint + midpoint_span * (f64::from(i) / 20.0 - 1.0),
                    scale: centre.scale + scale_span * (f64::from(j) / 20.0 - 1.0),
                };
                if model.midpoint < 0.0 || model.scale < 1.0 {
                    continue;
                }
                let fit = likelihood(model, scored);
                if fit > best_likelihood {
                    best_likelihood = fit;
                    best = model;
                }
            }
        }
        midpoint_span /= 10.0;
        scale_span /= 10.0;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris::Game;
    use morris::eval::evaluate_with;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Quiet positions of random games.
    fn positions(count: usize) -> Vec<Position> {
        let mut rng = StdRng::seed_from_u64(3);
        let mut found = Vec::new();
        while found.len() < count {
            let mut game = Game::new(Position::startpos());
            for _ in 0..rng.random_range(4..60) {
                let moves = game.position().legal_moves();
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                let _ = game.try_play(moves[rng.random_range(0..moves.len())]);
            }
            if game.outcome().is_none() && quiet(game.position()) {
                found.push(*game.position());
            }
        }
        found
    }

    #[test]
    fn the_fit_finds_the_weights_behind_the_results() {
        // Results drawn from known weights through the logistic curve: a
        // fit from other weights must come close to them.
        let truth = Weights {
            features: [
                5, 20, 15, 30, 10, 80, -250, -90, -40, -10, 0, 40, -20, 15, 60, 25, 0,
            ],
            tempo: 20,
        };
        let k = 1.0 / 150.0;
        let samples: Vec<Sample> = positions(3000)
            .iter()
            .map(|pos| Sample::new(pos, sigmoid(f64::from(evaluate_with(pos, &truth)), k)))
            .collect();
        let start = Weights {
            features: [2, 30, 8, 40, 20, 120, -300, 0, 0, 0, 0, 50, -6, 8, 0, 0, 0],
            tempo: 10,
        };
        let fitted = fit(&samples, start, 1500, |_, _| {});
        assert!(fitted.loss_after < fitted.loss_before / 5.0, "{fitted}");
        // The common features are pinned down; rare ones (no slide at all)
        // may stay loose.
        for feature in [
            Feature::PlacingMobility,
            Feature::PlacingThreats,
            Feature::Mobility,
            Feature::ClosableMills,
        ] {
            let i = feature as usize;
            let error = (fitted.weights.features[i] - truth.features[i]).abs();
            assert!(error <= 5, "{}: {fitted}", feature.name());
        }
    }

    #[test]
    fn a_fit_gives_the_same_weights_on_any_number_of_threads() {
        let samples: Vec<Sample> = positions(3000)
            .iter()
            .enumerate()
            .map(|(i, pos)| Sample::new(pos, [0.0, 0.5, 1.0][i % 3]))
            .collect();
        let fit_on = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| fit(&samples, Weights::NINE, 300, |_, _| {}))
        };
        let one = fit_on(1);
        for threads in [2, 3, 5] {
            let many = fit_on(threads);
            assert_eq!(one.loss_before.to_bits(), many.loss_before.to_bits());
            assert_eq!(one.loss_after.to_bits(), many.loss_after.to_bits());
            assert_eq!(one.weights, many.weights, "{threads} threads");
        }
    }

    #[test]
    fn the_wdl_fit_finds_the_model_behind_the_results() {
        let truth = WdlModel {
            midpoint: 300.0,
            scale: 120.0,
        };
        let mut rng = StdRng::seed_from_u64(5);
        let scored: Vec<(f64, f64)> = (0..20_000)
            .map(|_| {
                let score = rng.random_range(-900.0..900.0);
                let [win, draw, _] = truth.chances(score);
                let roll: f64 = rng.random();
                let result = if roll < win {
                    1.0
                } else if roll < win + draw {
                    0.5
                } else {
                    0.0
                };
                (score, result)
            })
            .collect();
        let fitted = fit_wdl(&scored);
        assert!(
            (fitted.midpoint - truth.midpoint).abs() < 20.0,
            "{fitted:?}"
        );
        assert!((fitted.scale - truth.scale).abs() < 15.0, "{fitted:?}");
    }
}
