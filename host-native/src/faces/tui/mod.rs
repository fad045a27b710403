//! `baton tui`: a terminal home for the day's work — the live sessions across agents (with
//! attention, pause and unpause), the history of every agent's kept conversations, search as
//! you type with a reader that opens at the hit, and cost. It reads through the same host
//! operations as the CLI and MCP, wakes only on a key, a resize or a file that changed (no
//! polling at rest), and gives the terminal back as it found it on exit, on a panic and on
//! SIGTERM.

mod actions;
mod app;
mod data;
mod draw;
mod filter;
mod keys;
mod lines;
mod markdown;
mod palette;
mod panes;
#[cfg(test)]
mod tests;

use baton_core::Error;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// How long typing rests before the query runs: a search takes a few milliseconds, so a short
/// rest keeps a keystroke's results under 50 ms and still skips the keys typed in a burst.
const DEBOUNCE: Duration = Duration::from_millis(30);

/// How soon after a file changed the live view is read again (changes come in bursts).
const SETTLE: Duration = Duration::from_millis(150);

/// The least time between two reads of the live view (an agent at work writes all the time);
/// short enough that a session started just after a read is on screen within a second.
const MIN_RELOAD_GAP: Duration = Duration::from_millis(500);

/// Clicks and the wheel reported (SGR encoding), and no longer. Only presses and releases:
/// the mouse moving over the screen wakes nothing.
const MOUSE_ON: &str = "\u{1b}[?1000h\u{1b}[?1006h";
const MOUSE_OFF: &str = "\u{1b}[?1006l\u{1b}[?1000l";

fn mouse(mode: &str) {
    use std::io::Write;
    let mut out = std::io::stdout();
    let _ = out.write_all(mode.as_bytes()).and_then(|()| out.flush());
}

/// What wakes the loop.
enum Wake {
    Input(ratatui::crossterm::event::Event),
    Files,
    Priced(Box<Result<crate::ops::live::Live, Error>>),
    Stop,
}

/// Prices the live sessions `app` read, on a thread of its own, and wakes the loop with them.
fn price(ledger: &crate::store::Ledger, app: &app::App, wake: &Sender<Wake>) {
    let (ledger, wake) = (ledger.clone(), wake.clone());
    let mut live = crate::ops::live::Live {
        rows: app.live.clone(),
        window: None,
        watched: Default::default(),
    };
    std::thread::spawn(move || {
        // A failure wakes the loop too, so that the next change prices again.
        let priced = std::panic::catch_unwind(move || {
            crate::os::system::now()
                .and_then(|now| crate::ops::live::price(&ledger, &mut live, now))
                .map(|()| live)
        })
        .unwrap_or_else(|_| Err(Error::internal("pricing the live sessions failed")));
        let _ = wake.send(Wake::Priced(Box::new(priced)));
    });
}

/// Blocks SIGTERM in every thread and gives it to one that turns it into [`Wake::Stop`], so
/// that the loop leaves the way it leaves on `q` (the terminal restored).
fn stop_on_sigterm(wake: Sender<Wake>) {
    // SAFETY: plain libc calls on a zeroed signal set this function owns; the mask is set
    // before any other thread of the UI starts.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        std::thread::spawn(move || {
            let mut signal: libc::c_int = 0;
            if libc::sigwait(&set, &mut signal) == 0 {
                let _ = wake.send(Wake::Stop);
            }
        });
    }
}

