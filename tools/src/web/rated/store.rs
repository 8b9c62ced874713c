//! What the server keeps between runs, in one SQLite file: the players and
//! their ratings, and the rated games with their records. The server
//! creates the file's tables and brings an older file's up to date itself
//! (`PRAGMA user_version` counts the steps taken); each finished game is
//! written in one transaction, the game and both ratings together, so that
//! a server killed at any moment loses no finished game and no rating.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use morris::GameResult;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::rating::{Game, Rating};
use crate::web::core::players::RatedPlayer;
pub use crate::web::core::players::{PlayerId, Rated};
use crate::web::core::settings::Strength;

/// The steps that build the schema, in order: a file at `user_version` n
/// has had the first n.
const MIGRATIONS: &[&str] = &[
    // 1: players with their ratings, and the games between them.
    "CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        created INTEGER NOT NULL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        white INTEGER NOT NULL REFERENCES players(id),
        black INTEGER NOT NULL REFERENCES players(id),
        result TEXT NOT NULL,
        termination TEXT NOT NULL,
        record TEXT NOT NULL,
        plies INTEGER NOT NULL,
        rated INTEGER NOT NULL,
        white_before REAL NOT NULL,
        white_after REAL NOT NULL,
        black_before REAL NOT NULL,
        black_after REAL NOT NULL,
        ended INTEGER NOT NULL
    );
    CREATE INDEX games_by_white ON games(white);
    CREATE INDEX games_by_black ON games(black);",
    // 2: each player's secret token, as its hash (the engine's levels,
    // standing players, have none).
    "ALTER TABLE players ADD COLUMN token_hash TEXT;
    CREATE UNIQUE INDEX players_by_token ON players(token_hash);",
    // 3: the rated games in progress, to resume after a restart: kept
    // move by move, and gone once the game is over (then in `games`).
    "CREATE TABLE live (
        id INTEGER PRIMARY KEY,
        white INTEGER NOT NULL REFERENCES players(id),
        black INTEGER NOT NULL REFERENCES players(id),
        room TEXT,
        settings TEXT NOT NULL,
        moves TEXT NOT NULL,
        white_left INTEGER,
        black_left INTEGER,
        started INTEGER NOT NULL
    );",
    // 4: the address each player was made from, as its hash, so that the
    // players an address made lately are counted across restarts (kept
    // only while it counts).
    "ALTER TABLE players ADD COLUMN made_from TEXT;
    CREATE INDEX players_by_maker ON players(made_from, created);",
    // 5: a password a player may set, as its Argon2 hash, to take the
    // account back with a new token; and the tries that failed lately,
    // counted by player and by address (as its hash).
    "ALTER TABLE players ADD COLUMN password_hash TEXT;
    CREATE TABLE recovery_tries (
        player INTEGER REFERENCES players(id),
        made_from TEXT,
        at INTEGER NOT NULL
    );
    CREATE INDEX recovery_tries_by_player ON recovery_tries(player, at);
    CREATE INDEX recovery_tries_by_maker ON recovery_tries(made_from, at);",
    // 6: when a game in progress had the times it keeps left (milliseconds
    // since 1970): a correspondence game's clock runs on from then, by the
    // calendar, across a restart.
    "ALTER TABLE live ADD COLUMN left_at INTEGER;",
];

/// The fewest plies of a game that moves the ratings: the tenth turn of
/// each side. A game left or lost sooner is kept, but rates nobody.
pub const MIN_RATED_PLIES: usize = 20;

/// The most players the table shows.
pub const TABLE_SHOWN: usize = 100;

/// The most games of a player's history shown.
pub const HISTORY_SHOWN: usize = 200;

/// The shortest and the longest name a player may take.
pub const NAME_LENGTHS: std::ops::RangeInclusive<usize> = 3..=20;

/// Whether `name` may be a player's: 3 to 20 letters, digits, `-` and
/// `_`, a letter first, and no name of the engine's (`morris…`, or a
/// level's).
///
/// # Errors
///
/// Why it may not, in words.
pub fn check_name(name: &str) -> Result<(), String> {
    if !NAME_LENGTHS.contains(&name.chars().count()) {
        return Err(format!(
            "a name has {} to {} characters",
            NAME_LENGTHS.start(),
            NAME_LENGTHS.end()
        ));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) || !name.chars().all(allowed) {
        return Err("a name is letters, digits, - and _, a letter first".to_owned());
    }
    let lower = name.to_ascii_lowercase();
    let levels = Strength::NAMED.map(Strength::name);
    if lower.starts_with("morris") || levels.contains(&lower) {
        return Err(format!("'{name}' is the engine's name"));
    }
    Ok(())
}

/// A player's secret: shown once, when the player is made, and kept by
/// the browser; the store keeps only its hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A new token: 128 random bits, in hexadecimal.
    fn new() -> Token {
        Token(format!("{:032x}", rand::random::<u128>()))
    }

    /// The token as the browser keeps it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The hash the store keeps of `text`: a token, or an address.
