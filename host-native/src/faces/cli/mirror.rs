//! `baton mirror` (one pass, or following) with its progress and summary, and the index's
//! upkeep (`baton index stats|compact|…`).

use crate::faces::cli::args::{IndexUpkeep, MirrorArgs};
use crate::faces::cli::{Output, index_path, to_json};
use crate::faces::table::{Column, Style, Table};
use crate::human_bytes;
use baton_core::Error;
use baton_core::analyzer::charts::scale::thousands;

/// `baton mirror`: one pass over the sources, or (`--follow`) a pass whenever they change.
pub(crate) fn mirror(cli: &crate::faces::cli::Cli, args: &MirrorArgs) -> Result<Output, Error> {
    use crate::ops::mirror::{Mirror, follow, settings};
    let path = index_path(cli, &args.location)?;
    let flags = settings::Flags {
        folders: args.folders(),
        poll_secs: args.poll_secs,
        no_backfill: args.no_backfill,
    };
    let settings = crate::ops::mirror::settings::resolved(
        &flags,
        crate::faces::cli::ledger_dir(cli).as_deref(),
    )?;
    let mut mirror = Mirror::open(&path)?;
    if args.follow {
        let watch = if args.poll {
            follow::Watch::Poll
        } else {
            follow::Watch::Notify
        };
        let human = !cli.json;
        if human {
            crate::faces::cli::eprint_line(&format!(
                "Following {} folder(s) into {} (Ctrl-C stops; nothing is lost when it does)",
                settings.roots().count(),
                path.display()
            ));
        }
        follow::follow(&mut mirror, &settings, watch, &mut |batch| {
            // One line per batch (with --json, one JSON object per line); a reader that went
            // away ends the follow, quietly: every pass has already been kept.
            let line = if human {
                crate::faces::cli::terminal_safe(&format!(
                    "{} {}",
                    chrono::Local::now().format("%H:%M:%S"),
                    pass_summary(batch.stats, &path)
                ))
                .into_owned()
            } else {
                serde_json::json!({
                    "index": path.display().to_string(),
                    "pass": batch.stats,
                    "full": batch.full,
                    "took_ms": batch.took.as_millis() as u64,
                })
                .to_string()
            };
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                std::process::exit(0);
            }
        })?;
        unreachable_follow()
    } else {
        let sources = settings.sources();
        let options = settings.pass_options(settings.backfill, true);
        let mut bar = Progress::for_pass(&mirror, &sources);
        let stats = mirror.pass(&sources, options, &mut |stats| bar.update(stats))?;
        bar.finish();
        Ok(Output {
            human: pass_summary(&stats, &path),
            json: serde_json::json!({ "index": path.display().to_string(), "pass": stats }).into(),
        })
    }
}

/// `follow` returns only on an error; the `Ok` it never gives.
fn unreachable_follow() -> Result<Output, Error> {
    Err(Error::internal("the follow stopped without an error"))
}

/// A pass in one line.
fn pass_summary(stats: &crate::ops::mirror::pass::PassStats, path: &std::path::Path) -> String {
    let mut extra = String::new();
    if stats.export_conversations > 0 {
        extra += &format!(
            ", {} conversation(s) from exports",
            stats.export_conversations
        );
    }
    if stats.rereads > 0 {
        extra += &format!(", {} file(s) read again from the start", stats.rereads);
    }
    if stats.missing > 0 {
        extra += &format!(", {} source(s) gone (their rows kept)", stats.missing);
    }
    if stats.skipped_backlog > 0 {
        extra += &format!(
            ", {} file(s) followed from their end (no backfill)",
            stats.skipped_backlog
        );
    }
    if stats.failed > 0 {
        extra += &format!(", {} file(s) not read (see the warnings)", stats.failed);
    }
    if stats.skipped_lines > 0 {
        extra += &format!(
            ", {} line(s) over {} MiB passed over (`baton index stats` lists them)",
            stats.skipped_lines,
            crate::ops::mirror::pass::MAX_LINE_BYTES >> 20
        );
    }
    format!(
        "[ok] Mirrored {} file(s) into {}: {} read, {} line(s), {} new message(s){extra}",
        stats.files,
        path.display(),
        human_bytes(stats.bytes_read),
        stats.lines,
        stats.messages,
    )
}

/// A backfill's progress bar on a terminal: files, MB, rate and time left.
struct Progress {
    total_files: usize,
    total_bytes: u64,
    started: std::time::Instant,
    last_drawn: Option<std::time::Instant>,
    shown: bool,
}

