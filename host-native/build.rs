//! Embeds the web page (`www/`) into the binary when its wasm has been built (`www/build.sh`);
//! otherwise records that it is missing, so `baton web` can say how to build it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PAGE_FILES: &[&str] = &["index.html", "app.js", "style.css", "worker.js"];

fn main() {
    let www = Path::new(env!("CARGO_MANIFEST_DIR")).join("../www");
    for file in PAGE_FILES {
        println!("cargo:rerun-if-changed={}", www.join(file).display());
    }
    println!("cargo:rerun-if-changed={}", www.join("pkg").display());
    let pkg = www.join("pkg");
    let built = pkg.join("wasm-bytes.js").is_file() && pkg.join("baton_web.js").is_file();
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if built {
        for file in PAGE_FILES {
            let path = www.join(file);
            if path.is_file() {
                files.push((format!("/{file}"), path));
            }
        }
        let mut pkg_files: Vec<PathBuf> = std::fs::read_dir(&pkg)
            .expect("read www/pkg")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "js"))
            .collect();
        pkg_files.sort();
        for path in pkg_files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.push((format!("/pkg/{name}"), path));
        }
    }
    let mut code = String::new();
    writeln!(
        code,
        "/// Whether `www/build.sh` had run when this binary was built."
    )
    .unwrap();
    writeln!(code, "pub const PAGE_BUILT: bool = {built};").unwrap();
    writeln!(code, "/// The page's files: URL path and bytes.").unwrap();
    writeln!(code, "pub static ASSETS: &[(&str, &[u8])] = &[").unwrap();
    for (url, path) in files {
        let abs = path.canonicalize().expect("canonical path");
        writeln!(
            code,
            "    ({url:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    writeln!(code, "];").unwrap();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("www_assets.rs");
    std::fs::write(out, code).expect("write www_assets.rs");
}
