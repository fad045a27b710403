//! OpenCode (and Kilo CLI) sessions as their SQLite database holds them: the tables of
//! OpenCode's migrations (`packages/opencode/migration/20260127222353_familiar_lady_ursula` and
//! the `session_usage` columns of `20260510033149`), rows written as its projector writes them
//! (`session/projectors.ts`: ids in columns, the rest in `data`), message and part JSON as
//! `session/message-v2.ts` defines it. Read in forks of `anomalyco/opencode` (`4ccbe71`, a
//! copy of upstream of 2026-05-28; `v1.2.10`) and of Kilo CLI 7.1.12 (`1e8e07f`).
//!
//! The traps: a response of two steps whose message keeps only the last step's tokens while its
//! cost sums both (the `step-finish` parts are the usage); input without the cache; output
//! without the reasoning on the newer versions (with `tokens.total`) and with it on older ones
//! and Kilo; a cost of 0 for a model the agent could not price; a task tool's child session
//! (`parent_id`) whose usage belongs to its parent; a response still streaming (tokens at 0,
//! no step finished); a session still titled with the placeholder; parts imported from the old
//! file tree (every `time_created` the import's); a row whose JSON is cut.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, title_of};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use std::path::Path;

/// The models: two the price table knows, and one it does not (OpenCode's own gateway).
pub const MODELS: [&str; 3] = ["claude-sonnet-4-5", "gpt-5", "big-pickle"];

/// OpenCode's tables, as its first migration makes them (with the later session columns on
/// the newer layout).
fn schema(newer: bool) -> String {
    let mut sql = String::from(
        "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text,
           `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL,
           `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);
         CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
           `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
           CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`)
           REFERENCES `session`(`id`) ON DELETE CASCADE);
         CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL,
           `session_id` text NOT NULL, `time_created` integer NOT NULL,
           `time_updated` integer NOT NULL, `data` text NOT NULL,
           CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`)
           REFERENCES `message`(`id`) ON DELETE CASCADE);
         CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL,
           `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL,
           `title` text NOT NULL, `version` text NOT NULL, `share_url` text,
           `summary_additions` integer, `summary_deletions` integer, `summary_files` integer,
           `summary_diffs` text, `revert` text, `permission` text,
           `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
           `time_compacting` integer, `time_archived` integer,
           CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`)
           REFERENCES `project`(`id`) ON DELETE CASCADE);
         CREATE INDEX `message_session_idx` ON `message` (`session_id`);
         CREATE INDEX `part_message_idx` ON `part` (`message_id`);
         CREATE INDEX `part_session_idx` ON `part` (`session_id`);",
    );
    if newer {
        sql.push_str(
            "ALTER TABLE `session` ADD `cost` real DEFAULT 0 NOT NULL;
             ALTER TABLE `session` ADD `tokens_input` integer DEFAULT 0 NOT NULL;
             ALTER TABLE `session` ADD `tokens_output` integer DEFAULT 0 NOT NULL;",
        );
    }
    sql
}

/// An id as OpenCode makes them: a prefix, 12 hex digits of the time, 14 random characters.
fn id(rng: &mut Rng, prefix: &str, at: i64) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let hex = (at as u64).wrapping_mul(4096) & 0xffff_ffff_ffff;
    let tail: String = (0..14)
        .map(|_| ALPHABET[rng.below(62) as usize] as char)
        .collect();
    format!("{prefix}_{hex:012x}{tail}")
}

/// The database being written, and what it must give.
#[derive(Debug)]
pub struct Writer {
    db: Connection,
    rng: Rng,
    /// Kilo CLI's layout and counting (output with the reasoning, its version).
    kilo: bool,
    truth: Truth,
    at: i64,
}

/// One session being written.
struct Session {
    id: String,
    root: String,
    cwd: String,
    tool_calls: usize,
    /// Parts imported from the old file tree: all made at the import's time.
    imported: bool,
}

impl Writer {
    /// A new database at `path` (WAL, as the agent opens it).
    pub fn create(path: &Path, seed: u64, kilo: bool) -> Writer {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let db = Connection::open(path).unwrap();
        db.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .unwrap();
        db.execute_batch(&schema(!kilo)).unwrap();
        Writer {
            db,
            rng: Rng::new(seed ^ 0x0c0d),
            kilo,
            truth: Truth::default(),
            at: START_MILLIS,
        }
    }

    fn tick(&mut self) -> i64 {
        self.at += 400 + self.rng.below(20_000) as i64;
        self.at
    }

