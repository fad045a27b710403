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

    /// The live sessions now.
    pub(crate) fn live(&self, now: Timestamp) -> Result<crate::ops::live::Live, Error> {
        crate::ops::live::live(&self.ledger, now)
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
