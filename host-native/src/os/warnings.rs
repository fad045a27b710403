//! Warnings from any layer: said through the one sink the face running the command chose
//! (stderr, as `baton: warning: …` made terminal-safe, unless a face sets another), so no
//! service calls up into a face to say something went wrong.

use std::sync::{OnceLock, RwLock};

/// Where warnings go.
type Sink = Box<dyn Fn(&str) + Send + Sync>;

fn sink() -> &'static RwLock<Option<Sink>> {
    static SINK: OnceLock<RwLock<Option<Sink>>> = OnceLock::new();
    SINK.get_or_init(|| RwLock::new(None))
}

/// Says `text` as a warning, through the sink a face set, else on stderr.
pub fn warn(text: &str) {
    let chosen = sink()
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match chosen.as_ref() {
        Some(send) => send(text),
        None => to_stderr(text),
    }
}

/// Sends this process's warnings to `send` from now on (a face that owns stderr otherwise,
/// or collects them).
pub fn set_sink(send: impl Fn(&str) + Send + Sync + 'static) {
    *sink()
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Box::new(send));
}

/// The default: `baton: warning: …` on stderr, terminal-safe (a closed stderr is ignored).
fn to_stderr(text: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "baton: warning: {}",
        super::terminal::terminal_safe(text)
    );
}