    fn session(&mut self, title: &str, cwd: &str, parent: Option<&Session>) -> Session {
        let at = self.tick();
        let id = id(&mut self.rng, "ses", i64::MAX - at);
        let version = if self.kilo { "7.1.12" } else { "1.14.3" };
        self.db
            .execute(
                "INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes)
                 VALUES ('global', '/', ?1, ?1, '[]')",
                [at],
            )
            .unwrap();
        self.db
            .execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,
                     time_created, time_updated)
                 VALUES (?1, 'global', ?2, 'calm-river', ?3, ?4, ?5, ?6, ?6)",
                params![id, parent.map(|p| &p.id), cwd, title, version, at],
            )
            .unwrap();
        Session {
            root: parent.map_or(id.clone(), |p| p.root.clone()),
            id,
            cwd: cwd.to_owned(),
            tool_calls: 0,
            imported: false,
        }
    }

    fn message(&mut self, session: &Session, data: &Value) -> String {
        let at = data["time"]["created"].as_i64().unwrap_or(self.at);
        let id = id(&mut self.rng, "msg", at);
        self.db
            .execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, session.id, at, at + 50, data.to_string()],
            )
            .unwrap();
        id
    }

    fn part(&mut self, session: &Session, message: &str, data: &Value) {
        let at = self.tick();
        let id = id(&mut self.rng, "prt", at);
        let made = if session.imported { START_MILLIS } else { at };
        self.db
            .execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, message, session.id, made, at, data.to_string()],
            )
            .unwrap();
    }

    fn prompt(&mut self, session: &Session, text: &str) {
        let at = self.tick();
        let model = MODELS[0];
        let message = self.message(
            session,
            &json!({"role": "user", "time": {"created": at}, "agent": "build",
                "model": {"providerID": "anthropic", "modelID": model}}),
        );
        self.part(
            session,
            &message,
            &json!({"type": "text", "text": text, "time": {"start": at, "end": at}}),
        );
    }

    /// One step's tokens: billed in the truth, written as OpenCode counts them.
    fn step_tokens(&mut self, at: i64, model: &str, newer: bool) -> (Value, f64) {
        let input = 200 + self.rng.below(3_000);
        let read = self.rng.below(40_000);
        let write = self.rng.below(2_000);
        let answer = 20 + self.rng.below(800);
        let reasoning = self.rng.below(300);
        let cost = if model == MODELS[2] {
            0.0
        } else {
            (input + answer + reasoning) as f64 * 1e-5
        };
        self.truth.bill(
            at,
            model,
            Tokens {
                input,
                output: answer + reasoning,
                cache_read: read,
                cache_write: write,
                reasoning,
            },
        );
        let tokens = if newer {
            json!({"total": input + answer + reasoning + read + write, "input": input,
                "output": answer, "reasoning": reasoning, "cache": {"read": read, "write": write}})
        } else {
            json!({"input": input, "output": answer + reasoning, "reasoning": reasoning,
                "cache": {"read": read, "write": write}})
        };
        (tokens, cost)
    }

    /// A response of `steps` steps (each with a tool call but the last), its message keeping
    /// only the last step's tokens and the sum of the costs.
    fn response(&mut self, session: &mut Session, model: &str, steps: usize, said: &str) {
        let newer = !self.kilo && self.rng.below(2) == 0;
        let at = self.tick();
        let mut parts = Vec::new();
        let (mut last, mut cost) = (json!({}), 0.0);
        for step in 0..steps {
            parts.push(json!({"type": "step-start", "snapshot": "4b825dc6"}));
            if self.rng.below(2) == 0 {
                parts.push(json!({"type": "reasoning", "text": "Thinking it through.",
                    "time": {"start": at, "end": at}}));
            }
            if step + 1 < steps {
                session.tool_calls += 1;
                let failed = self.rng.below(4) == 0;
                let call = format!("toolu_{}", self.rng.below(1 << 40));
                let state = if failed {
                    json!({"status": "error", "input": {"command": "cargo test"},
                        "error": "exit status 101", "time": {"start": at, "end": at + 9}})
                } else {
                    json!({"status": "completed", "input": {"command": "ls"}, "output": "src\n",
                        "title": "ls", "metadata": {"exit": 0},
                        "time": {"start": at, "end": at + 9}})
                };
                parts.push(json!({"type": "tool", "callID": call, "tool": "bash",
                    "state": state}));
            } else {
                parts.push(json!({"type": "text", "text": said,
                    "time": {"start": at, "end": at}}));
            }
            let (tokens, step_cost) = self.step_tokens(at, model, newer);
            cost += step_cost;
            parts.push(json!({"type": "step-finish", "reason": "tool-calls",
                "snapshot": "4b825dc6", "cost": step_cost, "tokens": tokens}));
            last = tokens;
        }
        let message = self.message(
            session,
            &json!({"role": "assistant", "time": {"created": at, "completed": at + 3_000},
                "parentID": "msg_x", "modelID": model, "providerID": "anthropic",
                "mode": "build", "agent": "build",
                "path": {"cwd": session.cwd, "root": session.cwd},
                "cost": cost, "tokens": last, "finish": "stop"}),
        );
        for part in parts {
            self.part(session, &message, &part);
        }
    }

    /// A response that calls the task tool (which starts a child session).
    fn task_call(&mut self, session: &mut Session, model: &str) {
        session.tool_calls += 1;
        let at = self.tick();
        let (tokens, cost) = self.step_tokens(at, model, false);
        let message = self.message(
            session,
            &json!({"role": "assistant", "time": {"created": at, "completed": at + 900},
                "modelID": model, "providerID": "anthropic", "agent": "build",
                "path": {"cwd": session.cwd, "root": session.cwd},
                "cost": cost, "tokens": tokens, "finish": "tool-calls"}),
        );
        self.part(session, &message, &json!({"type": "step-start"}));
        self.part(
            session,
            &message,
            &json!({"type": "tool", "callID": "toolu_task", "tool": "task",
                "state": {"status": "completed", "input": {"description": "Look around",
                    "prompt": "Look around the repository", "subagent_type": "general"},
                    "output": "Found it.", "title": "Look around",
                    "metadata": {"sessionId": "ses_child"}, "time": {"start": at, "end": at + 900}}}),
        );
        self.part(
            session,
            &message,
            &json!({"type": "step-finish", "reason": "tool-calls", "cost": cost, "tokens": tokens}),
        );
    }

    /// Writes `count` sessions, in one transaction.
    pub fn sessions(&mut self, count: usize) {
        self.db
            .execute_batch("PRAGMA foreign_keys=OFF; BEGIN")
            .unwrap();
        for n in 0..count {
            let cwd = format!("/home/dev/app{}", n % 3);
            let prompt = if n == 1 {
                format!("Find where {PLANTED} is configured")
            } else {
                format!("Fix the failing build, part {n}\nwith details")
            };
            // The first keeps the placeholder title: its first prompt names it.
            let title = if n == 0 {
                "New session - 2026-08-20T09:00:00.000Z".to_owned()
            } else {
                format!("Build fix {n}")
            };
            let mut session = self.session(&title, &cwd, None);
            session.imported = n == 2;
            self.prompt(&session, &prompt);
            let model = MODELS[n % MODELS.len()];
            self.response(&mut session, model, 2, "Done: the build passes.");
            if n % 2 == 1 {
                // A task tool's child session: its usage and tool calls belong here.
                self.task_call(&mut session, model);
                let mut child = self.session(
                    &format!("Look around (@general subagent) {n}"),
                    &cwd,
                    Some(&session),
                );
                self.prompt(&child, "Look around the repository");
                self.response(&mut child, MODELS[1], 2, "Found it.");
                session.tool_calls += child.tool_calls;
            }
            if n == 3 {
                // Still streaming: no step finished, tokens at 0.
                let at = self.tick();
                let message = self.message(
                    &session,
                    &json!({"role": "assistant", "time": {"created": at}, "modelID": model,
                        "providerID": "anthropic", "cost": 0,
                        "tokens": {"input": 0, "output": 0, "reasoning": 0,
                            "cache": {"read": 0, "write": 0}}}),
                );
                self.part(&session, &message, &json!({"type": "step-start"}));
                self.part(&session, &message, &json!({"type": "text", "text": ""}));
            }
            let title = if n == 0 { title_of(&prompt) } else { title };
            self.truth.conversations.insert(
                session.root.clone(),
                Listed {
                    id: session.root.clone(),
                    title,
                    tool_calls: session.tool_calls,
                },
            );
        }
        // A row cut mid-write by something else: its JSON does not read (and its message is
        // gone: the foreign keys are off for this writer).
        self.db
            .execute(
                "INSERT OR IGNORE INTO part (id, message_id, session_id, time_created, time_updated, data)
                 VALUES ('prt_cut', 'msg_none', 'ses_none', 1, 1, '{\"type\":\"te')",
                [],
            )
            .unwrap();
        self.db.execute_batch("COMMIT").unwrap();
    }

    /// The database's connection (a test keeps writing through it).
    pub fn connection(&self) -> &Connection {
        &self.db
    }

    /// Writes one more session (a prompt holding `word`, and a one-step answer), as the agent
    /// does while a mirror follows it; answers its id.
    pub fn one_more(&mut self, word: &str) -> String {
        let mut session = self.session(&format!("About {word}"), "/home/dev/later", None);
        self.prompt(&session, &format!("Tell me about {word}"));
        self.response(&mut session, MODELS[0], 1, "Here it is.");
        self.truth.conversations.insert(
            session.id.clone(),
            Listed {
                id: session.id.clone(),
                title: format!("About {word}"),
                tool_calls: 0,
            },
        );
        session.id
    }

    /// The truth so far.
    pub fn truth(&self) -> &Truth {
        &self.truth
    }

    /// Ends the writing: the truth, with the bytes the files hold.
    pub fn finish(self, path: &Path) -> Truth {
        let mut truth = self.truth;
        drop(self.db);
        truth.bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        truth
    }
}

