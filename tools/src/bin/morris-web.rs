//! morris-web: play, watch and analyse mill in the browser. Serves a board
//! on 127.0.0.1 (or the address `--host` gives) and drives an engine
//! through the protocol.

use std::net::IpAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use morris_tools::client::EngineConfig;
use morris_tools::db;
use morris_tools::web::store::Store;
use morris_tools::web::{WebConfig, WebServer};

/// A board in the browser against any engine that speaks the protocol.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Port to serve on; a free one if not given.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The address to listen on: 127.0.0.1, this machine only, unless
    /// people elsewhere are to play (0.0.0.0: every network it is on).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The engine's command (then its arguments, each its own
    /// `--engine-arg`); the `morris` beside this program by default.
    #[arg(long)]
    engine: Option<String>,
    /// An argument for the engine.
    #[arg(long = "engine-arg", allow_hyphen_values = true)]
    engine_args: Vec<String>,
    /// Endgame databases for the exact values on the board (the default
    /// folder of `morris gen-db` if it exists).
    #[arg(long)]
    db: Option<PathBuf>,
    /// The file of players and their rated games (made if it is not
    /// there): `morris/morris-web.sqlite` in the user's data folder by
    /// default.
    #[arg(long)]
    store: Option<PathBuf>,
    /// The most requests answered at once for one address (each page
    /// holds one or two): more behind a proxy, whose address is everyone's.
    #[arg(long, default_value_t = morris_tools::web::DEFAULT_REQUESTS_EACH)]
    requests_per_address: usize,
    /// Run as the engine itself (the protocol on standard input and
    /// output), as the page's default engine does when no `morris` binary
    /// lies beside this one.
    #[arg(long, hide = true)]
    uci: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.uci {
        let stdin = std::io::BufReader::new(std::io::stdin());
        morris::uci::run_with(
            stdin,
            &mut std::io::stdout().lock(),
            morris::solution::existing_default_dir(),
        )?;
        return Ok(());
    }
    let mut engine = match args.engine {
        Some(cmd) => EngineConfig {
            name: cmd.clone(),
            cmd,
            args: args.engine_args,
            ..EngineConfig::default()
        },
        None => default_engine()?,
    };
    let db = match args.db.or_else(morris::solution::existing_default_dir) {
        Some(dir) => {
            let db = db::open(&dir)
                .with_context(|| format!("opening the databases in {}", dir.display()))?;
            eprintln!(
                "exact values from {} sectors in {}",
                db.len(),
                dir.display()
            );
            // The engine plays from the files the board shows values from.
            engine
                .options
                .push(("EndgameDB".to_owned(), dir.display().to_string()));
            Some(db)
        }
        None => {
            let default = morris::solution::default_dir()
                .map_or_else(|| "none".to_owned(), |dir| dir.display().to_string());
            eprintln!(
                "no endgame databases (no --db, and the default folder {default} does not exist): \
                 the board shows the engine's judgement only; `morris gen-db` builds them \
                 (see docs/ENDGAME.md)"
            );
            None
        }
    };
    // A store named must open; the default one may be out of reach, and
    // the board is played without it.
    let store = match (args.store, default_store()) {
        (Some(file), _) => Some(open_store(&file)?),
        (None, Some(file)) => open_store(&file)
            .inspect_err(|e| eprintln!("no store of players: {e:#}"))
            .ok(),
        (None, None) => {
            eprintln!("no store of players: this system has no data folder, and no --store");
            None
        }
    };
    let config = WebConfig {
        store,
        max_requests_each: args.requests_per_address.max(1),
        ..WebConfig::new(engine.clone(), db)
    };
    let server = WebServer::bind(args.host, args.port, config)
        .with_context(|| format!("cannot serve on {}", args.host))?;
    if !args.host.is_loopback() {
        eprintln!(
            "WARNING: serving on {}, not only on this machine: anyone who can reach it \
             can open games here (each runs an engine), and join a room if they know its code.",
            server.addr()
        );
    }
    let handle = server.handle();
    ctrlc::set_handler(move || handle.stop()).context("cannot catch Ctrl-C")?;
    eprintln!("engine: {} {}", engine.cmd, engine.args.join(" "));
    println!("http://{}/", server.addr());
    server.run();
    Ok(())
}

/// The store in `file`, its folder made if need be.
fn open_store(file: &std::path::Path) -> Result<Store> {
    if let Some(folder) = file.parent() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("making the folder {}", folder.display()))?;
    }
    let store = Store::open(file)?;
    eprintln!("players kept in {}", file.display());
    Ok(store)
}

/// The store's file when none is named: `morris/morris-web.sqlite` in the
/// user's data folder, beside the databases' default folder.
fn default_store() -> Option<PathBuf> {
    dirs::data_dir().map(|data| data.join("morris").join("morris-web.sqlite"))
}

/// The workspace's `morris` binary beside this one, or this program as
/// the same engine when it is not built.
fn default_engine() -> Result<EngineConfig> {
    let me = std::env::current_exe().context("cannot find this program")?;
    let morris = me.with_file_name(format!("morris{}", std::env::consts::EXE_SUFFIX));
    Ok(if morris.is_file() {
        EngineConfig {
            name: "morris".to_owned(),
            cmd: morris.to_string_lossy().into_owned(),
            ..EngineConfig::default()
        }
    } else {
        EngineConfig {
            name: "morris".to_owned(),
            cmd: me.to_string_lossy().into_owned(),
            args: vec!["--uci".to_owned()],
            ..EngineConfig::default()
        }
    })
}
