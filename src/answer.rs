//! What car says to the agent after a hook, before it is shaped for one agent's protocol (the
//! job of that agent's file under `agents/`): block with a reason, context for the model, a line
//! for the human.

/// What a hook wants to say, before it is shaped for an agent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Answer {
    /// Make the agent look: a validator error after an edit, or a blocked stop.
    pub(crate) block_reason: Option<String>,
    /// Warnings the model should read (lesson hits) when nothing blocks.
    pub(crate) additional_context: Option<String>,
    /// A short line for the human.
    pub(crate) system_message: Option<String>,
}

impl Answer {
    pub(crate) fn allow() -> Answer {
        Answer::default()
    }

    pub(crate) fn block(reason: impl Into<String>) -> Answer {
        Answer {
            block_reason: Some(reason.into()),
            ..Answer::default()
        }
    }

    /// Fail open: the hook could not do its job; say so, never block.
    pub(crate) fn fail_open(message: impl Into<String>) -> Answer {
        Answer {
            system_message: Some(format!("car: {}", message.into())),
            ..Answer::default()
        }
    }

    /// The answer with every text [`crate::output::printable`]: what an agent shows a person or
    /// hands its model carries no escape sequence from a file name, a finding or a lesson.
    pub(crate) fn printable(&self) -> Answer {
        let printable = |text: &Option<String>| {
            text.as_deref()
                .map(|text| crate::output::printable(text).into_owned())
        };
        Answer {
            block_reason: printable(&self.block_reason),
            additional_context: printable(&self.additional_context),
            system_message: printable(&self.system_message),
        }
    }

    /// Adds a line to the human message.
    pub(crate) fn with_system_line(mut self, line: impl AsRef<str>) -> Answer {
        let line = line.as_ref();
        if line.is_empty() {
            return self;
        }
        self.system_message = Some(match self.system_message.take() {
            Some(existing) => format!("{existing}\n{line}"),
            None => line.to_string(),
        });
        self
    }
}
