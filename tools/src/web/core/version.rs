//! The versions a page is told, so that it asks only for what is newer.

/// The version a new game's state, or the lobby, begins at: the time in
/// microseconds since 1970, so that a game resumed after a restart is
/// newer to its pages than anything they saw of it before (no game
/// changes a million times a second).
pub fn first_version() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |since| {
            u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
        })
}
