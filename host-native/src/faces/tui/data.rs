//! What the terminal UI reads, each through the host operation every other face asks: the
//! live sessions (`ops::live`), attention (the core's command), pause and unpause as a person,
//! the kept conversations and their search (`ops::mirror::query`), a conversation rebuilt, and
//! usage by day from the index.

use crate::ops::mirror::query::{ConversationPage, ConversationRow, Filters, HitPage};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::analyzer::ConversationView;
use baton_core::commands::{Request, Response};
use std::path::PathBuf;

/// Where the UI reads from.
pub(crate) struct Data {
    pub(crate) ledger: Ledger,
    pub(crate) index: PathBuf,
}

fn person() -> crate::ops::engine::Acting {
    crate::ops::engine::Acting {
        actor: None,
        person: None,
        caller: baton_core::commands::Caller::Person,
    }
}

impl Data {
    fn connection(&self) -> Result<rusqlite::Connection, Error> {
        crate::ops::mirror::open_for_query(&self.index, false, None)
    }

    /// The live sessions now, not yet priced (the prices read the index: see
    /// [`crate::ops::live::price`], run off the drawing thread).
    pub(crate) fn live(&self) -> Result<crate::ops::live::Live, Error> {
        crate::ops::live::sessions(&self.ledger)
    }

    /// The open attention items.
    pub(crate) fn attention(
        &self,
    ) -> Result<Vec<baton_core::lifecycle::workspace::AttentionItem>, Error> {
        if !self.ledger.dir().is_dir() {
            return Ok(Vec::new());
        }
        match crate::ops::engine::run(&self.ledger, &Request::Attention, None)? {
            Response::Attention(answer) => Ok(answer.items),
            _ => Ok(Vec::new()),
        }
    }

    /// Runs `request` as the person at the terminal (pause, unpause, attention done).
    pub(crate) fn act(&self, request: Request) -> Result<Response, Error> {
        crate::ops::command::run_now(&self.ledger, request, &person())
    }

    /// The work sessions `params` lists (ended ones too when it says so), latest activity
    /// first.
    pub(crate) fn sessions(
        &self,
        params: baton_core::commands::ListParams,
    ) -> Result<Vec<baton_core::ledger::session::Session>, Error> {
        if !self.ledger.dir().is_dir() {
            return Ok(Vec::new());
        }
        match self.act(Request::List(params))? {
            Response::List(list) => {
                let mut sessions = list.sessions;
                sessions.sort_by_key(|s| std::cmp::Reverse(s.last_event_at));
                Ok(sessions)
            }
            _ => Ok(Vec::new()),
        }
    }

    /// Work session `id` as `baton show` tells it (`width` columns wide), and how to resume
    /// its agent's session.
    pub(crate) fn show(
        &self,
        id: &str,
        width: u16,
    ) -> Result<(String, Option<crate::ops::mirror::restore::Resume>), Error> {
        let request = Request::Show(baton_core::commands::ShowParams {
            session_id: id.to_owned(),
        });
        let answered =
            crate::ops::command::run(&self.ledger, &self.index, request, &person(), None);
        let response = answered.result?;
        let zone = crate::os::zone::resolve(None)?;
        let reader = crate::faces::present::Reader {
            style: crate::faces::table::Style {
                colour: false,
                width: Some(usize::from(width)),
            },
            now: crate::os::system::now()?,
            zone: &zone,
        };
        let human = crate::faces::present::human(&response, &reader);
        let mut text = human.strip_prefix("[ok] ").unwrap_or(&human).to_owned();
        text.push_str(&crate::faces::present::show_extras(&answered.extras));
        let resume = answered
            .extras
            .resume
            .and_then(|v| serde_json::from_value(v).ok());
        Ok((text, resume))
    }

    /// How to resume conversation `row`, or why it cannot be.
    pub(crate) fn resume(
        &self,
        row: &ConversationRow,
    ) -> Result<Option<crate::ops::mirror::restore::Resume>, Error> {
        crate::ops::mirror::restore::resume_of(&self.connection()?, &self.index, row)
    }

