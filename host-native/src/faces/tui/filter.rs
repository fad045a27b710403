//! The History tab's filter line: `project:app agent:codex branch:main since:2026-11-01
//! until:2026-11-30 status:complete`, read into the filters the index (conversations) and the
//! ledger's list (work sessions) take. Each side's own rule reads the values; this only
//! splits the line and says which words a side cannot use. A work session's project is its
//! name, matched whole; a conversation's is its folder, matched in part.

use baton_core::Error;
use baton_core::commands::ListParams;
use baton_core::transcripts::filters::{DayWindow, TranscriptFilter};

/// The words a filter line may hold.
pub(crate) const KEYS: [&str; 6] = ["project", "agent", "branch", "since", "until", "status"];

/// A filter line, split.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub(crate) project: Option<String>,
    pub(crate) agent: Option<String>,
    pub(crate) branch: Option<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
    pub(crate) status: Option<String>,
}

impl Filter {
    /// Reads `line`; a word that is not `key:value` with a known key is refused, naming them.
    pub(crate) fn read(line: &str) -> Result<Filter, Error> {
        let mut filter = Filter::default();
        for word in line.split_whitespace() {
            let Some((key, value)) = word.split_once(':').filter(|(_, v)| !v.is_empty()) else {
                return Err(Error::invalid(
                    "filter",
                    format!(
                        "`{word}` is not key:value; the keys are {}",
                        KEYS.join(", ")
                    ),
                ));
            };
            let slot = match key.to_ascii_lowercase().as_str() {
                "project" => &mut filter.project,
                "agent" | "provider" => &mut filter.agent,
                "branch" => &mut filter.branch,
                "since" | "from" => &mut filter.since,
                "until" | "to" => &mut filter.until,
                "status" => &mut filter.status,
                _ => {
                    return Err(Error::invalid(
                        "filter",
                        format!("`{key}` is no filter; the keys are {}", KEYS.join(", ")),
                    ));
                }
            };
            *slot = Some(value.to_owned());
        }
        Ok(filter)
    }

    /// The filter of kept conversations, and the words they cannot use.
    pub(crate) fn conversations(&self) -> (TranscriptFilter, Vec<&'static str>) {
        let unused = [("branch", &self.branch), ("status", &self.status)]
            .into_iter()
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| k)
            .collect();
        (
            TranscriptFilter {
                provider: self.agent.clone(),
                project: self.project.clone(),
                days: DayWindow {
                    since: self.since.clone(),
                    until: self.until.clone(),
                },
            },
            unused,
        )
    }

    /// The list of work sessions (ended ones too), and the words it cannot use; a `since` day
    /// is read in this machine's zone, as for conversations.
    pub(crate) fn sessions(&self) -> Result<(ListParams, Vec<&'static str>), Error> {
        let unused = if self.until.is_some() {
            vec!["until"]
        } else {
            Vec::new()
        };
        Ok((
            ListParams {
                project: self.project.clone(),
                agent: self.agent.clone(),
                status: self.status.clone(),
                include_ended: true,
                branch: self.branch.clone(),
                since: self
                    .since
                    .as_deref()
                    .map(crate::os::zone::day_or_time)
                    .transpose()?,
            },
            unused,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_split_into_its_filters_and_a_bad_word_is_named() {
        let f =
            Filter::read("project:app  agent:codex branch:main since:2026-11-01 status:complete")
                .unwrap();
        assert_eq!(f.project.as_deref(), Some("app"));
        let (list, unused) = f.sessions().unwrap();
        assert_eq!(
            (
                list.branch.as_deref(),
                list.status.as_deref(),
                list.include_ended
            ),
            (Some("main"), Some("complete"), true)
        );
        assert!(unused.is_empty());
        let (conversations, unused) = f.conversations();
        assert_eq!(conversations.provider.as_deref(), Some("codex"));
        assert_eq!(unused, ["branch", "status"]);
        assert_eq!(Filter::read("").unwrap(), Filter::default());
        let err = Filter::read("app").unwrap_err();
        assert!(err.message.contains("key:value"), "{}", err.message);
        let err = Filter::read("colour:red").unwrap_err();
        assert!(err.message.contains("project, agent"), "{}", err.message);
    }
}
