//! The search: the alpha-beta worker with its score scale and move
//! ordering, the evaluation, the transposition table, limits and time, the
//! root driver that filters the root moves by the databases (a draw
//! played to win among them), runs the threads and picks the move, the end of placing solved to the databases
//! (and a placing position's moves with and without the N-move rule), the
//! skill levels, and the bench.

pub(crate) mod bench;
pub(crate) mod draws;
pub mod eval;
pub(crate) mod limits;
pub(crate) mod ordering;
pub(crate) mod placing;
pub(crate) mod root;
pub(crate) mod score;
pub(crate) mod skill;
pub(crate) mod tt;
pub(crate) mod worker;

pub use bench::{BENCH_DEPTH, BENCH_POSITIONS, BenchReport, run_bench};
pub use limits::{Clock, Limit, SearchLimits};
pub use placing::{
    PlacingChoice, PlacingMoves, PlacingSolver, PlacingTable, SOLVED_WITH_RULE, SharedPlacingTable,
    Unsolved, placing_moves,
};
pub use root::{SearchRequest, SearchResult};
pub use score::{DB_WIN, DB_WIN_BOUND, MATE, Score, WdlModel};
pub use skill::MAX_SKILL;
pub use tt::{Bound, HashAllocError, TranspositionTable};
pub use worker::{SearchEvent, SearchInfo};