fn hashed(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Where a new player is asked for from, and how many players one
/// address may make in how long.
pub struct Maker {
    /// The address; `None` where it is not known, and nothing is counted.
    pub address: Option<std::net::IpAddr>,
    /// The most players it may make within `within`.
    pub most: u32,
    /// How long the players it made are counted.
    pub within: std::time::Duration,
}

/// What became of a new player asked for from an address.
#[derive(Debug)]
pub enum NewPlayer {
    /// Made: its number and its secret token.
    Made(PlayerId, Token),
    /// The name is taken.
    NameTaken,
    /// The address made too many players lately.
    TooMany,
}

/// The shortest and the longest password a player may set.
pub const PASSWORD_LENGTHS: std::ops::RangeInclusive<usize> = 8..=200;

/// How many tries to take an account back may fail within how long,
/// for one player and from one address.
pub struct Tries {
    /// The most failed tries for one player.
    pub each_player: u32,
    /// The most failed tries from one address (any players).
    pub each_address: u32,
    /// How long a failed try is counted.
    pub within: std::time::Duration,
}

/// What came of a try to take an account back.
#[derive(Debug)]
pub enum Recovery {
    /// Taken back: the player, and its new token (the old one is no
    /// longer anyone's).
    Recovered(PlayerId, Token),
    /// No player has this name and password.
    Wrong,
    /// Too many tries failed lately, for this player or from this
    /// address: none is tried now.
    TooMany,
}

/// A rated game in progress, as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveGame {
    /// The server's number for the game.
    pub id: u64,
    /// White's player.
    pub white: PlayerId,
    /// Black's player.
    pub black: PlayerId,
    /// The room's code, for a game between two people.
    pub room: Option<String>,
    /// Its settings, as a settings request.
    pub settings: String,
    /// The moves played, separated by spaces.
    pub moves: String,
    /// Each side's time left after the last move, if the game has a
    /// clock.
    pub left: Option<TimesLeft>,
}

/// Each side's time left on a game's clock, as the store keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimesLeft {
    /// By [`morris::Color::index`], in milliseconds.
    pub ms: [u64; 2],
    /// When it was so, in milliseconds since 1970 (not known for a game
    /// kept by an older build).
    pub at: Option<u64>,
}

/// A game over, to be kept.
#[derive(Clone, Debug)]
pub struct FinishedGame<'a> {
    /// White's player.
    pub white: PlayerId,
    /// Black's player.
    pub black: PlayerId,
    /// How it ended: a win, a draw (never unfinished).
    pub result: GameResult,
    /// Why, in words.
    pub termination: &'a str,
    /// Its record.
    pub record: &'a str,
    /// How many plies were played.
    pub plies: usize,
    /// The server's number for it, if it was kept in progress: no longer.
    pub live: Option<u64>,
}

/// A player in the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The player.
    pub id: PlayerId,
    /// Its name.
    pub name: String,
    /// Its rating.
    pub rating: Rating,
    /// The rated games it played.
    pub games: u64,
}

/// A game of a player's history.
#[derive(Clone, Debug, PartialEq)]
pub struct PastGame {
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// How it ended.
    pub result: GameResult,
    /// Why, in words.
    pub termination: String,
    /// Its record.
    pub record: String,
    /// Whether it moved the ratings.
    pub rated: bool,
    /// White's rating before and after it.
    pub white_rating: (f64, f64),
    /// Black's rating before and after it.
    pub black_rating: (f64, f64),
}

/// Wins, draws and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Tally {
    /// The tally with one game more, of `score` (1, ½ or 0).
    fn add(&mut self, score: f64) {
        if score > 0.5 {
            self.wins += 1;
        } else if score < 0.5 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// How many games it counts.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// What a player's page shows besides its standing and its games: since
/// when it plays, its rating after each rated game, and its results by
/// colour and by opponent (every game kept, rated or not).
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// When the player was made, in seconds since 1970.
    pub since: i64,
    /// Its rating after each rated game, the oldest first, with when the
    /// game ended (seconds since 1970).
    pub ratings: Vec<(i64, f64)>,
    /// Its results as White, then as Black.
    pub by_color: [Tally; 2],
    /// Its results against each opponent, the most played first (then by
    /// name).
    pub by_opponent: Vec<(String, Tally)>,
}

/// The server's file of players and games, for any thread: one at a time.
pub struct Store {
    db: Mutex<Connection>,
}

impl Store {
    /// The store in the file `path`, created if it is not there, its
    /// schema brought up to date.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or written, is no SQLite database, or
    /// is of a later schema than this build's.
    pub fn open(path: &Path) -> Result<Store> {
        let named = || format!("the store {}", path.display());
        let db = Connection::open(path).with_context(named)?;
        // A write-ahead log: a transaction committed survives the process
        // killed after it.
        db.pragma_update(None, "journal_mode", "WAL")
            .with_context(named)?;
        db.pragma_update(None, "foreign_keys", true)
            .with_context(named)?;
        let store = Store { db: Mutex::new(db) };
        store.migrate().with_context(named)?;
        Ok(store)
    }

