//! An Aider history as conversations, one per run: the person's prompts, the replies, and
//! Aider's notes between them as the system's (an edit it applied as a tool call); the first
//! prompt that is no command as the title.

use super::{Line, announced_model, classify, project_of, report, report_tokens, run_id};
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role};
use crate::transcripts::{Provider, Timestamp};
use serde::{Deserialize, Serialize};

/// What kind of block is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Pending {
    /// The person's prompt.
    Prompt,
    /// A reply.
    Reply,
    /// Aider's notes.
    Notes,
}

/// Where an [`AiderReader`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct AiderState {
    /// The run being read (its conversation's id).
    pub run: Option<String>,
    /// Its start, in milliseconds (as written, read as UTC).
    pub start: Option<i64>,
    /// The model the run announced.
    pub model: Option<String>,
    /// The run's first prompt, for its title.
    pub first_prompt: Option<String>,
    /// Messages of the run so far.
    pub messages: u64,
    /// The last message's id.
    pub previous: Option<String>,
    /// The block being read, and its lines so far.
    pub pending: Option<(Pending, Vec<String>)>,
}

/// Builds Aider conversations from lines fed one at a time.
#[derive(Debug)]
pub struct AiderReader {
    project: Option<String>,
    state: AiderState,
    conversation: Option<Conversation>,
    parsed: Parsed,
}

