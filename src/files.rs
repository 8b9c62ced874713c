//! Files written whole or not at all.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes `parts` one after the other as the file `path`: to a temporary
/// name beside it first, synced, then renamed, so that an interrupted
/// write leaves no file that looks complete.
///
/// # Errors
///
/// The file cannot be written, synced or renamed.
pub fn write_whole(path: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let partial = path.with_extension("partial");
    let file = fs::File::create(&partial)?;
    let mut out = BufWriter::new(&file);
    for part in parts {
        out.write_all(part)?;
    }
    out.flush()?;
    drop(out);
    file.sync_all()?;
    drop(file);
    fs::rename(&partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_whole_and_no_partial_file_is_left() {
        let dir = std::env::temp_dir().join(format!("morris-files-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("record.pgn");
        write_whole(&path, &[b"first ", b"second"]).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "first second");
        assert!(!path.with_extension("partial").exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_into_a_missing_folder_fails_and_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("morris-files-missing-{}", std::process::id()));
        let path = dir.join("record.pgn");
        assert!(write_whole(&path, &[b"text"]).is_err());
        assert!(!dir.exists());
    }
}
