//! Session notes with real processes: concurrent starts never overwrite a note, concurrent
//! resume and end of one session and ends of different sessions all land, an editor saving
//! between Baton's read and rename loses nothing (a conflict copy and event instead), a
//! SIGKILL mid-update leaves the old note whole and no temporary after the next run, a
//! person's bytes survive 100 re-renders, nothing new means no write, and the ledger (never
//! the notes) decides which session an implicit end picks.

use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A ledger in a temporary folder; its vault is `.baton/vault`.
struct Place {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl Place {
    fn new() -> Place {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(".baton");
        Place { _tmp: tmp, dir }
    }

    fn vault(&self) -> PathBuf {
        self.dir.join("vault")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut cmd = baton(&self.dir);
        // Baton writes its own notes back to back; a person's edit a moment ago is what the
        // quiet time is for, and these tests edit on purpose.
        cmd.env("BATON_NOTES_QUIET_SECS", "0")
            .arg("--json")
            .args(args);
        cmd
    }

    fn ok(&self, args: &[&str]) -> Value {
        let output = self.cmd(args).output().unwrap();
        assert_success(&output, format_args!("{args:?}"));
        json_of(&output)
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.cmd(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    fn start(&self, agent: &str, goal: &str) -> (String, PathBuf) {
        let started = self.ok(&baton_tests::start_demo(agent, goal));
        (
            started["session_id"].as_str().unwrap().to_owned(),
            PathBuf::from(started["note"]["file"].as_str().unwrap()),
        )
    }
}

fn wait_ok(child: Child) -> Value {
    let output = child.wait_with_output().unwrap();
    assert_success(&output, format_args!(""));
    json_of(&output)
}

/// The `session_id` in a note's frontmatter.
fn session_in(note: &Path) -> String {
    let text = std::fs::read_to_string(note).unwrap();
    baton_core::notes::frontmatter_value(&text, "session_id")
        .unwrap()
        .unwrap_or_else(|| panic!("no session_id in {}", note.display()))
}

fn notes_in(folder: &Path) -> Vec<PathBuf> {
    let mut notes: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    notes.sort();
    notes
}

fn sessions_folder(place: &Place) -> PathBuf {
    place.vault().join("Projects/demo/sessions")
}

#[test]
fn eight_starts_in_one_minute_make_eight_notes_and_none_is_overwritten() {
    let place = Place::new();
    let children: Vec<Child> = (0..8)
        .map(|n| {
            let goal = format!("goal {n}");
            let mut cmd = place.cmd(&baton_tests::start_demo("claude", &goal));
            // One minute for all of them: the plain name fits only one.
            cmd.env("BATON_NOW", "2026-07-18T20:00:30Z")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let started: Vec<Value> = children.into_iter().map(wait_ok).collect();
    let notes = notes_in(&sessions_folder(&place));
    assert_eq!(notes.len(), 8, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("2026-07-18-2000-claude.md"))
    );
    for answer in &started {
        assert_eq!(answer["note"]["outcome"], "created", "{answer}");
        let file = PathBuf::from(answer["note"]["file"].as_str().unwrap());
        // Each note is its own session's, whole, with its own goal.
        assert_eq!(session_in(&file), answer["session_id"].as_str().unwrap());
        let text = std::fs::read_to_string(&file).unwrap();
        let goal = answer["goal"].as_str().unwrap();
        assert!(text.contains(&format!("## Goal\n\n{goal}\n")), "{text}");
    }
    let ids: std::collections::HashSet<String> = notes.iter().map(|n| session_in(n)).collect();
    assert_eq!(ids.len(), 8, "eight notes, eight sessions");
    assert!(
        place.ok(&["notes", "check"])["findings"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn resume_and_end_of_one_session_at_once_both_reach_its_note() {
    let place = Place::new();
    for round in 0..4 {
        let (id, note) = place.start(&format!("agent{round}"), "race");
        let resume = place.spawn(&["resume", &id]);
        let end = place.spawn(&["end", &id, "--summary", "finished"]);
        let _ = resume.wait_with_output().unwrap(); // refused if the end came first
        wait_ok(end);
        let shown = place.ok(&["show", &id]);
        let resumes = shown["session"]["resumes"].as_array().unwrap().len();
        let text = std::fs::read_to_string(&note).unwrap();
        assert!(text.contains("status: complete\n"), "{text}");
        assert!(text.contains("as complete after"), "{text}");
        assert!(text.contains("\nfinished\n"), "{text}");
        assert_eq!(
            text.matches("- Resumed ").count(),
            resumes,
            "the note shows every resume the ledger has: {text}"
        );
    }
}

#[test]
fn eight_different_notes_ended_at_once_are_all_right() {
    let place = Place::new();
    let sessions: Vec<(String, PathBuf)> = (0..8)
        .map(|n| place.start(&format!("agent{n}"), &format!("goal {n}")))
        .collect();
    let enders: Vec<Child> = sessions
        .iter()
        .enumerate()
        .map(|(n, (id, _))| place.spawn(&["end", id, "--summary", &format!("summary {n}")]))
        .collect();
    for ender in enders {
        assert_eq!(wait_ok(ender)["note"]["outcome"], "updated");
    }
    for (n, (id, note)) in sessions.iter().enumerate() {
        let text = std::fs::read_to_string(note).unwrap();
        assert_eq!(&session_in(note), id);
        assert!(text.contains(&format!("\nsummary {n}\n")), "{text}");
        assert!(text.contains("ended_at: "), "{text}");
        assert_eq!(text.matches("<!-- baton:end -->").count(), 1);
    }
}

/// Runs `baton` with a pause between writing its update's temporary and comparing the note,
/// and waits until the temporary is there.
fn paused_update(place: &Place, args: &[&str], folder: &Path) -> Child {
    let mut cmd = place.cmd(args);
    cmd.env("BATON_TEST_NOTE_PAUSE_MS", "1500")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !temporaries(folder).iter().any(|_| true) {
        assert!(Instant::now() < deadline, "no temporary appeared");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn temporaries(folder: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(".tmp"))
        .collect()
}

#[test]
fn an_editor_saving_between_read_and_rename_loses_nothing_and_a_conflict_is_recorded() {
    let place = Place::new();
    let (id, note) = place.start("claude", "edit me");
    // The editor: another process that saves the note (write a temporary, rename it over, as
    // editors do) with one more line of the person's each time, until told to stop.
    let stop = place.dir.join("stop-editing");
    let script = format!(
        "i=0; while [ ! -e '{stop}' ]; do cp '{note}' '{note}.e' && printf 'person line %d\\n' $i >> '{note}.e' && mv '{note}.e' '{note}'; i=$((i+1)); sleep 0.05; done; echo $i",
        stop = stop.display(),
        note = note.display()
    );
    let editor = Command::new("sh")
        .arg("-c")
        .arg(&script)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut cmd = place.cmd(&["end", &id, "--summary", "done while you typed"]);
    cmd.env("BATON_TEST_NOTE_PAUSE_MS", "300");
    let output = cmd.output().unwrap();
    std::fs::write(&stop, b"").unwrap();
    let lines: usize = String::from_utf8_lossy(&editor.wait_with_output().unwrap().stdout)
        .trim()
        .parse()
        .unwrap();
    assert!(output.status.success());
    let ended = json_of(&output);
    assert_eq!(ended["note"]["outcome"], "conflict", "{ended}");
    let text = std::fs::read_to_string(&note).unwrap();
    for n in 0..lines {
        assert!(
            text.contains(&format!("person line {n}\n")),
            "line {n} of {lines} lost: {text}"
        );
    }
    assert!(
        !text.contains("done while you typed"),
        "Baton wrote over it"
    );
    let copy = sessions_folder(&place).join(
        ended["note"]["conflict_copy"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap(),
    );
    let copied = std::fs::read_to_string(&copy).unwrap();
    assert!(copied.contains("done while you typed"), "{copied}");
    assert!(copy.to_string_lossy().contains("(baton conflict "));
    let timeline = place.ok(&["timeline", &id]);
    assert!(
        timeline["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "note_conflict"),
        "{timeline}"
    );
    // Once the person stops, the next run brings the note up to date with every line kept.
    let rebuilt = place.ok(&["notes", "rebuild"]);
    assert_eq!(rebuilt["counts"]["updated"], 1, "{rebuilt}");
    let text = std::fs::read_to_string(&note).unwrap();
    assert!(text.contains("done while you typed"));
    assert!(text.contains(&format!("person line {}\n", lines - 1)));
    // And a render with nothing new writes nothing: the mtime stays.
    let before = std::fs::metadata(&note).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let again = place.ok(&["notes", "rebuild"]);
    assert_eq!(again["counts"]["unchanged"], 1, "{again}");
    assert_eq!(
        std::fs::metadata(&note).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_sigkill_mid_update_leaves_the_old_note_whole_and_the_next_run_clears_its_temporary() {
    let place = Place::new();
    let (id, note) = place.start("claude", "kill me");
    let before = std::fs::read(&note).unwrap();
    let folder = sessions_folder(&place);
    let mut child = paused_update(&place, &["end", &id, "--summary", "killed"], &folder);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(std::fs::read(&note).unwrap(), before, "the old note, whole");
    assert_eq!(temporaries(&folder).len(), 1, "the killed run's temporary");
    // The ledger had the end before the note was touched; the next run finishes the note.
    let rebuilt = place.ok(&["notes", "rebuild"]);
    assert_eq!(rebuilt["counts"]["updated"], 1, "{rebuilt}");
    assert!(
        temporaries(&folder).is_empty(),
        "{:?}",
        temporaries(&folder)
    );
    assert!(
        std::fs::read_to_string(&note)
            .unwrap()
            .contains("\nkilled\n")
    );
}

/// The note without what Baton owns: its keys' lines and its regions' insides.
fn not_owned(text: &str) -> String {
    const OWNED: [&str; 8] = [
        "session_id:",
        "project:",
        "project_link:",
        "agent:",
        "status:",
        "started_at:",
        "ended_at:",
        "client_name:",
    ];
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\r', '\n']);
        if bare.starts_with("<!-- /baton:") {
            inside = false;
        }
        if !inside && !OWNED.iter().any(|k| bare.starts_with(k)) {
            out.push_str(line);
        }
        if bare.starts_with("<!-- baton:") {
            inside = true;
        }
    }
    out
}

#[test]
fn a_hand_edited_note_keeps_every_byte_of_the_persons_through_100_re_renders() {
    let place = Place::new();
    let (id, note) = place.start("claude", "round trips");
    let fresh = std::fs::read_to_string(&note).unwrap();
    // A person's edits: extra keys with comments, a list, quoted strings, Unicode, text above,
    // between and below Baton's regions; then the whole note saved with CRLF.
    let edited = fresh
        .replacen(
            "---\n",
            "---\ntags: [work, \"search\"] # mine\naliases:\n  - 'Söké: v2'\n  - \"quoted \\\"yes\\\"\"\n",
            1,
        )
        .replace(
            "status: working",
            "rating: 5 # ★\nstatus: working # Baton's, my comment",
        )
        .replace("<!-- baton:goal -->", "Above the goal: 日本語 ✍️\n\n<!-- baton:goal -->")
        + "\nBetween and below, with trailing spaces   \n\n> a quote\n";
    let edited = edited.replace('\n', "\r\n");
    std::fs::write(&note, &edited).unwrap();
    let mine = not_owned(&edited);
    for n in 0..50 {
        place.ok(&["pause", &id, "--reason", &format!("check {n}")]);
        place.ok(&["unpause", &id]);
    }
    let text = std::fs::read_to_string(&note).unwrap();
    assert_eq!(not_owned(&text), mine, "{text}");
    assert!(!text.replace("\r\n", "").contains('\n'), "still CRLF");
    assert!(
        text.contains("status: working # Baton's, my comment\r\n"),
        "{text}"
    );
    // A person's change to a key of Baton's is kept and reported, not replaced; what the
    // ledger recorded (the status) is put right whatever the note said.
    std::fs::write(
        &note,
        text.replacen("\r\nproject: ", "\r\nproject: renamed-", 1)
            .replace("status: working", "status: reviewing"),
    )
    .unwrap();
    let output = place.cmd(&["end", &id]).output().unwrap();
    let ended = json_of(&output);
    assert_eq!(ended["note"]["kept_edits"][0]["key"], "project", "{ended}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("kept yours"));
    let text = std::fs::read_to_string(&note).unwrap();
    assert!(text.contains("project: renamed-"), "{text}");
    assert!(text.contains("status: complete # Baton's"), "{text}");
    assert!(text.contains("ended_at: "));
    // The end is a new region of Baton's, added below everything else.
    assert!(not_owned(&text).starts_with(&mine), "{text}");
}

#[test]
fn a_note_edited_seconds_ago_is_deferred_and_caught_up_later() {
    let place = Place::new();
    let (id, note) = place.start("claude", "typing");
    let typed = std::fs::read_to_string(&note).unwrap() + "I am typing\n";
    std::fs::write(&note, &typed).unwrap();
    let mut cmd = place.cmd(&["end", &id, "--summary", "later"]);
    cmd.env("BATON_NOTES_QUIET_SECS", "60");
    let deferred = json_of(&cmd.output().unwrap());
    assert_eq!(deferred["note"]["outcome"], "deferred", "{deferred}");
    assert_eq!(std::fs::read_to_string(&note).unwrap(), typed, "untouched");
    // The next lifecycle command of any session brings the deferred note up to date.
    place.start("codex", "another");
    let text = std::fs::read_to_string(&note).unwrap();
    assert!(
        text.contains("I am typing\n") && text.contains("\nlater\n"),
        "{text}"
    );
}

#[test]
fn the_ledger_not_the_notes_decides_implicit_resolution_and_end_by_note() {
    let place = Place::new();
    let (first, first_note) = place.start("claude", "one");
    let (second, second_note) = place.start("claude", "two");
    let ambiguous = |place: &Place, extra: &[&str]| {
        let mut args = vec!["end", "--project", "demo", "--agent", "claude"];
        args.extend_from_slice(extra);
        let output = place.cmd(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let answer = json_of(&output);
        assert_eq!(answer["error"]["code"], "AMBIGUOUS_SESSION", "{answer}");
        let mut ids: Vec<String> = answer["error"]["details"]["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["session_id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    let with_notes = ambiguous(&place, &[]);
    // A freshly touched note says nothing; nor does a vault that is gone, or notes off.
    std::fs::write(&second_note, std::fs::read(&second_note).unwrap()).unwrap();
    assert_eq!(ambiguous(&place, &[]), with_notes);
    std::fs::rename(place.vault(), place.dir.join("vault-away")).unwrap();
    assert_eq!(ambiguous(&place, &["--no-notes"]), with_notes);
    assert_eq!(ambiguous(&place, &[]), with_notes);
    std::fs::remove_dir_all(place.vault()).ok();
    std::fs::rename(place.dir.join("vault-away"), place.vault()).unwrap();
    // The legacy selector: the note's frontmatter names the session, whatever the file's
    // name. Renamed to look like the other session's, it still ends its own.
    let renamed = first_note.with_file_name("2026-01-01-0000-claude-looks-like-two.md");
    std::fs::rename(&first_note, &renamed).unwrap();
    let ended = place.ok(&["end", "--note", renamed.to_str().unwrap()]);
    assert_eq!(ended["session_id"].as_str().unwrap(), first);
    // Now exactly one is live: the implicit end picks it, notes or not.
    let implicit = place.ok(&[
        "--no-notes",
        "end",
        "--project",
        "demo",
        "--agent",
        "claude",
    ]);
    assert_eq!(implicit["session_id"].as_str().unwrap(), second);
    // A note with no session_id is a clear error.
    let stray = place.vault().join("stray.md");
    std::fs::write(&stray, "---\ntitle: mine\n---\nhello\n").unwrap();
    let output = place.cmd(&["end", "--note", "stray.md"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let error = json_of(&output);
    assert_eq!(error["error"]["code"], "INVALID_ARGUMENT");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no session_id in its frontmatter"),
        "{error}"
    );
}

#[test]
fn notes_can_be_switched_off_or_kept_elsewhere_and_rebuilt_from_the_ledger() {
    let place = Place::new();
    let off = place.ok(&["--no-notes", "start", "--project", "demo", "--agent", "a"]);
    assert!(off.get("note").is_none(), "{off}");
    assert!(!place.vault().exists());
    let mut cmd = place.cmd(&["start", "--project", "demo", "--agent", "b"]);
    let elsewhere = place.dir.parent().unwrap().join("Obsidian");
    cmd.env("BATON_VAULT", &elsewhere);
    let started = json_of(&cmd.output().unwrap());
    assert!(
        started["note"]["file"]
            .as_str()
            .unwrap()
            .starts_with(elsewhere.to_str().unwrap()),
        "{started}"
    );
    std::fs::write(place.dir.join("config.toml"), "[notes]\nenabled = false\n").unwrap();
    let quiet = place.ok(&["start", "--project", "demo", "--agent", "c"]);
    assert!(quiet.get("note").is_none(), "{quiet}");
    std::fs::remove_file(place.dir.join("config.toml")).unwrap();
    // Deleting the vault loses nothing Baton owns.
    let rebuilt = place.ok(&["notes", "rebuild"]);
    assert_eq!(rebuilt["counts"]["created"], 3, "{rebuilt}");
    assert_eq!(notes_in(&sessions_folder(&place)).len(), 3);
    // A note whose frontmatter never closes is reported and never written.
    let broken = notes_in(&sessions_folder(&place))[0].clone();
    let id = session_in(&broken);
    std::fs::write(&broken, format!("---\nsession_id: {id}\nstatus: mine\n")).unwrap();
    let checked = place.ok(&["notes", "check"]);
    assert!(
        checked["findings"].to_string().contains("never closes"),
        "{checked}"
    );
    let before = std::fs::read(&broken).unwrap();
    place.ok(&["notes", "rebuild"]);
    assert_eq!(std::fs::read(&broken).unwrap(), before);
}

#[test]
fn a_renamed_or_damaged_note_stays_the_sessions_own_and_is_never_doubled() {
    use std::os::unix::fs::PermissionsExt;
    let place = Place::new();
    let folder = sessions_folder(&place);
    // Renamed and moved in the editor: found by its frontmatter, written where it now is.
    let (moved_id, note) = place.start("claude", "move me");
    let moved = place.vault().join("Projects/demo/My review of search.md");
    std::fs::rename(&note, &moved).unwrap();
    let ended = place.ok(&["end", &moved_id, "--summary", "moved"]);
    assert_eq!(
        ended["note"]["path"], "Projects/demo/My review of search.md",
        "{ended}"
    );
    assert!(
        std::fs::read_to_string(&moved)
            .unwrap()
            .contains("\nmoved\n")
    );
    assert!(!note.exists(), "no second note at the old name");
    // Its session_id line deleted by hand: still its note, the key written back.
    let (bare_id, bare) = place.start("codex", "bare");
    let text = std::fs::read_to_string(&bare).unwrap();
    std::fs::write(&bare, text.replace(&format!("session_id: {bare_id}\n"), "")).unwrap();
    // Kept private by its owner: the mode survives an update.
    std::fs::set_permissions(&bare, std::fs::Permissions::from_mode(0o600)).unwrap();
    let resumed = place.ok(&["resume", &bare_id]);
    assert_eq!(resumed["note"]["outcome"], "updated", "{resumed}");
    assert_eq!(session_in(&bare), bare_id);
    let mode = std::fs::metadata(&bare).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // Saved with a byte order mark: still read, the mark kept.
    let (bom_id, bom) = place.start("cursor", "bom");
    let text = std::fs::read_to_string(&bom).unwrap();
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    place.ok(&["resume", &bom_id]);
    let text = std::fs::read_to_string(&bom).unwrap();
    assert!(
        text.starts_with("\u{feff}---\n") && text.contains("- Resumed "),
        "{text}"
    );
    // A byte that is not UTF-8: left alone and said so, never shadowed by a new note.
    let mut bytes = std::fs::read(&bom).unwrap();
    bytes.extend_from_slice(b"\xff broken\n");
    std::fs::write(&bom, &bytes).unwrap();
    let refused = place.ok(&["end", &bom_id]);
    assert_eq!(refused["note"]["outcome"], "refused", "{refused}");
    assert_eq!(std::fs::read(&bom).unwrap(), bytes);
    assert_eq!(notes_in(&folder).len(), 2, "{:?}", notes_in(&folder));
}

#[test]
fn losing_batons_record_of_the_notes_keeps_them_current() {
    let place = Place::new();
    let (id, note) = place.start("claude", "forget");
    std::fs::remove_dir_all(place.dir.join("notes")).unwrap();
    let ended = place.ok(&["end", &id, "--summary", "done"]);
    assert!(ended["note"].get("kept_edits").is_none(), "{ended}");
    let text = std::fs::read_to_string(&note).unwrap();
    assert!(text.contains("status: complete\n"), "{text}");
}
