//! The page's files, carried in the binary and served as they are: its
//! HTML at `/`, and at `/assets/` its style and the ES modules of its
//! script. Each has an ETag, the hash of its text: a browser keeps a file
//! but asks each time whether it changed (the page changes with the
//! binary), and fetches it again only if it did.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// One of the page's files, as it is sent.
pub(crate) struct Asset {
    /// Its `Content-Type`.
    pub(crate) content_type: &'static str,
    /// Its text.
    pub(crate) body: &'static str,
    /// Its `ETag`: the hex SHA-256 of its text, quoted.
    pub(crate) etag: &'static str,
}

impl Asset {
    /// Whether a request's `If-None-Match` (a list of ETags) names this
    /// file as it is: the browser's copy is current.
    pub(crate) fn matches(&self, if_none_match: &str) -> bool {
        if_none_match
            .split(',')
            .any(|tag| tag.trim() == self.etag || tag.trim() == "*")
    }
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

/// Each file: the path it is asked at, its type and its text. The paths
/// are those the page and its modules name (`/assets/js/main.js` imports
/// `./state.js`, and so on).
const FILES: [(&str, &str, &str); 19] = [
    ("/", HTML, include_str!("assets/index.html")),
    ("/assets/morris.css", CSS, include_str!("assets/morris.css")),
    ("/assets/js/main.js", JS, include_str!("assets/js/main.js")),
    ("/assets/js/api.js", JS, include_str!("assets/js/api.js")),
    (
        "/assets/js/board.js",
        JS,
        include_str!("assets/js/board.js"),
    ),
    (
        "/assets/js/choices.js",
        JS,
        include_str!("assets/js/choices.js"),
    ),
    (
        "/assets/js/controls.js",
        JS,
        include_str!("assets/js/controls.js"),
    ),
    ("/assets/js/game.js", JS, include_str!("assets/js/game.js")),
    (
        "/assets/js/input.js",
        JS,
        include_str!("assets/js/input.js"),
    ),
    (
        "/assets/js/learn.js",
        JS,
        include_str!("assets/js/learn.js"),
    ),
    (
        "/assets/js/lobby.js",
        JS,
        include_str!("assets/js/lobby.js"),
    ),
    (
        "/assets/js/notices.js",
        JS,
        include_str!("assets/js/notices.js"),
    ),
    (
        "/assets/js/panels.js",
        JS,
        include_str!("assets/js/panels.js"),
    ),
    (
        "/assets/js/profile.js",
        JS,
        include_str!("assets/js/profile.js"),
    ),
    (
        "/assets/js/review.js",
        JS,
        include_str!("assets/js/review.js"),
    ),
    ("/assets/js/room.js", JS, include_str!("assets/js/room.js")),
    (
        "/assets/js/state.js",
        JS,
        include_str!("assets/js/state.js"),
    ),
    (
        "/assets/js/values.js",
        JS,
        include_str!("assets/js/values.js"),
    ),
    (
        "/assets/js/watch.js",
        JS,
        include_str!("assets/js/watch.js"),
    ),
];

/// The file asked for at `path` (without the query), if it is one of the
/// page's.
pub(crate) fn asset(path: &str) -> Option<Asset> {
    let index = FILES.iter().position(|(at, ..)| *at == path)?;
    let (_, content_type, body) = FILES[index];
    Some(Asset {
        content_type,
        body,
        etag: &etags()[index],
    })
}

/// The files' ETags, in the order of [`FILES`], hashed once.
fn etags() -> &'static [String] {
    static ETAGS: OnceLock<Vec<String>> = OnceLock::new();
    ETAGS.get_or_init(|| {
        FILES
            .iter()
            .map(|(_, _, body)| {
                let hex: String = Sha256::digest(body.as_bytes())
                    .iter()
                    .map(|byte| format!("{byte:02x}"))
                    .collect();
                format!("\"{hex}\"")
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_assets_folder_is_served() {
        // A module added to the folder but not to FILES would be a 404
        // the page meets only when it loads.
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web/http/assets");
        let mut files = Vec::new();
        for entry in walk(&folder) {
            let relative = entry.strip_prefix(&folder).expect("inside the folder");
            let relative = relative.to_str().expect("a UTF-8 name").replace('\\', "/");
            files.push(if relative == "index.html" {
                "/".to_owned()
            } else {
                format!("/assets/{relative}")
            });
        }
        files.sort();
        let mut served: Vec<String> = FILES.iter().map(|(at, ..)| (*at).to_owned()).collect();
        served.sort();
        assert_eq!(files, served);
    }

    fn walk(folder: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(folder).expect("the folder is read") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    #[test]
    fn a_file_has_a_fixed_etag_that_it_alone_matches() {
        let css = asset("/assets/morris.css").expect("the style");
        assert_eq!(css.content_type, "text/css; charset=utf-8");
        assert_eq!(css.etag.len(), 66, "{}", css.etag);
        assert!(css.etag.starts_with('"') && css.etag.ends_with('"'));
        assert_eq!(css.etag, asset("/assets/morris.css").expect("again").etag);
        let page = asset("/").expect("the page");
        assert_ne!(page.etag, css.etag);
        assert!(css.matches(css.etag));
        assert!(css.matches(&format!("W/\"x\", {}", css.etag)));
        assert!(!css.matches(page.etag));
        assert!(css.matches("*"));
        assert!(asset("/assets/nothing.js").is_none());
        assert!(asset("/assets/js/").is_none());
    }
}
