//! The events that make up nearly all of a long session log (edits, validations, lesson
//! warnings), read borrowed from the log's text so a cold stop allocates only what the snapshot
//! keeps.

use std::borrow::Cow;

use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::lesson_warning::Warning;
use crate::session::event::Event;

/// The events that make up nearly all of a long session log, as read from it: borrowed from the
/// log's text where it has no escapes ([`crate::session::log`] reads them so).
#[derive(Debug)]
pub(crate) enum Frequent<'a> {
    Edit {
        file: Cow<'a, str>,
        tool: Cow<'a, str>,
        hash: Cow<'a, str>,
        reviewed: bool,
    },
    Validated {
        file: Cow<'a, str>,
        errors: Vec<Diagnostic>,
    },
    Warned {
        file: Cow<'a, str>,
        warnings: Vec<WarningRef<'a>>,
    },
}

impl Frequent<'_> {
    /// The owned event.
    pub(crate) fn into_event(self) -> Event {
        match self {
            Frequent::Edit {
                file,
                tool,
                hash,
                reviewed,
            } => Event::EditTracked {
                file: file.into_owned(),
                tool: tool.into_owned(),
                hash: hash.into_owned(),
                reviewed,
            },
            Frequent::Validated { file, errors } => Event::Validated {
                file: file.into_owned(),
                errors,
            },
            Frequent::Warned { file, warnings } => Event::LessonWarned {
                file: file.into_owned(),
                warnings: warnings.into_iter().map(WarningRef::into_owned).collect(),
            },
        }
    }
}

/// A lesson warning as read from the log, borrowed ([`Warning`] owns its texts).
#[derive(Debug, Deserialize)]
pub(crate) struct WarningRef<'a> {
    #[serde(borrow)]
    pub(crate) lesson_id: Cow<'a, str>,
    pub(crate) weight: u32,
    #[serde(borrow)]
    pub(crate) lesson: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) trigger: Cow<'a, str>,
    #[serde(borrow)]
    pub(crate) file: Cow<'a, str>,
    pub(crate) line: usize,
    #[serde(default, borrow)]
    pub(crate) origin: Option<Cow<'a, str>>,
}

impl WarningRef<'_> {
    pub(super) fn is_same_as(&self, warning: &Warning) -> bool {
        self.lesson_id == warning.lesson_id
            && self.weight == warning.weight
            && self.lesson == warning.lesson
            && self.trigger == warning.trigger
            && self.file == warning.file
            && self.line == warning.line
            && self.origin.as_deref() == warning.origin.as_deref()
    }

    pub(super) fn into_owned(self) -> Warning {
        Warning {
            lesson_id: self.lesson_id.into_owned(),
            weight: self.weight,
            lesson: self.lesson.into_owned(),
            trigger: self.trigger.into_owned(),
            file: self.file.into_owned(),
            line: self.line,
            origin: self.origin.map(Cow::into_owned),
        }
    }
}

impl From<Warning> for WarningRef<'static> {
    fn from(warning: Warning) -> Self {
        WarningRef {
            lesson_id: warning.lesson_id.into(),
            weight: warning.weight,
            lesson: warning.lesson.into(),
            trigger: warning.trigger.into(),
            file: warning.file.into(),
            line: warning.line,
            origin: warning.origin.map(Cow::Owned),
        }
    }
}