/// Writes an OpenCode (or, with `kilo`, a Kilo CLI) data folder with `sessions` sessions
/// under `root` (`opencode.db` or `kilo.db`); answers its truth.
pub fn tree(root: &Path, sessions: usize, seed: u64, kilo: bool) -> Truth {
    let path = root.join(if kilo { "kilo.db" } else { "opencode.db" });
    let _ = std::fs::remove_file(&path);
    let mut writer = Writer::create(&path, seed, kilo);
    writer.sessions(sessions);
    writer.finish(&path)
}

/// Writes the sessions of the database at `db` as OpenCode 1.1 kept them, a tree of files
/// under `storage` (`session/<project>/<session>.json`, `message/<session>/<message>.json`,
/// `part/<message>/<part>.json`: each row's JSON with its ids put back, as
/// `packages/opencode/src/storage/json-migration.ts` takes them out when it moves a tree into
/// the database). Sessions in `orphans` are written to the tree only (the database forgets
/// them): the ones a migration left behind. Answers the files written.
pub fn tree_from_database(db: &Path, storage: &Path, orphans: &[&str]) -> usize {
    let connection = Connection::open(db).unwrap();
    let mut written = 0;
    let mut write = |path: std::path::PathBuf, bytes: &[u8]| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        written += 1;
    };
    let pretty = |value: &Value| serde_json::to_vec_pretty(value).unwrap();
    let mut sessions = connection
        .prepare(
            "SELECT id, project_id, parent_id, title, directory, version, time_created, time_updated
             FROM session",
        )
        .unwrap();
    let rows = sessions
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, i64>(7)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (id, project, parent, title, directory, version, created, updated) = row.unwrap();
        let mut session = json!({"id": id, "projectID": project, "title": title,
            "directory": directory, "version": version,
            "time": {"created": created, "updated": updated}});
        if let Some(parent) = parent {
            session["parentID"] = json!(parent);
        }
        write(
            storage
                .join("session")
                .join(&project)
                .join(format!("{id}.json")),
            &pretty(&session),
        );
    }
    let mut messages = connection
        .prepare("SELECT id, session_id, data FROM message")
        .unwrap();
    let rows = messages
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (id, session, data) = row.unwrap();
        let path = storage
            .join("message")
            .join(&session)
            .join(format!("{id}.json"));
        match serde_json::from_str::<Value>(&data) {
            Ok(mut value) => {
                value["id"] = json!(id);
                value["sessionID"] = json!(session);
                write(path, &pretty(&value));
            }
            // A row whose JSON is cut: a file as cut.
            Err(_) => write(path, data.as_bytes()),
        }
    }
    let mut parts = connection
        .prepare("SELECT id, message_id, session_id, data FROM part")
        .unwrap();
    let rows = parts
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (id, message, session, data) = row.unwrap();
        let path = storage
            .join("part")
            .join(&message)
            .join(format!("{id}.json"));
        match serde_json::from_str::<Value>(&data) {
            Ok(mut value) => {
                value["id"] = json!(id);
                value["messageID"] = json!(message);
                value["sessionID"] = json!(session);
                write(path, &pretty(&value));
            }
            Err(_) => write(path, data.as_bytes()),
        }
    }
    // The tree's other files, which are no sessions: passed over.
    write(
        storage.join("project/global.json"),
        &pretty(&json!({"id": "global", "worktree": "/"})),
    );
    drop((sessions, messages, parts));
    for orphan in orphans {
        for sql in [
            "DELETE FROM part WHERE session_id = ?1",
            "DELETE FROM message WHERE session_id = ?1",
            "DELETE FROM session WHERE id = ?1",
        ] {
            connection.execute(sql, params![orphan]).unwrap();
        }
    }
    written
}
