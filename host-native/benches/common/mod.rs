//! What the host's benches share: the release `baton` binary they drive, built when missing.

use std::path::PathBuf;
use std::process::Command;

/// The release `baton` beside this bench, built first when it is not there.
pub fn release_baton() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("baton");
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "baton"])
            .status()
            .unwrap();
        assert!(status.success());
    }
    bin
}
