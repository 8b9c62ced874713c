//! Ratings by Glicko-2 (Mark Glickman, "Example of the Glicko-2 system",
//! 2012): a player's rating, its deviation (how uncertain the rating is)
//! and its volatility (how erratic the player's results are), updated
//! after each rating period from the games of that period.
//!
//! Each rated game of morris-web is a period of its own for both its
//! players, as on the online servers of the game: the ratings move after
//! every game.

use std::f64::consts::PI;

/// The factor between the Glicko scale (ratings about 1500) and the
/// Glicko-2 scale (about 0) that the formulas work on.
const SCALE: f64 = 173.7178;

/// The rating on the Glicko scale that is 0 on the Glicko-2 scale.
const CENTRE: f64 = 1500.0;

/// The system constant τ: how much the volatility may change in a
/// period. Glickman suggests 0.3 to 1.2; smaller keeps ratings steadier.
pub const TAU: f64 = 0.5;

/// How close the volatility's iteration must come.
const TOLERANCE: f64 = 1e-6;

/// A player's rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating, about 1500 for a newcomer.
    pub rating: f64,
    /// The rating deviation: the rating is within about twice it with
    /// 95% confidence.
    pub deviation: f64,
    /// How erratic the player's results are.
    pub volatility: f64,
}

impl Default for Rating {
    /// A newcomer's: 1500, deviation 350, volatility 0.06, as Glickman
    /// suggests.
    fn default() -> Rating {
        Rating {
            rating: CENTRE,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

/// One game of a period, as its player sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// The player's score: 1 a win, 0.5 a draw, 0 a loss.
    pub score: f64,
}

/// A rating on the Glicko-2 scale: μ and φ.
struct Scaled {
    mu: f64,
    phi: f64,
}

impl Scaled {
    fn of(rating: Rating) -> Scaled {
        Scaled {
            mu: (rating.rating - CENTRE) / SCALE,
            phi: rating.deviation / SCALE,
        }
    }
}

/// g(φ): how much an opponent's uncertain rating counts.
fn weight(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// E: the expected score against an opponent `mu_j` whose deviation
/// weighs `g_j`.
fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

impl Rating {
    /// The rating after a period in which the player played `games` (none:
    /// only the deviation grows, as time without games makes the rating
    /// less certain).
    pub fn after(self, games: &[Game]) -> Rating {
        let Scaled { mu, phi } = Scaled::of(self);
        let sigma = self.volatility;
        if games.is_empty() {
            let grown = (phi * phi + sigma * sigma).sqrt();
            return Rating {
                deviation: grown * SCALE,
                ..self
            };
        }
        // The estimated variance of the rating from the games alone (v),
        // and the improvement they show (Δ, over v).
        let mut inverse_variance = 0.0;
        let mut improvement = 0.0;
        for game in games {
            let opponent = Scaled::of(game.opponent);
            let g = weight(opponent.phi);
            let e = expected(mu, opponent.mu, g);
            inverse_variance += g * g * e * (1.0 - e);
            improvement += g * (game.score - e);
        }
        let variance = 1.0 / inverse_variance;
        let delta = variance * improvement;
        let sigma = new_volatility(phi, sigma, variance, delta);
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / variance).sqrt();
        let mu = mu + phi * phi * improvement;
        Rating {
            rating: SCALE * mu + CENTRE,
            deviation: SCALE * phi,
            volatility: sigma,
        }
    }
}

/// The volatility after a period: the root of Glickman's f by the
/// Illinois algorithm (step 5 of the description).
fn new_volatility(phi: f64, sigma: f64, variance: f64, delta: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + variance + ex;
        ex * (delta * delta - phi * phi - variance - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut low = a;
    let mut high = if delta * delta > phi * phi + variance {
        (delta * delta - phi * phi - variance).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let (mut f_low, mut f_high) = (f(low), f(high));
    while (high - low).abs() > TOLERANCE {
        let c = low + (low - high) * f_low / (f_high - f_low);
        let f_c = f(c);
        if f_c * f_high <= 0.0 {
            low = high;
            f_low = f_high;
        } else {
            f_low /= 2.0;
        }
        high = c;
        f_high = f_c;
    }
    (low / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility: 0.06,
        }
    }

    #[test]
    fn the_worked_example_of_the_description_comes_out() {
        // Glickman's example: a 1500 player (deviation 200) beats a 1400
        // (30) and loses to a 1550 (100) and a 1700 (300), with τ = 0.5.
        let games = [
            Game {
                opponent: rating(1400.0, 30.0),
                score: 1.0,
            },
            Game {
                opponent: rating(1550.0, 100.0),
                score: 0.0,
            },
            Game {
                opponent: rating(1700.0, 300.0),
                score: 0.0,
            },
        ];
        let after = rating(1500.0, 200.0).after(&games);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_win_raises_a_loss_lowers_and_both_grow_more_certain() {
        let (first, second) = (Rating::default(), Rating::default());
        let winner = first.after(&[Game {
            opponent: second,
            score: 1.0,
        }]);
        let loser = second.after(&[Game {
            opponent: first,
            score: 0.0,
        }]);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0);
        // Equal players: the points won are the points lost.
        assert!((winner.rating - 1500.0 - (1500.0 - loser.rating)).abs() < 1e-9);
        assert!(winner.deviation < 350.0 && loser.deviation < 350.0);
        // A draw between equals moves neither rating.
        let drawn = first.after(&[Game {
            opponent: second,
            score: 0.5,
        }]);
        assert!((drawn.rating - 1500.0).abs() < 1e-9, "{drawn:?}");
    }

    #[test]
    fn a_period_without_games_makes_the_rating_less_certain() {
        let before = rating(1700.0, 50.0);
        let after = before.after(&[]);
        assert_eq!(after.rating, 1700.0);
        assert!((after.deviation - (50.0f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt()).abs() < 1e-9);
    }
}
