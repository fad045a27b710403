//! `baton watch` at rest: the CPU time it takes over 60 seconds while nothing changes, on a
//! ledger with 2,000 ended and 20 live work sessions (after its first frame). Target: 0 %.
//! Then one change (a new session) and how long until the frame that shows it.
//! Run: `cargo bench -p baton-tests --bench watch`. Prints figures.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// User plus system CPU time of a process, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: u64 = std::env::var("BATON_BENCH_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("webapp/.baton");
    for (count, ended) in [("2000", true), ("20", false)] {
        let mut writer = Command::new(env!("CARGO_BIN_EXE_ledger-writer"));
        writer.arg(&ledger).arg(count).stdout(Stdio::null());
        if ended {
            writer.arg("--ended");
        }
        assert!(writer.status().unwrap().success());
    }
    let command = |args: &[&str]| {
        let mut command = Command::new(&baton);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("BATON_DIR", &ledger)
            .env("BATON_FSYNC", "0")
            .args(args);
        command
    };
    let out = tmp.path().join("frames.txt");
    let mut watch = command(&["watch"])
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let frames = || {
        let text = std::fs::read_to_string(&out).unwrap();
        text.matches("baton watch ·").count()
    };
    while frames() == 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(2));
    let (before, frames_before) = (cpu_ticks(watch.id()), frames());
    std::thread::sleep(Duration::from_secs(seconds));
    let (after, frames_after) = (cpu_ticks(watch.id()), frames());
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let cpu = (after - before) as f64 / hz;
    println!(
        "watch idle over {seconds} s: {cpu:.2} s of CPU ({:.2} %), {} frame(s) drawn",
        100.0 * cpu / seconds as f64,
        frames_after - frames_before
    );
    let started = Instant::now();
    let status = command(&["start", "--project", "webapp", "--agent", "codex"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    while frames() == frames_after {
        std::thread::sleep(Duration::from_millis(5));
    }
    println!(
        "watch: a new session shown {:.0} ms after `baton start` began",
        started.elapsed().as_secs_f64() * 1000.0
    );
    watch.kill().unwrap();
    watch.wait().unwrap();
}
