//! Shared helpers for the cross-host tests: find the binaries, run them with a clean
//! environment, and read a ledger back.

pub mod agents;

use baton_core::ledger::fold::Fold;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `baton` binary of this build (`cargo build --workspace` puts it beside the tests).
pub fn baton_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    let bin = profile_dir.join("baton");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace` before the tests",
        bin.display()
    );
    bin
}

/// A `baton` command on `dir`, with the environment cleared of anything that changes answers.
pub fn baton(dir: &Path) -> Command {
    let mut cmd = Command::new(baton_bin());
    // Run beside the ledger, outside any git repository, so no commit is picked up by chance.
    if let Some(parent) = dir.parent().filter(|p| p.is_dir()) {
        cmd.current_dir(parent);
    }
    let user = user_folders(dir);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BATON_DIR", dir)
        .env("BATON_FSYNC", "0")
        .env("TZ", "UTC")
        .env("XDG_DATA_HOME", user.join("data"))
        .env("XDG_CACHE_HOME", user.join("cache"))
        // The editors' folders (VS Code's chats, its extensions' tasks) are the test's too.
        .env("XDG_CONFIG_HOME", user.join("config"));
    cmd
}

/// One Claude Code response line in `/work/app`: `output` output tokens of
/// claude-sonnet-4-5 (no input or cache, so it costs `output` × $15 per million), request
/// `r-<id>`, message `m-<id>`.
pub fn claude_response(session: &str, at: &str, id: &str, output: u64) -> String {
    format!(
        r#"{{"type":"assistant","sessionId":"{session}","cwd":"/work/app","timestamp":"{at}","requestId":"r-{id}","message":{{"id":"m-{id}","model":"claude-sonnet-4-5-20250929","usage":{{"input_tokens":0,"output_tokens":{output}}}}}}}"#
    )
}

/// The stand-in for the user's own folders that [`baton`] gives a ledger's commands (the
/// per-user index and caches live there): beside the ledger, so each test has its own.
pub fn user_folders(dir: &Path) -> PathBuf {
    dir.parent().unwrap_or(dir).join(".baton-user")
}

/// The transcript index a ledger's commands use by default (see [`user_folders`]).
pub fn default_index(dir: &Path) -> PathBuf {
    user_folders(dir)
        .join("data")
        .join("baton")
        .join("index.sqlite")
}

/// Starts a command with `input` written to its stdin, which is then closed (stdout and
/// stderr captured).
pub fn spawn_with_stdin(command: &mut Command, input: &[u8]) -> std::process::Child {
    use std::io::Write;
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Written from a thread of its own: a command that answers as it reads fills its stdout
    // while the rest is still to be written (the two pipes would wait on each other). A
    // command that exits without reading leaves a closed pipe: not the test's concern.
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    child
}

/// Runs a command with `input` on its stdin (stdout and stderr captured) and waits for it.
pub fn output_with_stdin(command: &mut Command, input: &[u8]) -> Output {
    spawn_with_stdin(command, input).wait_with_output().unwrap()
}

/// Asserts a command succeeded; when it did not, says `what` it was and all it printed.
pub fn assert_success(output: &Output, what: std::fmt::Arguments<'_>) {
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs a command and parses the JSON object on the last stdout line.
pub fn json_of(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): stdout={stdout} stderr={}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// Folds every file of a ledger directory the way a reader would, without the checkpoint.
pub fn fold_dir(dir: &Path) -> Fold {
    let mut fold = Fold::new();
    let archive = dir.join("archive");
    if let Ok(entries) = std::fs::read_dir(&archive) {
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            baton_core::ledger::compaction::fold_archive(&mut fold, &bytes, "archive");
        }
    }
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "events.ndjson" || (name.starts_with("sealed-") && name.ends_with(".ndjson")) {
            fold.apply_text(&std::fs::read(entry.path()).unwrap(), &name);
        }
    }
    fold
}

/// Replaces every UUID with `<IDn>`, numbered by first appearance, and its last eight digits
/// (the short id in presentation paths) with `<SHORTn>`: snapshots stay stable across runs.
pub fn redact_ids(text: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        let candidate = text.get(i..i + 36);
        if let Some(id) = candidate.filter(|c| uuid::Uuid::try_parse(c).is_ok()) {
            let n = seen.iter().position(|s| s == id).unwrap_or_else(|| {
                seen.push(id.to_owned());
                seen.len() - 1
            });
            out.push_str(&format!("<ID{n}>"));
            i += 36;
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    for (n, id) in seen.iter().enumerate() {
        out = out.replace(&id[28..], &format!("<SHORT{n}>"));
    }
    out
}

/// Runs a command, killing it and failing the test if it has not finished in `seconds` (a walk
/// that loops or a read that never ends would otherwise hang the suite).
pub fn output_within(mut command: Command, seconds: u64) -> Output {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(seconds) {
            let _ = child.kill();
            panic!("still running after {seconds} s: a loop or a read without end");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// What the benchmarks share: how big a tree to make, the release `baton`, and one process
/// measured as a person runs it.
pub mod bench {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// `baton ARGS` as a bench runs it: nothing from the caller's environment but `PATH`,
    /// `home` as the user's home and working folder, days in UTC, and `index` as the index.
    pub fn baton_in(baton: &Path, home: &Path, index: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(baton);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("BATON_INDEX", index)
            .current_dir(home)
            .args(args);
        cmd
    }

    /// The `p` quantile (0 to 1) of `times`, which it sorts.
    pub fn percentile(times: &mut [Duration], p: f64) -> Duration {
        times.sort();
        let at = ((times.len() as f64 - 1.0) * p).round() as usize;
        times[at]
    }

    /// A process's peak resident memory in MB, from `/proc`.
    pub fn peak_mb(pid: u32) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    }

    /// A duration in milliseconds.
    pub fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// The generated trees' size in MB: `BATON_BENCH_MB`, else 500.
    pub fn tree_mb() -> u64 {
        std::env::var("BATON_BENCH_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(500)
    }

    /// Builds `baton` in release and gives its path.
    pub fn release_baton() -> PathBuf {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "baton"])
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(status.success());
        root.join("target/release/baton")
    }

    /// One finished run: its wall time, peak resident memory and what it printed.
    #[derive(Debug)]
    pub struct Measured {
        /// Wall time, start-up included.
        pub took: Duration,
        /// Peak resident memory (the child's own `ru_maxrss`) in MB.
        pub peak_mb: f64,
        /// Its standard output.
        pub stdout: String,
    }

    /// Runs `cmd` to completion (it must succeed), its standard error discarded. The child is
    /// reaped with `wait4`, which gives the moment it ended and its own peak resident memory
    /// (`ru_maxrss`) exactly: no polling that would add its period to a few-millisecond run
    /// or miss a short peak.
    #[allow(clippy::zombie_processes)] // reaped by wait4, which `Child` does not know of
    pub fn measure(cmd: &mut Command) -> Measured {
        let start = Instant::now();
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
            text
        });
        let pid = child.id() as libc::pid_t;
        let mut status: libc::c_int = 0;
        // SAFETY: `rusage` is plain data, all zeroes a valid value, which wait4 fills in.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let reaped = loop {
            // SAFETY: waits for our own child, writing into the two locals above.
            let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if reaped == -1
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break reaped;
        };
        let took = start.elapsed();
        assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{cmd:?} failed"
        );
        Measured {
            took,
            peak_mb: usage.ru_maxrss as f64 / 1024.0,
            stdout: reader.join().unwrap(),
        }
    }
}

/// `baton mcp` on a ledger, spoken to line by line as an MCP client named `client` would (the
/// client is this test process, as an agent is the parent of the server it starts).
#[derive(Debug)]
pub struct McpClient {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl McpClient {
    /// Starts the server and completes the handshake.
    pub fn start(ledger: &Path, client: &str) -> McpClient {
        let mut child = baton(ledger)
            .arg("mcp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut server = McpClient {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = server.request(
            "initialize",
            serde_json::json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": client, "version": "1"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "baton", "{init}");
        server.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// One JSON-RPC request and its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.request_id(id, method, params)
    }

    /// A request under the id given (the ids after it are not reused), and its response.
    pub fn request_id(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.next_id = self.next_id.max(id + 1);
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        self.response(id)
    }

    /// A line written to the server as it is (malformed input included).
    pub fn send_line(&mut self, line: &str) {
        use std::io::Write;
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The response to request `id`, skipping whatever comes before it.
    pub fn response(&mut self, id: u64) -> Value {
        use std::io::BufRead;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let value: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if value["id"] == id {
                return value;
            }
        }
    }

    /// Whether the server is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// A tool call's whole response.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let id = self.next_id;
        self.call_id(id, tool, args)
    }

    /// A tool call under the id given, and its whole response.
    pub fn call_id(&mut self, id: u64, tool: &str, args: Value) -> Value {
        self.request_id(
            id,
            "tools/call",
            serde_json::json!({"name": tool, "arguments": args}),
        )
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Rust sources under `dir`, every folder deep, sorted.
#[allow(clippy::disallowed_methods)]
pub fn rust_sources_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, into);
            } else if path.extension().is_some_and(|e| e == "rs") {
                into.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found.sort();
    found
}

/// `baton mirror` of Claude Code's `claude_dir` alone: every other provider pointed nowhere.
pub fn mirror_only(claude_dir: &str) -> [&str; 9] {
    [
        "mirror",
        "--claude-dir",
        claude_dir,
        "--codex-dir",
        "/nonexistent",
        "--chatgpt-dir",
        "/nonexistent",
        "--claude-ai-dir",
        "/nonexistent",
    ]
}

/// The arguments of a start on the project `demo` by `agent` with `goal`.
pub fn start_demo<'a>(agent: &'a str, goal: &'a str) -> [&'a str; 7] {
    [
        "start",
        "--project",
        "demo",
        "--agent",
        agent,
        "--goal",
        goal,
    ]
}

/// Counts rows of an index with `sql` (opened read-only, beside a mirror writing it); `-1`
/// when it cannot be read yet.
pub fn index_count(index: &Path, sql: &str) -> i64 {
    let Ok(db) =
        rusqlite::Connection::open_with_flags(index, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return -1;
    };
    db.query_row(sql, [], |r| r.get(0)).unwrap_or(-1)
}

/// How many messages of an index's full-text table match `word`.
pub fn index_hits(index: &Path, word: &str) -> i64 {
    index_count(
        index,
        &format!("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH '{word}'"),
    )
}

/// The conversations an index keeps, as `transcripts list --json` gives them.
pub fn listed_in(dir: &Path, index: &Path) -> Value {
    json_of(
        &baton(dir)
            .args(["--json", "transcripts", "list", "--index"])
            .arg(index)
            .output()
            .unwrap(),
    )
}

/// A child process (a `baton mirror --follow`, a database writer), killed when dropped.
#[derive(Debug)]
pub struct Killed(pub std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits (up to 30 s) until `ready` holds; says what it last saw when it never does.
pub fn eventually(what: &str, mut ready: impl FnMut() -> Result<(), String>) {
    let started = std::time::Instant::now();
    loop {
        match ready() {
            Ok(()) => return,
            Err(seen) if started.elapsed() > std::time::Duration::from_secs(30) => {
                panic!("{what}: still {seen}")
            }
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
}

/// An agent holding its database's write lock (the `db-holder` binary): `sql` written inside
/// a transaction not yet committed, until [`WriteHolder::commit`]; killed when dropped.
#[derive(Debug)]
pub struct WriteHolder {
    said: std::io::BufReader<std::process::ChildStdout>,
    stdin: std::process::ChildStdin,
    _child: Killed,
}

impl WriteHolder {
    /// Starts a holder (`bin`: the test's `CARGO_BIN_EXE_db-holder`) on the database at
    /// `path` and waits until it holds the lock.
    pub fn start(bin: &str, path: &Path, sql: &str) -> WriteHolder {
        use std::io::BufRead;
        let mut child = Command::new(bin)
            .arg(path)
            .arg(sql)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = std::io::BufReader::new(child.stdout.take().unwrap());
        let stdin = child.stdin.take().unwrap();
        let mut line = String::new();
        said.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "holding");
        WriteHolder {
            said,
            stdin,
            _child: Killed(child),
        }
    }

    /// Commits, and asserts the agent could: nothing of Baton's held it up.
    pub fn commit(mut self) {
        use std::io::{BufRead, Write};
        writeln!(self.stdin, "commit").unwrap();
        let mut line = String::new();
        self.said.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "committed");
    }
}

/// Commands run on a pseudo-terminal, as a person runs them in a terminal.
pub mod pty {
    use std::io::{Read, Write};
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    /// A command on its own pseudo-terminal of 80×24, read as a terminal shows it.
    #[derive(Debug)]
    pub struct Pty {
        master: std::fs::File,
        /// The process.
        pub child: std::process::Child,
        seen: Arc<Mutex<Vec<u8>>>,
    }

    impl Pty {
        /// Starts `command` with the pty as its terminal (stdin, stdout, stderr, controlling).
        pub fn open(command: &mut std::process::Command) -> Pty {
            let (mut master, mut slave) = (0, 0);
            let size = libc::winsize {
                ws_row: 24,
                ws_col: 80,
                ws_xpixel: 0,
                ws_ypixel: 0,
            };
            // SAFETY: openpty writes two descriptors this function then owns.
            let opened = unsafe {
                libc::openpty(
                    &mut master,
                    &mut slave,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                    &size,
                )
            };
            assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
            // SAFETY: sets a flag on the two descriptors just opened: no other child of this
            // process (tests run side by side) inherits them.
            unsafe {
                libc::fcntl(master, libc::F_SETFD, libc::FD_CLOEXEC);
                libc::fcntl(slave, libc::F_SETFD, libc::FD_CLOEXEC);
            }
            // SAFETY: both descriptors were just opened and are owned here.
            let (master, slave) = unsafe {
                (
                    std::fs::File::from_raw_fd(master),
                    std::fs::File::from_raw_fd(slave),
                )
            };
            command
                .env("TERM", "xterm-256color")
                .stdin(slave.try_clone().unwrap())
                .stdout(slave.try_clone().unwrap())
                .stderr(slave);
            // SAFETY: between fork and exec only async-signal-safe calls: a new session whose
            // controlling terminal is the pty.
            unsafe {
                command.pre_exec(|| {
                    libc::setsid();
                    libc::ioctl(0, libc::TIOCSCTTY, 0);
                    Ok(())
                });
            }
            let child = command.spawn().unwrap();
            // The parent's copies of the pty's slave end go with the command's (closed by spawn).
            command.stdin(std::process::Stdio::null());
            command.stdout(std::process::Stdio::null());
            command.stderr(std::process::Stdio::null());
            let seen = Arc::new(Mutex::new(Vec::new()));
            let mut reading = master.try_clone().unwrap();
            let into = Arc::clone(&seen);
            std::thread::spawn(move || {
                let mut buffer = [0u8; 8192];
                while let Ok(n) = reading.read(&mut buffer) {
                    if n == 0 {
                        break;
                    }
                    into.lock().unwrap().extend_from_slice(&buffer[..n]);
                }
            });
            Pty {
                master,
                child,
                seen,
            }
        }

        /// Waits until nothing new is written for `quiet`.
        pub fn settle(&self, quiet: Duration) {
            let mut last = self.bytes();
            let mut since = Instant::now();
            while since.elapsed() < quiet {
                std::thread::sleep(Duration::from_millis(10));
                let now = self.bytes();
                if now != last {
                    last = now;
                    since = Instant::now();
                }
            }
        }

        /// How many bytes it wrote so far.
        pub fn bytes(&self) -> usize {
            self.seen.lock().unwrap().len()
        }

        /// The screen as a terminal shows it after everything drawn so far.
        pub fn screen(&self) -> String {
            let mut parser = vt100::Parser::new(24, 80, 0);
            parser.process(&self.seen.lock().unwrap());
            parser.screen().contents()
        }

        /// Waits until the screen shows `needle`; how long it took.
        pub fn wait_for(&self, needle: &str, within: Duration) -> Duration {
            let start = Instant::now();
            while start.elapsed() < within {
                if self.screen().contains(needle) {
                    return start.elapsed();
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            panic!(
                "{needle:?} not on screen within {within:?}:\n{}",
                self.screen()
            );
        }

        /// Types `keys`.
        pub fn keys(&mut self, keys: &str) {
            self.type_now(keys);
            std::thread::sleep(Duration::from_millis(60));
        }

        /// Types `keys` and returns at once (to time what follows).
        pub fn type_now(&mut self, keys: &str) {
            self.master.write_all(keys.as_bytes()).unwrap();
            self.master.flush().unwrap();
        }

        /// Waits for the process to end; its exit code (or signal) and whether it gave the
        /// terminal back: the alternate screen left and the cursor shown after they were taken.
        pub fn finish(mut self) -> (Option<i32>, bool) {
            let deadline = Instant::now() + Duration::from_secs(10);
            let status = loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    break status;
                }
                assert!(Instant::now() < deadline, "baton tui did not end");
                std::thread::sleep(Duration::from_millis(20));
            };
            // What it wrote last reaches the reader a moment after it ended.
            let settle = Instant::now() + Duration::from_secs(3);
            while Instant::now() < settle
                && !String::from_utf8_lossy(&self.seen.lock().unwrap()).ends_with("\u{1b}[?25h")
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            let raw = String::from_utf8_lossy(&self.seen.lock().unwrap()).into_owned();
            let after = |taken: &str, given: &str| {
                raw.rfind(given)
                    .is_some_and(|g| raw.rfind(taken).is_none_or(|t| t < g))
            };
            // The alternate screen left, the cursor shown, the mouse given back.
            let restored = raw.contains("\u{1b}[?1049h")
                && after("\u{1b}[?1049h", "\u{1b}[?1049l")
                && after("\u{1b}[?25l", "\u{1b}[?25h")
                && raw.contains("\u{1b}[?1000h")
                && after("\u{1b}[?1000h", "\u{1b}[?1000l");
            (status.code(), restored)
        }
    }
}