/// `baton tui`: what to print once the terminal is given back (the resume command asked
/// for with `r`).
pub(crate) fn run(ledger: crate::store::Ledger, colour: bool) -> Result<Option<String>, Error> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        return Err(Error::invalid(
            "terminal",
            "`baton tui` draws on a terminal: run it in one (`baton watch` and `baton list` print to a pipe)",
        ));
    }
    let index = crate::index::path_for(ledger.dir());
    let data = data::Data { ledger, index };
    let mut app = app::App::new(lines::Palette { colour }, crate::os::system::now()?);
    app.load_live(&data, crate::os::system::now()?);

    let (wake, woken) = channel();
    stop_on_sigterm(wake.clone());
    let mut watcher = {
        let wake = wake.clone();
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && crate::ops::live::changes_anything(&event)
            {
                let _ = wake.send(Wake::Files);
            }
        })
        .ok()
    };
    let mut watching = crate::ops::live::Watching::default();
    if let Some(watcher) = watcher.as_mut() {
        watching.update(watcher, &app.watched);
    }
    let mut terminal = match ratatui::try_init() {
        Ok(terminal) => terminal,
        Err(err) => {
            ratatui::restore();
            return Err(Error::store_io("take over", "the terminal", err));
        }
    };
    // The wheel and clicks come as events; the terminal gets them back before it is restored,
    // a panic included (this hook runs before ratatui's, which restores the rest).
    mouse(MOUSE_ON);
    let after = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        mouse(MOUSE_OFF);
        after(info);
    }));
    if let Ok(size) = terminal.size() {
        app.resize((size.width, size.height));
    }
    {
        let wake = wake.clone();
        std::thread::spawn(move || {
            while let Ok(event) = ratatui::crossterm::event::read() {
                if wake.send(Wake::Input(event)).is_err() {
                    break;
                }
            }
        });
    }
    let result = event_loop(
        &mut terminal,
        &mut app,
        &data,
        (&woken, &wake),
        |app: &app::App| {
            // The live view's files follow its sessions (as the last read found them).
            if let Some(watcher) = watcher.as_mut() {
                watching.update(watcher, &app.watched);
            }
        },
    );
    mouse(MOUSE_OFF);
    ratatui::restore();
    result?;
    Ok(app.on_exit)
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut app::App,
    data: &data::Data,
    (woken, wake): (&Receiver<Wake>, &Sender<Wake>),
    mut rewatch: impl FnMut(&app::App),
) -> Result<(), Error> {
    let draw_error = |e: std::io::Error| Error::store_io("draw on", "the terminal", e);
    terminal.draw(|f| draw::draw(f, app)).map_err(draw_error)?;
    // The first frame is on screen; the prices follow, one pricing at a time.
    let mut pricing = app.pricing;
    if pricing {
        app.pricing = false;
        price(&data.ledger, app, wake);
    }
    let mut files_due: Option<Instant> = None;
    let mut reloaded = Instant::now();
    let mut search_due: Option<Instant> = None;
    loop {
        let due = [files_due, search_due].into_iter().flatten().min();
        let woke = match due {
            Some(due) => match woken.recv_timeout(due.saturating_duration_since(Instant::now())) {
                Ok(wake) => Some(wake),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            },
            None => match woken.recv() {
                Ok(wake) => Some(wake),
                Err(_) => return Ok(()),
            },
        };
        let height = draw::body_height(terminal.size().map(|s| s.height).unwrap_or(24));
        let mut redraw = false;
        match woke {
            Some(Wake::Stop) => return Ok(()),
            Some(Wake::Files) => {
                files_due.get_or_insert((Instant::now() + SETTLE).max(reloaded + MIN_RELOAD_GAP));
            }
            Some(Wake::Priced(priced)) => {
                pricing = false;
                match *priced {
                    Ok(live) => app.priced(live),
                    Err(err) => app.status = format!("costs not read just now: {}", err.message),
                }
                redraw = true;
            }
            Some(Wake::Input(ratatui::crossterm::event::Event::Key(key)))
                if key.kind == ratatui::crossterm::event::KeyEventKind::Press =>
            {
                #[cfg(debug_assertions)]
                if key.code == ratatui::crossterm::event::KeyCode::F(12) {
                    panic!(
                        "a panic asked for by F12 (debug builds only), to prove the terminal comes back"
                    );
                }
                match app.key(key, data, height) {
                    app::Next::Quit => return Ok(()),
                    app::Next::Draw => redraw = true,
                    app::Next::Stay => {}
                }
                if app.search_due {
                    search_due = Some(Instant::now() + DEBOUNCE);
                }
            }
            Some(Wake::Input(ratatui::crossterm::event::Event::Resize(width, height))) => {
                app.resize((width, height));
                redraw = true;
            }
            Some(Wake::Input(ratatui::crossterm::event::Event::Mouse(mouse))) => {
                match app.mouse(mouse, data) {
                    app::Next::Quit => return Ok(()),
                    app::Next::Draw => redraw = true,
                    app::Next::Stay => {}
                }
            }
            Some(Wake::Input(_)) => {}
            None => {}
        }
        let now = Instant::now();
        if files_due.is_some_and(|due| due <= now) {
            files_due = None;
            reloaded = now;
            app.load_live(data, crate::os::system::now()?);
            rewatch(app);
            redraw = true;
        }
        if search_due.is_some_and(|due| due <= now) {
            search_due = None;
            app.run_search(data);
            redraw = true;
        }
        if app.pricing && !pricing {
            pricing = true;
            app.pricing = false;
            price(&data.ledger, app, wake);
        }
        if let Some(text) = app.clipboard.take() {
            // OSC 52: the terminal puts it on the system clipboard (over SSH too).
            use base64::Engine;
            use std::io::Write;
            let encoded = base64::engine::general_purpose::STANDARD.encode(text);
            let mut out = std::io::stdout();
            let _ = write!(out, "\u{1b}]52;c;{encoded}\u{7}").and_then(|()| out.flush());
        }
        if redraw {
            terminal.draw(|f| draw::draw(f, app)).map_err(draw_error)?;
        }
    }
}