    /// The file, locked.
    fn db(&self) -> MutexGuard<'_, Connection> {
        self.db.lock().expect("not poisoned")
    }

    /// Takes the schema steps the file has not had, each with its
    /// version in one transaction.
    fn migrate(&self) -> Result<()> {
        let mut db = self.db();
        let version: usize = db.pragma_query_value(None, "user_version", |row| row.get(0))?;
        anyhow::ensure!(
            version <= MIGRATIONS.len(),
            "its schema is version {version}, later than this build's ({})",
            MIGRATIONS.len()
        );
        for (step, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = db.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", step + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// A new player named `name` at a newcomer's rating, and its secret
    /// token; `None` if the name is taken (names are told apart without
    /// regard to case). The name is the caller's to check
    /// ([`check_name`]).
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn add_player(&self, name: &str) -> Result<Option<(PlayerId, Token)>> {
        Ok(insert_player(&self.db(), name, None)?)
    }

    /// A new player named `name`, as [`Store::add_player`] makes it, made
    /// from `maker`'s address unless it has made too many lately.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn add_player_from(&self, name: &str, maker: &Maker) -> Result<NewPlayer> {
        let from = maker.address.map(|address| hashed(&address.to_string()));
        let db = self.db();
        let since = now() - maker.within.as_secs() as i64;
        // An address is kept only while it counts: a hash of one is
        // found again by hashing every address.
        db.execute(
            "UPDATE players SET made_from = NULL WHERE made_from IS NOT NULL AND created <= ?1",
            [since],
        )?;
        if let Some(from) = &from {
            let made: u32 = db.query_row(
                "SELECT COUNT(*) FROM players WHERE made_from = ?1 AND created > ?2",
                params![from, since],
                |row| row.get(0),
            )?;
            if made >= maker.most {
                return Ok(NewPlayer::TooMany);
            }
        }
        Ok(match insert_player(&db, name, from.as_deref())? {
            Some((id, token)) => NewPlayer::Made(id, token),
            None => NewPlayer::NameTaken,
        })
    }

    /// Sets `player`'s password (whose length the caller checked: see
    /// [`PASSWORD_LENGTHS`]), kept as its Argon2 hash alone.
    ///
    /// # Errors
    ///
    /// The hash cannot be made, or the file cannot be written.
    pub fn set_password(&self, player: PlayerId, password: &str) -> Result<()> {
        use argon2::password_hash::{PasswordHasher, SaltString};
        // 128 bits of salt from a generator fit for secrets (rand's, seeded
        // by the system), as a token's are.
        let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>())
            .map_err(|e| anyhow::anyhow!("the password's salt: {e}"))?;
        // Made before the file is locked: hashing is slow by design.
        let hash = argon2::Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map_err(|e| anyhow::anyhow!("the password's hash: {e}"))?
            .to_string();
        self.db().execute(
            "UPDATE players SET password_hash = ?1 WHERE id = ?2",
            params![hash, player.0],
        )?;
        Ok(())
    }

    /// Whether `player` has set a password.
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn has_password(&self, player: PlayerId) -> Result<bool> {
        Ok(self.db().query_row(
            "SELECT password_hash IS NOT NULL FROM players WHERE id = ?1",
            [player.0],
            |row| row.get(0),
        )?)
    }

    /// The player named `name` taken back with its `password`, tried from
    /// `address`: a new token for it, unless too many tries failed lately
    /// (`tries`) for the player or from the address.
    ///
    /// # Errors
    ///
    /// The file cannot be read or written.
    pub fn recover(
        &self,
        (name, password): (&str, &str),
        address: Option<std::net::IpAddr>,
        tries: &Tries,
    ) -> Result<Recovery> {
        use argon2::password_hash::{PasswordHash, PasswordVerifier};
        let from = address.map(|address| hashed(&address.to_string()));
        let since = now() - tries.within.as_secs() as i64;
        let (player, hash) = {
            let db = self.db();
            db.execute("DELETE FROM recovery_tries WHERE at <= ?1", [since])?;
            let found: Option<(i64, Option<String>)> = db
                .query_row(
                    "SELECT id, password_hash FROM players WHERE name = ?1",
                    [name],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            let player = found.as_ref().map(|(id, _)| *id);
            let count = |column: &str, value: &dyn rusqlite::ToSql| -> rusqlite::Result<u32> {
                db.query_row(
                    &format!("SELECT COUNT(*) FROM recovery_tries WHERE {column} = ?1"),
                    [value],
                    |row| row.get(0),
                )
            };
            let player_tries = player.map_or(Ok(0), |id| count("player", &id))?;
            let address_tries = from
                .as_ref()
                .map_or(Ok(0), |from| count("made_from", from))?;
            if player_tries >= tries.each_player || address_tries >= tries.each_address {
                return Ok(Recovery::TooMany);
            }
            // Counted as failed until it succeeds, in the same step as the
            // count: tries sent together are each counted by the others.
            db.execute(
                "INSERT INTO recovery_tries (player, made_from, at) VALUES (?1, ?2, ?3)",
                params![player, from, now()],
            )?;
            (player, found.and_then(|(_, hash)| hash))
        };
        // Checked with the file let go: hashing is slow by design.
        let right = hash.as_deref().is_some_and(|hash| {
            PasswordHash::new(hash).is_ok_and(|hash| {
                argon2::Argon2::default()
                    .verify_password(password.as_bytes(), &hash)
                    .is_ok()
            })
        });
        // A name nobody has, and a player with no password, are wrong as
        // a wrong password is: the answer tells no one which names have one.
        let Some(player) = player.filter(|_| right) else {
            return Ok(Recovery::Wrong);
        };
        let db = self.db();
        let token = Token::new();
        db.execute(
            "UPDATE players SET token_hash = ?1 WHERE id = ?2",
            params![hashed(token.as_str()), player],
        )?;
        db.execute("DELETE FROM recovery_tries WHERE player = ?1", [player])?;
        Ok(Recovery::Recovered(PlayerId(player), token))
    }

    /// The player whose secret token is `token`, and its name.
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn player_by_token(&self, token: &str) -> Result<Option<(PlayerId, String)>> {
        let found = self
            .db()
            .query_row(
                "SELECT id, name FROM players WHERE token_hash = ?1",
                [hashed(token)],
                |row| Ok((PlayerId(row.get(0)?), row.get(1)?)),
            )
            .optional()?;
        Ok(found)
    }

    /// The standing player named `name` (one of the engine's levels,
    /// which has no token), made the first time; its rating is set to
    /// `rating` each time, and no game moves it.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn standing_player(&self, name: &str, rating: Rating) -> Result<PlayerId> {
        let db = self.db();
        db.execute(
            "INSERT INTO players (name, rating, deviation, volatility, created)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO UPDATE
             SET rating = excluded.rating, deviation = excluded.deviation,
                 volatility = excluded.volatility",
            params![
                name,
                rating.rating,
                rating.deviation,
                rating.volatility,
                now()
            ],
        )?;
        let id = db.query_row("SELECT id FROM players WHERE name = ?1", [name], |row| {
            row.get(0)
        })?;
        Ok(PlayerId(id))
    }

    /// Keeps `game`, a rated game begun, to resume after a restart.
    ///
    /// # Errors
    ///
    /// A player is unknown, or the file cannot be written.
    pub fn begin_live(&self, game: &LiveGame) -> Result<()> {
        let (white_left, black_left, left_at) = times_left_columns(game.left);
        self.db().execute(
            "INSERT INTO live (id, white, black, room, settings, moves, white_left, black_left, left_at, started)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                game.id as i64,
                game.white.0,
                game.black.0,
                game.room,
                game.settings,
                game.moves,
                white_left,
                black_left,
                left_at,
                now()
            ],
        )?;
        Ok(())
    }

    /// The moves of the game in progress `id` and each side's time left
    /// after them.
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn update_live(&self, id: u64, moves: &str, left: Option<TimesLeft>) -> Result<()> {
        let (white_left, black_left, left_at) = times_left_columns(left);
        self.db().execute(
            "UPDATE live SET moves = ?2, white_left = ?3, black_left = ?4, left_at = ?5 WHERE id = ?1",
            params![id as i64, moves, white_left, black_left, left_at],
        )?;
        Ok(())
    }

    /// The rated games in progress, the oldest first.
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn live_games(&self) -> Result<Vec<LiveGame>> {
        let db = self.db();
        let mut query = db.prepare(
            "SELECT id, white, black, room, settings, moves, white_left, black_left, left_at
             FROM live ORDER BY started, id",
        )?;
        let rows = query.query_map([], |row| {
            let left: [Option<i64>; 2] = [row.get(6)?, row.get(7)?];
            let at: Option<i64> = row.get(8)?;
            Ok(LiveGame {
                id: row.get::<_, i64>(0)? as u64,
                white: PlayerId(row.get(1)?),
                black: PlayerId(row.get(2)?),
                room: row.get(3)?,
                settings: row.get(4)?,
                moves: row.get(5)?,
                left: match left {
                    [Some(white), Some(black)] => Some(TimesLeft {
                        ms: [white as u64, black as u64],
                        at: at.map(|at| at as u64),
                    }),
                    _ => None,
                },
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The player named `name`, if there is one.
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn player(&self, name: &str) -> Result<Option<PlayerId>> {
        let id = self
            .db()
            .query_row("SELECT id FROM players WHERE name = ?1", [name], |row| {
                row.get(0)
            })
            .optional()?;
        Ok(id.map(PlayerId))
    }

    /// Keeps `game` and, if it was long enough, moves its players'
    /// ratings by it (one Glicko-2 period each; a standing player's is
    /// fixed), and forgets it in progress, all in one transaction.
    ///
    /// # Errors
    ///
    /// A player is unknown, the game has no result, or the file cannot be
    /// written: nothing is kept.
    pub fn finish(&self, game: &FinishedGame) -> Result<Rated> {
        let Some(white_score) = white_score(game.result) else {
            anyhow::bail!("a game kept has a result");
        };
        anyhow::ensure!(game.white != game.black, "a player plays another");
        let mut db = self.db();
        let tx = db.transaction()?;
        let (w, white_stands) = rating_of(&tx, game.white)?;
        let (b, black_stands) = rating_of(&tx, game.black)?;
        let before = [w, b];
        let moved = game.plies >= MIN_RATED_PLIES;
        // A standing player's rating is its measured strength: fixed.
        let rated = |rating: Rating, stands: bool, opponent: Rating, score: f64| {
            if moved && !stands {
                rating.after(&[Game { opponent, score }])
            } else {
                rating
            }
        };
        let white = rated(w, white_stands, b, white_score);
        let black = rated(b, black_stands, w, 1.0 - white_score);
        for (player, rating) in [(game.white, white), (game.black, black)] {
            tx.execute(
                "UPDATE players SET rating = ?1, deviation = ?2, volatility = ?3 WHERE id = ?4",
                params![rating.rating, rating.deviation, rating.volatility, player.0],
            )?;
        }
        tx.execute(
            "INSERT INTO games (white, black, result, termination, record, plies, rated,
                 white_before, white_after, black_before, black_after, ended)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                game.white.0,
                game.black.0,
                game.result.token(),
                game.termination,
                game.record,
                game.plies as i64,
                moved,
                before[0].rating,
                white.rating,
                before[1].rating,
                black.rating,
                now()
            ],
        )?;
        if let Some(live) = game.live {
            tx.execute("DELETE FROM live WHERE id = ?1", [live as i64])?;
        }
        tx.commit()?;
        Ok(Rated {
            white,
            black,
            moved,
        })
    }

    /// The players of the highest ratings, the highest first (at most
    /// [`TABLE_SHOWN`]): the standing players, and those who have played
    /// a rated game.
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn table(&self) -> Result<Vec<Standing>> {
        self.standings(None, TABLE_SHOWN)
    }

    /// The standing of `player`.
    ///
    /// # Errors
    ///
    /// No such player, or the file cannot be read.
    pub fn standing(&self, player: PlayerId) -> Result<Standing> {
        let mut found = self.standings(Some(player), 1)?;
        found.pop().context("no such player")
    }

    /// The standings of the first `most` players, or of `only` one, the
    /// highest rating first.
    fn standings(&self, only: Option<PlayerId>, most: usize) -> Result<Vec<Standing>> {
        let db = self.db();
        let mut query = db.prepare(
            "SELECT * FROM (
                 SELECT p.id, p.name, p.rating, p.deviation, p.volatility,
                     (SELECT COUNT(*) FROM games g
                      WHERE g.rated AND (g.white = p.id OR g.black = p.id)) AS played,
                     p.token_hash IS NULL AS standing
                 FROM players p)
             WHERE id = ?1 OR (?1 IS NULL AND (standing OR played > 0))
             ORDER BY rating DESC, name LIMIT ?2",
        )?;
        let rows = query.query_map(params![only.map(|id| id.0), most as i64], |row| {
            Ok(Standing {
                id: PlayerId(row.get(0)?),
                name: row.get(1)?,
                rating: Rating {
                    rating: row.get(2)?,
                    deviation: row.get(3)?,
                    volatility: row.get(4)?,
                },
                games: row.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The profile of `player`.
    ///
    /// # Errors
    ///
    /// No such player, or the file cannot be read.
    pub fn profile(&self, player: PlayerId) -> Result<Profile> {
        let db = self.db();
        let since = db
            .query_row(
                "SELECT created FROM players WHERE id = ?1",
                [player.0],
                |row| row.get(0),
            )
            .optional()?
            .context("no such player")?;
        let mut query = db.prepare(
            "SELECT g.white = ?1, w.name, b.name, g.result, g.rated, g.white_after, g.black_after,
                 g.ended
             FROM games g JOIN players w ON w.id = g.white JOIN players b ON b.id = g.black
             WHERE g.white = ?1 OR g.black = ?1 ORDER BY g.id",
        )?;
        let mut profile = Profile {
            since,
            ratings: Vec::new(),
            by_color: [Tally::default(); 2],
            by_opponent: Vec::new(),
        };
        let mut by_opponent: std::collections::HashMap<String, Tally> = Default::default();
        let mut rows = query.query(params![player.0])?;
        while let Some(row) = rows.next()? {
            let white: bool = row.get(0)?;
            let opponent: String = row.get(if white { 2 } else { 1 })?;
            let result: String = row.get(3)?;
            let white_score = GameResult::from_token(&result)
                .and_then(white_score)
                .context("a game kept has a result")?;
            let score = if white {
                white_score
            } else {
                1.0 - white_score
            };
            profile.by_color[usize::from(!white)].add(score);
            by_opponent.entry(opponent).or_default().add(score);
            if row.get::<_, bool>(4)? {
                let after: f64 = row.get(if white { 5 } else { 6 })?;
                profile.ratings.push((row.get(7)?, after));
            }
        }
        profile.by_opponent = by_opponent.into_iter().collect();
        profile
            .by_opponent
            .sort_by(|(a, x), (b, y)| y.games().cmp(&x.games()).then_with(|| a.cmp(b)));
        Ok(profile)
    }

    /// The latest games `player` played, the latest first (at most
    /// [`HISTORY_SHOWN`]).
    ///
    /// # Errors
    ///
    /// The file cannot be read.
    pub fn history(&self, player: PlayerId) -> Result<Vec<PastGame>> {
        let db = self.db();
        let mut query = db.prepare(
            "SELECT w.name, b.name, g.result, g.termination, g.record, g.rated,
                 g.white_before, g.white_after, g.black_before, g.black_after
             FROM games g JOIN players w ON w.id = g.white JOIN players b ON b.id = g.black
             WHERE g.white = ?1 OR g.black = ?1 ORDER BY g.id DESC LIMIT ?2",
        )?;
        let rows = query.query_map(params![player.0, HISTORY_SHOWN as i64], |row| {
            let result: String = row.get(2)?;
            Ok(PastGame {
                white: row.get(0)?,
                black: row.get(1)?,
                result: GameResult::from_token(&result).unwrap_or_default(),
                termination: row.get(3)?,
                record: row.get(4)?,
                rated: row.get(5)?,
                white_rating: (row.get(6)?, row.get(7)?),
                black_rating: (row.get(8)?, row.get(9)?),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// A new player named `name` at a newcomer's rating, made from the
/// address whose hash is `from`, and its token; `None` if the name is
/// taken.
fn insert_player(
    db: &Connection,
    name: &str,
    from: Option<&str>,
) -> rusqlite::Result<Option<(PlayerId, Token)>> {
    let rating = Rating::default();
    let token = Token::new();
    let added = db.execute(
        "INSERT INTO players (name, rating, deviation, volatility, created, token_hash, made_from)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (name) DO NOTHING",
        params![
            name,
            rating.rating,
            rating.deviation,
            rating.volatility,
            now(),
            hashed(token.as_str()),
            from
        ],
    )?;
    Ok((added == 1).then(|| (PlayerId(db.last_insert_rowid()), token)))
}

/// The rating of `player` as `db` has it, and whether it is a standing
/// player (one of the engine's levels, which has no token).
fn rating_of(db: &Connection, player: PlayerId) -> rusqlite::Result<(Rating, bool)> {
    db.query_row(
        "SELECT rating, deviation, volatility, token_hash IS NULL FROM players WHERE id = ?1",
        [player.0],
        |row| {
            let rating = Rating {
                rating: row.get(0)?,
                deviation: row.get(1)?,
                volatility: row.get(2)?,
            };
            Ok((rating, row.get(3)?))
        },
    )
}

/// White's score in a game of `result`: 1, ½ or 0, or none unfinished.
fn white_score(result: GameResult) -> Option<f64> {
    match result {
        GameResult::WhiteWins => Some(1.0),
        GameResult::BlackWins => Some(0.0),
        GameResult::Draw => Some(0.5),
        GameResult::Unfinished => None,
    }
}

/// The columns `white_left`, `black_left` and `left_at` of `left`.
fn times_left_columns(left: Option<TimesLeft>) -> (Option<i64>, Option<i64>, Option<i64>) {
    let Some(left) = left else {
        return (None, None, None);
    };
    let [white, black] = left.ms.map(|ms| ms as i64);
    (Some(white), Some(black), left.at.map(|at| at as i64))
}

/// The time now, in seconds since 1970.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl From<Standing> for RatedPlayer {
    fn from(standing: Standing) -> RatedPlayer {
        RatedPlayer {
            id: standing.id,
            name: standing.name,
            rating: standing.rating.rating,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// A folder of its own for a test's store, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Folder {
            let dir =
                std::env::temp_dir().join(format!("morris-store-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("a folder");
            Folder(dir)
        }

        fn file(&self) -> PathBuf {
            self.0.join("morris.sqlite")
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn game(
        white: PlayerId,
        black: PlayerId,
        result: GameResult,
        plies: usize,
    ) -> FinishedGame<'static> {
        FinishedGame {
            white,
            black,
            result,
            termination: "white resigned",
            record: "[Result \"0-1\"]\n\n1. d6 *\n",
            plies,
            live: None,
        }
    }

    #[test]
    fn a_game_in_progress_is_kept_move_by_move_until_it_is_over() {
        let folder = Folder::new("live");
        let store = Store::open(&folder.file()).unwrap();
        let ann = store.add_player("ann").unwrap().unwrap().0;
        let level = store
            .standing_player("morris-easy", Rating::default())
            .unwrap();
        assert_eq!(
            store
                .standing_player("morris-easy", Rating::default())
                .unwrap(),
            level
        );
        let begun = LiveGame {
            id: u64::MAX - 7,
            white: ann,
            black: level,
            room: None,
            settings: "{}".to_owned(),
            moves: String::new(),
            left: Some(TimesLeft {
                ms: [60_000, 60_000],
                at: Some(1_800_000_000_000),
            }),
        };
        store.begin_live(&begun).unwrap();
        let after_two = TimesLeft {
            ms: [58_000, 59_500],
            at: Some(1_800_000_003_500),
        };
        store
            .update_live(begun.id, "d6 d2", Some(after_two))
            .unwrap();
        drop(store);
        let store = Store::open(&folder.file()).unwrap();
        let kept = store.live_games().unwrap();
        let played = LiveGame {
            moves: "d6 d2".to_owned(),
            left: Some(after_two),
            ..begun.clone()
        };
        assert_eq!(kept, [played]);
        let over = FinishedGame {
            live: Some(begun.id),
            ..game(ann, level, GameResult::BlackWins, 2)
        };
        store.finish(&over).unwrap();
        assert_eq!(store.live_games().unwrap(), []);
        assert_eq!(store.history(level).unwrap().len(), 1);
    }

    #[test]
    fn a_standing_players_rating_is_the_one_it_is_given_and_no_game_moves_it() {
        let folder = Folder::new("standing");
        let store = Store::open(&folder.file()).unwrap();
        let ann = store.add_player("ann").unwrap().unwrap().0;
        let measured = Rating {
            rating: 1812.0,
            deviation: 50.0,
            ..Rating::default()
        };
        let level = store
            .standing_player("morris-medium", Rating::default())
            .unwrap();
        // Set again at the next start, to what it is measured at now.
        assert_eq!(
            store.standing_player("morris-medium", measured).unwrap(),
            level
        );
        assert_eq!(store.standing(level).unwrap().rating, measured);
        let rated = store
            .finish(&game(ann, level, GameResult::BlackWins, 40))
            .unwrap();
        assert!(rated.moved);
        assert_eq!(rated.black, measured);
        let lost = Game {
            opponent: measured,
            score: 0.0,
        };
        assert_eq!(rated.white, Rating::default().after(&[lost]));
        assert_eq!(store.standing(level).unwrap().rating, measured);
        assert_eq!(store.standing(ann).unwrap().rating, rated.white);
    }

    #[test]
    fn a_rated_game_moves_both_ratings_by_glicko_2_and_is_kept() {
        let folder = Folder::new("rated");
        let store = Store::open(&folder.file()).expect("a new store");
        let ann = store.add_player("ann").unwrap().expect("a free name").0;
        let bob = store.add_player("bob").unwrap().expect("a free name").0;
        let rated = store
            .finish(&game(ann, bob, GameResult::BlackWins, 40))
            .unwrap();
        assert!(rated.moved);
        let newcomer = Rating::default();
        let expected = |score| {
            newcomer.after(&[Game {
                opponent: newcomer,
                score,
            }])
        };
        assert_eq!(rated.white, expected(0.0));
        assert_eq!(rated.black, expected(1.0));
        assert!(rated.black.rating > 1500.0);
        // Kept: opened again, the ratings, the table and the history are
        // there.
        drop(store);
        let store = Store::open(&folder.file()).expect("the store again");
        assert_eq!(store.standing(bob).unwrap().rating, rated.black);
        let table = store.table().unwrap();
        let names: Vec<&str> = table.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["bob", "ann"]);
        assert_eq!(table[0].games, 1);
        let history = store.history(ann).unwrap();
        assert_eq!(history.len(), 1);
        let past = &history[0];
        assert_eq!((past.white.as_str(), past.black.as_str()), ("ann", "bob"));
        assert_eq!(past.result, GameResult::BlackWins);
        assert_eq!(past.white_rating, (1500.0, rated.white.rating));
        assert!(past.rated);
    }

    #[test]
    fn a_profile_has_the_rating_after_each_rated_game_and_the_results_by_colour_and_opponent() {
        let folder = Folder::new("profile");
        let store = Store::open(&folder.file()).unwrap();
        let [ann, bob, cat] =
            ["ann", "bob", "cat"].map(|name| store.add_player(name).unwrap().unwrap().0);
        let fresh = store.profile(ann).unwrap();
        assert_eq!(
            (fresh.ratings.len(), fresh.by_color),
            (0, [Tally::default(); 2])
        );
        let mut after = Vec::new();
        for (white, black, result, plies) in [
            (ann, bob, GameResult::WhiteWins, 40),
            (bob, ann, GameResult::Draw, 40),
            (cat, ann, GameResult::WhiteWins, 40),
            (ann, bob, GameResult::BlackWins, MIN_RATED_PLIES - 1),
            (bob, ann, GameResult::BlackWins, 40),
        ] {
            let rated = store.finish(&game(white, black, result, plies)).unwrap();
            if rated.moved {
                after.push(
                    if white == ann {
                        rated.white
                    } else {
                        rated.black
                    }
                    .rating,
                );
            }
        }
        let profile = store.profile(ann).unwrap();
        let ratings: Vec<f64> = profile.ratings.iter().map(|&(_, rating)| rating).collect();
        assert_eq!(ratings, after, "the short game moved nothing");
        assert_eq!(
            ratings.last(),
            Some(&store.standing(ann).unwrap().rating.rating)
        );
        let tally = |wins, draws, losses| Tally {
            wins,
            draws,
            losses,
        };
        assert_eq!(profile.by_color, [tally(1, 0, 1), tally(1, 1, 1)]);
        let opponents: Vec<(&str, Tally)> = profile
            .by_opponent
            .iter()
            .map(|(name, t)| (name.as_str(), *t))
            .collect();
        assert_eq!(
            opponents,
            [("bob", tally(2, 1, 1)), ("cat", tally(0, 0, 1))]
        );
        assert!(store.profile(PlayerId(999)).is_err());
    }

    #[test]
    fn a_password_takes_an_account_back_with_a_new_token_and_guesses_are_counted() {
        let folder = Folder::new("recovery");
        let store = Store::open(&folder.file()).unwrap();
        let (ann, lost) = store.add_player("ann").unwrap().unwrap();
        let tries = Tries {
            each_player: 3,
            each_address: 5,
            within: std::time::Duration::from_secs(900),
        };
        let here = Some("192.0.2.1".parse().unwrap());
        let password = "horse battery staple";
        // No password set: nothing takes the account.
        let none = store.recover(("ann", password), here, &tries).unwrap();
        assert!(matches!(none, Recovery::Wrong), "{none:?}");
        assert!(!store.has_password(ann).unwrap());
        store.set_password(ann, password).unwrap();
        assert!(store.has_password(ann).unwrap());
        let wrong = store
            .recover(("ann", "horse battery"), here, &tries)
            .unwrap();
        assert!(matches!(wrong, Recovery::Wrong), "{wrong:?}");
        let Recovery::Recovered(found, token) =
            store.recover(("ANN", password), here, &tries).unwrap()
        else {
            panic!("taken back");
        };
        assert_eq!(found, ann);
        assert_eq!(
            store
                .player_by_token(token.as_str())
                .unwrap()
                .map(|(id, _)| id),
            Some(ann)
        );
        assert_eq!(
            store.player_by_token(lost.as_str()).unwrap(),
            None,
            "the old token is nobody's"
        );
        // Guesses: the player's count, then the right password is not
        // even tried; another player's from elsewhere still is.
        for _ in 0..3 {
            store.recover(("ann", "guess"), None, &tries).unwrap();
        }
        let locked = store.recover(("ann", password), None, &tries).unwrap();
        assert!(matches!(locked, Recovery::TooMany), "{locked:?}");
        // The address's count (its tries before were forgiven with ann's):
        // five from here, on any names, and it tries nothing more.
        let (bob, _) = store.add_player("bob").unwrap().unwrap();
        store.set_password(bob, password).unwrap();
        for name in ["bob", "nobody", "bob", "nobody", "nobody"] {
            store.recover((name, "guess"), here, &tries).unwrap();
        }
        let from_here = store.recover(("bob", password), here, &tries).unwrap();
        assert!(matches!(from_here, Recovery::TooMany), "{from_here:?}");
        let elsewhere = Some("198.51.100.7".parse().unwrap());
        let bobs = store.recover(("bob", password), elsewhere, &tries).unwrap();
        assert!(matches!(bobs, Recovery::Recovered(..)), "{bobs:?}");
        // The password is in the file as its hash alone.
        drop(store);
        for file in std::fs::read_dir(&folder.0).unwrap() {
            let bytes = std::fs::read(file.unwrap().path()).unwrap();
            assert!(
                !bytes
                    .windows(password.len())
                    .any(|w| w == password.as_bytes())
            );
        }
    }

    #[test]
    fn a_game_over_before_the_tenth_turn_of_each_side_moves_no_rating() {
        let folder = Folder::new("short");
        let store = Store::open(&folder.file()).unwrap();
        let ann = store.add_player("ann").unwrap().unwrap().0;
        let bob = store.add_player("bob").unwrap().unwrap().0;
        let short = store
            .finish(&game(ann, bob, GameResult::WhiteWins, MIN_RATED_PLIES - 1))
            .unwrap();
        assert!(!short.moved);
        assert_eq!(
            (short.white, short.black),
            (Rating::default(), Rating::default())
        );
        assert_eq!(store.standing(ann).unwrap().rating, Rating::default());
        let history = store.history(bob).unwrap();
        assert!(!history[0].rated);
        assert_eq!(store.standing(bob).unwrap().games, 0);
        assert!(store.table().unwrap().is_empty(), "no rated game");
    }

    #[test]
    fn an_address_is_kept_only_while_its_players_count() {
        let folder = Folder::new("makers");
        let store = Store::open(&folder.file()).unwrap();
        let maker = |within| Maker {
            address: Some(std::net::IpAddr::from([192, 0, 2, 7])),
            most: 5,
            within,
        };
        let hour = std::time::Duration::from_secs(3600);
        assert!(matches!(
            store.add_player_from("ann", &maker(hour)).unwrap(),
            NewPlayer::Made(..)
        ));
        let kept = |name: &str| -> Option<String> {
            store
                .db()
                .query_row(
                    "SELECT made_from FROM players WHERE name = ?1",
                    [name],
                    |row| row.get(0),
                )
                .unwrap()
        };
        assert_eq!(kept("ann"), Some(hashed("192.0.2.7")));
        // Counted for no time at all, Ann's address is let go of when the
        // next player is made.
        store
            .add_player_from("bob", &maker(std::time::Duration::ZERO))
            .unwrap();
        assert_eq!(kept("ann"), None);
    }

    #[test]
    fn a_name_is_one_players_whatever_its_case() {
        let folder = Folder::new("names");
        let store = Store::open(&folder.file()).unwrap();
        let (ann, token) = store.add_player("Ann").unwrap().unwrap();
        assert_eq!(store.add_player("ann").unwrap(), None);
        assert_eq!(store.player("ANN").unwrap(), Some(ann));
        assert_eq!(store.player("bob").unwrap(), None);
        // The token finds the player back; another finds nobody, and the
        // store keeps no token as it is.
        assert_eq!(token.as_str().len(), 32);
        assert_eq!(
            store.player_by_token(token.as_str()).unwrap(),
            Some((ann, "Ann".to_owned()))
        );
        assert_eq!(store.player_by_token(&"0".repeat(32)).unwrap(), None);
        let (bob, other) = store.add_player("bob").unwrap().unwrap();
        assert_ne!(token, other);
        assert_eq!(
            store
                .player_by_token(other.as_str())
                .unwrap()
                .map(|(id, _)| id),
            Some(bob)
        );
        drop(store);
        let file = std::fs::read(folder.file()).unwrap_or_default();
        let wal = std::fs::read(folder.0.join("morris.sqlite-wal")).unwrap_or_default();
        for kept in [file, wal] {
            assert!(!kept.windows(32).any(|w| w == token.as_str().as_bytes()));
        }
    }

    #[test]
    fn names_are_checked() {
        for good in ["ann", "Bob_2", "x-y", "abcdefghijklmnopqrst"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "ab",
            "abcdefghijklmnopqrstu",
            "2ann",
            "_ann",
            "an n",
            "ann!",
            "élan",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        for engine in ["morris", "Morris-Easy", "easy", "HARD", "full", "medium"] {
            let refused = check_name(engine).expect_err(engine);
            assert!(refused.contains("the engine's name"), "{refused}");
        }
    }

    #[test]
    fn a_store_of_an_earlier_schema_is_brought_up_to_date() {
        let folder = Folder::new("migrate");
        // A file of the first schema, with a player.
        let db = Connection::open(folder.file()).unwrap();
        db.execute_batch(MIGRATIONS[0]).unwrap();
        db.pragma_update(None, "user_version", 1).unwrap();
        db.execute(
            "INSERT INTO players (name, rating, deviation, volatility, created) VALUES ('ann', 1600, 80, 0.06, 0)",
            [],
        )
        .unwrap();
        drop(db);
        let store = Store::open(&folder.file()).unwrap();
        let ann = store.player("ann").unwrap().expect("kept");
        assert_eq!(store.standing(ann).unwrap().rating.rating, 1600.0);
        assert!(store.add_player("bob").unwrap().is_some());
    }

    #[test]
    fn a_game_that_cannot_be_kept_changes_nothing() {
        let folder = Folder::new("atomic");
        let store = Store::open(&folder.file()).unwrap();
        let ann = store.add_player("ann").unwrap().unwrap().0;
        // Bob is nobody: the game is refused, and Ann's rating stays.
        let nobody = PlayerId(ann.0 + 1);
        assert!(
            store
                .finish(&game(ann, nobody, GameResult::WhiteWins, 40))
                .is_err()
        );
        assert!(
            store
                .finish(&game(ann, ann, GameResult::WhiteWins, 40))
                .is_err()
        );
        let bob = store.add_player("bob").unwrap().unwrap().0;
        assert!(
            store
                .finish(&game(ann, bob, GameResult::Unfinished, 40))
                .is_err()
        );
        assert_eq!(store.standing(ann).unwrap().rating, Rating::default());
        assert!(store.history(ann).unwrap().is_empty());
    }

    #[test]
    fn a_file_that_is_no_store_is_refused_by_name() {
        let folder = Folder::new("bad");
        std::fs::write(folder.file(), vec![b'x'; 4096]).unwrap();
        let refused = Store::open(&folder.file()).err().expect("refused");
        let said = format!("{refused:#}");
        assert!(said.contains("morris.sqlite"), "{said}");
        // A store of a later build's schema is refused too.
        let later = folder.0.join("later.sqlite");
        Connection::open(&later)
            .unwrap()
            .pragma_update(None, "user_version", MIGRATIONS.len() + 1)
            .unwrap();
        let refused = Store::open(&later).err().expect("refused");
        assert!(
            format!("{refused:#}").contains("later than this build's"),
            "{refused:#}"
        );
        // The schema of a store made here is the latest.
        let made = folder.0.join("made.sqlite");
        drop(Store::open(&made).unwrap());
        let version: usize = Connection::open(&made)
            .unwrap()
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len());
    }
}