    /// A page of kept conversations, newest first.
    pub(crate) fn history(&self, filters: &Filters, limit: i64) -> Result<ConversationPage, Error> {
        if !self.index.is_file() {
            return Ok(ConversationPage {
                total: 0,
                conversations: Vec::new(),
            });
        }
        crate::ops::mirror::query::list(&self.connection()?, &self.index, filters, limit, 0)
    }

    /// The best hits of `query`.
    pub(crate) fn search(&self, query: &str, filters: &Filters) -> Result<HitPage, Error> {
        let connection = self.connection()?;
        let fields = crate::ops::mirror::query::fields_named(None)?;
        crate::ops::mirror::query::search(
            &connection,
            &self.index,
            query,
            &fields,
            filters,
            baton_core::transcripts::search::Order::asked(None)?,
            50,
            120,
        )
    }

    /// Usage from the index grouped by `group`, from `since` on.
    pub(crate) fn usage(
        &self,
        group: baton_core::transcripts::usage::GroupBy,
        since: Option<Timestamp>,
    ) -> Result<Option<baton_core::transcripts::usage::UsageReport>, Error> {
        if !self.index.is_file() {
            return Ok(None);
        }
        let mut options =
            crate::ops::usage::UsageOptions::everything(group, crate::os::zone::resolve(None)?);
        options.since = since;
        crate::ops::mirror::usage::report(&self.connection()?, &self.index, &options).map(Some)
    }

    /// The budgets of `.baton/config.toml` (and the team's) as measured now.
    pub(crate) fn budgets(&self) -> Result<Vec<baton_core::lifecycle::budget::RuleState>, Error> {
        if !self.ledger.dir().is_dir() {
            return Ok(Vec::new());
        }
        let policy = crate::ops::engine::policy(&self.ledger)?;
        Ok(crate::ops::budget::status(&self.ledger, &policy)?
            .map(|b| b.status.rules)
            .unwrap_or_default())
    }

    /// A conversation or work session shared as one HTML file in the current folder, redacted as
    /// `baton share` redacts by default (a new name when the title's is taken): its name and
    /// how many values were left out.
    pub(crate) fn share(
        &self,
        subject: &crate::ops::share::Subject,
    ) -> Result<(String, usize), Error> {
        use crate::ops::share::{Choices, Format};
        let shared = crate::ops::share::gather(Some(&self.ledger), &self.index, subject)?;
        let words = crate::ops::share::configured_words(self.ledger.dir())?;
        let made = crate::ops::share::make(
            shared,
            Choices {
                format: Format::Html,
                profile: baton_core::share::redact::Profile::Share,
                words,
                keep: Vec::new(),
                lock: None,
                now: crate::os::system::now()?,
                made_by: format!("Baton {}", env!("CARGO_PKG_VERSION")),
            },
            None,
        )?;
        let name = crate::ops::share::file_name(&made.title, Format::Html);
        let stem = name.trim_end_matches(".html").to_owned();
        let mut path = std::path::PathBuf::from(&name);
        let mut n = 2;
        while path.exists() {
            path = std::path::PathBuf::from(format!("{stem}-{n}.html"));
            n += 1;
        }
        crate::ops::share::write_new(&path, made.text.as_bytes(), false)?;
        Ok((path.display().to_string(), made.replacements.len()))
    }

    /// Conversation `row`'s session put back where its agent looks (never over a file).
    pub(crate) fn restore(
        &self,
        row: &ConversationRow,
    ) -> Result<crate::ops::mirror::restore::Restored, Error> {
        crate::ops::mirror::restore::restore(
            &self.connection()?,
            &self.index,
            &row.provider_id,
            crate::ops::mirror::restore::RestoreOptions {
                force: false,
                allow_masked: false,
            },
        )
    }

    /// Conversation `row`, its active branch, and how to resume it.
    pub(crate) fn open(
        &self,
        row: &ConversationRow,
    ) -> Result<
        (
            ConversationView,
            Option<crate::ops::mirror::restore::Resume>,
        ),
        Error,
    > {
        let connection = self.connection()?;
        let (analyzer, at) = crate::ops::mirror::query::read_back(&connection, &self.index, row)?;
        let resume = crate::ops::mirror::restore::resume_of(&connection, &self.index, row)
            .ok()
            .flatten();
        Ok((analyzer.view(at, None)?, resume))
    }
}
