//! The simulated project's recurring mistakes and the correct look-alikes the agent also writes.
//!
//! Each mistake is taught by one of car's signals: a checker error (a module or package that does
//! not exist, a reference the project's rule rejects), a blocking review finding the agent fixes,
//! a person's correction of what the agent wrote, or nothing (a syntax slip the checker catches
//! every time). Lines are templates: `{v}` is a fresh name per instance (so no two instances share
//! their particulars), `{r}` one of a few receivers, `{n}` a number. Shapes vary per instance (a
//! list of templates), so a trigger that keeps one line's names never matches the next.
//!
//! The catalogues are the benchmark's own: their names and shapes were chosen for these projects,
//! in several languages, not taken from any issue's examples. `ledger` is the one the learning
//! model was built against; `harbor` was written afterwards, in other
//! languages and shapes, to check the model on mistakes it was not tuned on; `quarry` a third,
//! later still, in file kinds neither of them has (Java, Kotlin, Ruby, Kubernetes manifests, a
//! Dockerfile, CSS); `beacon` a fourth, in file kinds none of the three has (C firmware, a Swift
//! app, HTML and plain JavaScript, with shell scripts).

/// A file kind of the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    Py,
    Ts,
    Go,
    Yml,
    Sh,
    Json,
    Rs,
    Toml,
    Java,
    Kt,
    Rb,
    /// Kubernetes manifests (YAML that is not CI).
    Kube,
    Docker,
    Css,
    C,
    Swift,
    Html,
    /// Plain JavaScript (ES modules in the browser, no bundler).
    Js,
}

/// One simulated project: its files, its rules, the agent's mistakes and look-alikes in it, and
/// how the agent's edits spread over its kinds of file.
pub struct Catalogue {
    pub name: &'static str,
    pub mistakes: &'static [Mistake],
    pub look_alikes: fn(Lang) -> &'static [&'static str],
    /// Each kind's share of the agent's edits, in percent (they add up to 100).
    pub shares: &'static [(Lang, u64)],
    /// The project before the agent: path and content.
    pub files: &'static [(&'static str, &'static str)],
    /// The project's own checker rules (car's validator files): path and content.
    pub rules: &'static [(&'static str, &'static str)],
}

/// What teaches car the mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Teacher {
    /// A checker rejects the line (a missing module or package, a project rule).
    Checker,
    /// The reviewer reports it (P1 or P2) and the agent fixes it.
    Review {
        severity: &'static str,
        title: &'static str,
        /// A concrete wrong result (car lets only such findings block).
        wrong_output: &'static str,
        suggestion: &'static str,
    },
    /// Only a person catches it: they correct the line by hand.
    Person,
    /// A syntax slip: the checker catches it every time; nothing to learn.
    Slip,
}

/// Where in a file the mistake's line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Among the imports (new files only).
    Header,
    /// In the body.
    Body,
    /// The body's last line (a JSON entry's trailing comma).
    Last,
}

pub struct Mistake {
    pub id: &'static str,
    pub lang: Lang,
    pub teacher: Teacher,
    pub place: Place,
    /// Shapes of the mistake; `good[i]` is how the agent fixes `bad[i]`.
    pub bad: &'static [&'static str],
    pub good: &'static [&'static str],
    /// A first fix that is still wrong (the checker rejects it too), tried half the time.
    pub wrong_fix: Option<&'static str>,
    /// Text that, in anything car said to the agent this session, makes it avoid the mistake.
    pub names: &'static str,
    /// Chance per edit of its kind that the agent makes it, in percent.
    pub rate: u64,
}

impl Mistake {
    pub fn is_learnable(&self) -> bool {
        self.teacher != Teacher::Slip
    }
}

/// Receivers for `{r}`.
pub const RECEIVERS: &[&str] = &["tar", "archive", "bundle"];