impl AiderReader {
    /// The reader of the history at `path`, going on from `state`.
    pub fn new(path: &str, state: Option<AiderState>) -> AiderReader {
        let project = project_of(path);
        let state = state.unwrap_or_default();
        let conversation = state.run.as_ref().map(|id| {
            let mut conversation = Conversation::new(Provider::Aider, id.clone());
            conversation.project = project.clone();
            conversation.first_prompt = state.first_prompt.clone();
            conversation
        });
        AiderReader {
            project,
            state,
            conversation,
            parsed: Parsed::default(),
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> AiderState {
        let mut state = self.state.clone();
        state.first_prompt = self
            .conversation
            .as_ref()
            .and_then(|c| c.first_prompt.clone());
        state
    }

    fn begin(&mut self, start: Option<Timestamp>) {
        self.flush();
        self.end_run();
        self.open(start);
    }

    /// Opens a run (nothing read before it is ended here: see [`AiderReader::begin`]).
    fn open(&mut self, start: Option<Timestamp>) {
        let id = run_id(start, self.project.as_deref());
        let mut conversation = Conversation::new(Provider::Aider, id.clone());
        conversation.project = self.project.clone();
        conversation.started_at = start;
        self.conversation = Some(conversation);
        self.state = AiderState {
            run: Some(id),
            start: start.map(Timestamp::millis),
            ..AiderState::default()
        };
    }

    fn end_run(&mut self) {
        // A run with no prompt and no reply (`aider --commit`, launched and quit) is none.
        if let Some(mut conversation) = self.conversation.take()
            && conversation
                .messages
                .iter()
                .any(|m| matches!(m.role, Role::User | Role::Assistant))
        {
            // One line of messages: the last read (a block still open included) is its leaf.
            conversation.active_leaf = conversation.messages.last().map(|m| m.id.clone());
            conversation.seal();
            self.parsed.conversations.push(conversation);
        }
    }

    /// Emits the block being read as a message (kept in the state too: the next read goes on
    /// with it, and the message it gives then replaces this one).
    fn emit(&mut self, done: bool) {
        // A block read to its end is taken; one still open stays pending.
        let pending = if done {
            self.state.pending.take()
        } else {
            self.state.pending.clone()
        };
        let Some((kind, lines)) = pending else {
            return;
        };
        if self.conversation.is_none() {
            // Lines before any run's heading (a history whose start was cut off): a run with
            // no start of its own.
            self.open(None);
            if !done {
                self.state.pending = Some((kind, lines.clone()));
            }
        }
        let run = self.state.run.clone().unwrap_or_default();
        let id = format!("{run}:{}", self.state.messages);
        let text = lines.join("\n").trim_end().to_owned();
        let mut blocks = Vec::new();
        let mut tokens = None;
        let role = match kind {
            Pending::Prompt => {
                let conversation = self.conversation.as_mut();
                if let Some(conversation) = conversation
                    && conversation.first_prompt.is_none()
                    && !text.starts_with(['/', '!'])
                {
                    conversation.first_prompt = prompt_title(&text);
                }
                Role::User
            }
            Pending::Reply => Role::Assistant,
            Pending::Notes => {
                for (n, line) in lines.iter().enumerate() {
                    if let Some(file) = line.strip_prefix("Applied edit to ") {
                        blocks.push(Block::ToolCall {
                            id: format!("{id}:{n}"),
                            name: "edit".to_owned(),
                            input: serde_json::json!({ "path": file.trim() }).to_string(),
                        });
                    }
                    if let Some(model) = announced_model(line) {
                        self.state.model = Some(model.to_owned());
                    }
                    if let Some(report) = report(line) {
                        tokens = Some(report);
                    }
                }
                Role::System
            }
        };
        blocks.insert(0, Block::Text { text });
        let at = (self.state.messages == 0)
            .then(|| self.state.start.map(Timestamp::from_millis))
            .flatten();
        let model = (role == Role::Assistant)
            .then(|| self.state.model.clone())
            .flatten();
        let previous = self.state.previous.clone();
        if let Some(conversation) = self.conversation.as_mut() {
            // A message read again (the block went on after the last read) replaces its copy.
            conversation.messages.retain(|m| m.id != id);
            if let Some(report) = tokens
                && let Some(reply) = conversation
                    .messages
                    .iter_mut()
                    .rev()
                    .find(|m| m.role == Role::Assistant)
            {
                reply.tokens = Some(report_tokens(report));
            }
            conversation.messages.push(Message {
                id: id.clone(),
                parent: previous,
                role,
                at,
                blocks,
                model,
                side_chain: false,
                tokens: None,
            });
        }
        if done {
            self.state.messages += 1;
            self.state.previous = Some(id);
        }
    }

    fn flush(&mut self) {
        self.emit(true);
    }

    fn add(&mut self, kind: Pending, line: &str) {
        match &mut self.state.pending {
            Some((pending, lines)) if *pending == kind => lines.push(line.to_owned()),
            _ => {
                self.flush();
                self.state.pending = Some((kind, vec![line.to_owned()]));
            }
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.parsed.stats.lines += 1;
        let line = String::from_utf8_lossy(line);
        match classify(&line) {
            Line::Run(start) => self.begin(Some(start)),
            Line::Prompt(text) => self.add(Pending::Prompt, text),
            Line::Note(text) => self.add(Pending::Notes, text),
            Line::Other(text) => {
                let pending = self.state.pending.as_ref().map(|(kind, _)| *kind);
                let blank = text.trim().is_empty();
                if pending == Some(Pending::Notes) && text.starts_with("Cost: $") {
                    self.add(Pending::Notes, text.trim_end());
                } else if pending == Some(Pending::Reply) || !blank {
                    // A reply goes on over its blank lines; a blank never starts one.
                    self.add(Pending::Reply, text);
                }
            }
        }
    }

    /// The conversations read (the block still open given as read so far).
    pub fn finish(mut self) -> Parsed {
        self.emit(false);
        let keep = self.state.clone();
        self.end_run();
        self.state = keep;
        self.parsed
    }
}

impl crate::transcripts::lines::LineReader for AiderReader {
    fn push_line(&mut self, line: &[u8]) {
        AiderReader::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HISTORY: &str = "
# aider chat started at 2026-08-20 09:00:00

> /usr/bin/aider --model sonnet  
> Aider v0.86.2  
> Main model: anthropic/claude-sonnet-4-5 with diff edit format, infinite output  
> Git repo: .git with 12 files  

#### /add app.py  
> Added app.py to the chat  

#### fix the login bug  
#### and add a test  

The bug is in `login`:

#### Steps
> quoted

app.py
```python
<<<<<<< SEARCH
=======
>>>>>>> REPLACE
```

> Tokens: 2.3k sent, 120 received. Cost: $0.01 message, $0.01 session.  
> Applied edit to app.py  
> Commit 1a2b3c4 fix: login  

# aider chat started at 2026-08-21 10:00:00

#### second run  
";

    #[test]
    fn runs_prompts_replies_and_notes() {
        let mut reader = AiderReader::new("/w/app/.aider.chat.history.md", None);
        for line in HISTORY.lines() {
            reader.push_line(line.as_bytes());
        }
        let parsed = reader.finish();
        assert_eq!(parsed.conversations.len(), 2);
        let first = &parsed.conversations[0];
        assert_eq!(first.first_prompt.as_deref(), Some("fix the login bug"));
        assert_eq!(first.project.as_deref(), Some("app"));
        let roles: Vec<Role> = first.messages.iter().map(|m| m.role).collect();
        use Role::*;
        assert_eq!(roles, [System, User, System, User, Assistant, System]);
        let reply = &first.messages[4];
        assert!(
            matches!(&reply.blocks[0], Block::Text { text } if text.contains("#### Steps") && text.contains("> quoted"))
        );
        assert_eq!(reply.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
        assert_eq!(reply.tokens.map(|t| t.output_tokens), Some(120));
        assert_eq!(first.tool_counts(), (1, 0));
    }

    #[test]
    fn read_in_two_goes_the_open_block_goes_on() {
        let lines: Vec<&str> = HISTORY.lines().collect();
        let cut = lines
            .iter()
            .position(|l| l.starts_with("#### Steps"))
            .unwrap();
        let mut first = AiderReader::new("/w/app/.aider.chat.history.md", None);
        for line in &lines[..cut] {
            first.push_line(line.as_bytes());
        }
        let state: AiderState =
            serde_json::from_str(&serde_json::to_string(&first.state()).unwrap()).unwrap();
        let early = first.finish();
        let mut later = AiderReader::new("/w/app/.aider.chat.history.md", Some(state));
        for line in &lines[cut..] {
            later.push_line(line.as_bytes());
        }
        let later = later.finish();
        let early_reply = early.conversations[0].messages.last().unwrap();
        let later_reply = &later.conversations[0].messages[0];
        assert_eq!(
            early_reply.id, later_reply.id,
            "the reply read again replaces its copy"
        );
        assert!(
            matches!(&later_reply.blocks[0], Block::Text { text } if text.starts_with("The bug"))
        );
    }

    #[test]
    fn a_history_cut_before_its_first_heading_is_one_run_with_no_start() {
        // It once recursed until the stack ran out: the lines before any heading opened a run
        // that flushed them again.
        let cut = "#### hello there  \n\nThe reply.\n\n# aider chat started at 2026-08-21 10:00:00\n\n#### next  \n";
        let mut whole = AiderReader::new("/w/app/.aider.chat.history.md", None);
        for line in cut.lines() {
            whole.push_line(line.as_bytes());
        }
        let parsed = whole.finish();
        assert_eq!(parsed.conversations.len(), 2);
        let first = &parsed.conversations[0];
        assert_eq!(first.started_at, None);
        assert_eq!(first.first_prompt.as_deref(), Some("hello there"));
        let roles: Vec<Role> = first.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant]);
        assert_eq!(
            first.active_leaf.as_deref(),
            Some(first.messages[1].id.as_str()),
            "the reply still open is on the one branch"
        );
        // Read one line at a time, finishing after each (as a followed file is).
        let mut state = None;
        for line in cut.lines().take(2) {
            let mut reader = AiderReader::new("/w/app/.aider.chat.history.md", state.take());
            reader.push_line(line.as_bytes());
            state = Some(reader.state());
            let parsed = reader.finish();
            assert_eq!(parsed.conversations.len(), 1);
        }
    }
}