impl Progress {
    /// A bar when stderr is a terminal and the pass has more than 32 MB to read.
    fn for_pass(
        mirror: &crate::ops::mirror::Mirror,
        sources: &[crate::ops::mirror::pass::Source],
    ) -> Progress {
        use std::io::IsTerminal;
        let wanted = std::io::stderr().is_terminal();
        let total_bytes = if wanted {
            crate::ops::mirror::pass::unread_bytes(mirror.connection(), sources)
        } else {
            0
        };
        Progress {
            total_files: sources.len(),
            total_bytes,
            started: std::time::Instant::now(),
            last_drawn: None,
            shown: wanted && total_bytes > 32 << 20,
        }
    }

    fn update(&mut self, stats: &crate::ops::mirror::pass::PassStats) {
        if !self.shown
            || self
                .last_drawn
                .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(120))
        {
            return;
        }
        self.last_drawn = Some(std::time::Instant::now());
        let seconds = self.started.elapsed().as_secs_f64().max(0.001);
        let rate = stats.bytes_read as f64 / seconds;
        let left = self.total_bytes.saturating_sub(stats.bytes_read) as f64 / rate.max(1.0);
        // A rate from the first file or two says nothing (it promised 46,341 s left).
        let pace = if seconds < 0.5 || stats.bytes_read == 0 {
            "estimating the time left".to_owned()
        } else {
            format!("{:.1} MB/s, {left:.0} s left", rate / 1e6)
        };
        crate::os::files::draw_progress(
            "Mirroring",
            &format!("{}/{} files, {pace}, ", stats.files, self.total_files),
            stats.bytes_read,
            self.total_bytes,
        );
    }

    fn finish(&self) {
        if self.shown && self.last_drawn.is_some() {
            crate::os::files::clear_progress();
        }
    }
}

/// `baton index stats|compact`.
pub(crate) fn index_upkeep(
    cli: &crate::faces::cli::Cli,
    upkeep: &IndexUpkeep,
) -> Result<Output, Error> {
    match upkeep {
        IndexUpkeep::Stats(location) => {
            let path = index_path(cli, location)?;
            let connection = crate::index::open_existing(&path)?;
            let stats = crate::ops::mirror::upkeep::stats(&connection, &path)?;
            let style = Style::for_stdout(cli.color);
            let mut human = format!(
                "[ok] {}: {} on disk ({} file, {} WAL, {} free), {:.0}% of the {} of sources read\n{} source(s), {} gone (rows kept), {} set aside; {} conversation(s) removed on purpose; schema {}",
                stats.path,
                human_bytes(stats.file_bytes + stats.wal_bytes),
                human_bytes(stats.file_bytes),
                human_bytes(stats.wal_bytes),
                human_bytes(stats.free_bytes),
                stats.share_of_sources * 100.0,
                human_bytes(stats.source_bytes),
                stats.sources,
                stats.sources_missing,
                stats.sources_set_aside,
                stats.removed,
                stats.schema_version,
            );
            let mut table = Table::new(vec![
                Column::text("TABLE"),
                Column::number("ROWS"),
                Column::number("BYTES"),
                Column::number("SHARE"),
            ]);
            let total: u64 = stats.tables.iter().map(|t| t.bytes).sum();
            for t in &stats.tables {
                table.row(vec![
                    t.name.clone().into(),
                    thousands(t.rows).into(),
                    human_bytes(t.bytes).into(),
                    format!("{:.0}%", t.bytes as f64 * 100.0 / total.max(1) as f64).into(),
                ]);
            }
            table.append_to(&mut human, &style);
            if !stats.skipped_lines.is_empty() {
                human += &format!(
                    "\nLines passed over for being longer than {} MiB (the index does not hold them):",
                    crate::ops::mirror::pass::MAX_LINE_BYTES >> 20
                );
                for line in &stats.skipped_lines {
                    human += &format!(
                        "\n  {} at byte {}: {}",
                        line.path,
                        line.offset,
                        human_bytes(line.bytes)
                    );
                }
            }
            Ok(Output {
                human,
                json: to_json(&stats)?.into(),
            })
        }
        IndexUpkeep::Compact(location) => {
            let path = index_path(cli, location)?;
            crate::index::open_existing(&path)?;
            let mut mirror = crate::ops::mirror::Mirror::open(&path)?;
            let done = crate::ops::mirror::upkeep::compact(&mut mirror)?;
            Ok(Output {
                human: format!(
                    "[ok] Compacted {} in {} short step(s): {} → {}{}",
                    path.display(),
                    done.steps,
                    human_bytes(done.bytes_before),
                    human_bytes(done.bytes_after),
                    if done.rewrote {
                        " (rewritten once in full, so later compactions go in steps)"
                    } else {
                        ""
                    }
                ),
                json: serde_json::json!({ "index": path.display().to_string(), "compacted": done })
                    .into(),
            })
        }
    }
}
