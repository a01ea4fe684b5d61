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
//! model was built against; `harbor` (`catalogue_harbor`) was written afterwards, in other
//! languages and shapes, to check the model on mistakes it was not tuned on.

use std::sync::OnceLock;

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

static ACTIVE: OnceLock<&'static Catalogue> = OnceLock::new();

/// Chooses the catalogue this process runs (once, at its start); `None` for an unknown name.
pub fn choose(name: &str) -> Option<&'static Catalogue> {
    let catalogue: &'static Catalogue = match name {
        "ledger" => &LEDGER,
        "harbor" => &crate::catalogue_harbor::HARBOR,
        _ => return None,
    };
    Some(*ACTIVE.get_or_init(|| catalogue))
}

/// The catalogue this process runs (the ledger project unless another was chosen).
pub fn active() -> &'static Catalogue {
    ACTIVE.get().copied().unwrap_or(&LEDGER)
}

/// The active catalogue's mistakes.
pub fn mistakes() -> &'static [Mistake] {
    active().mistakes
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

const LEDGER_MISTAKES: &[Mistake] = &[
    Mistake {
        id: "py-missing-module",
        lang: Lang::Py,
        teacher: Teacher::Checker,
        place: Place::Header,
        bad: &["from fastcsvkit import read_rows", "import fastcsvkit"],
        good: &["from app.csvutil import read_rows", "import app.csvutil"],
        wrong_fix: None,
        names: "fastcsvkit",
        rate: 22,
    },
    Mistake {
        id: "ts-missing-package",
        lang: Lang::Ts,
        teacher: Teacher::Checker,
        place: Place::Header,
        bad: &["import { debounce } from \"lodash-debounced\";"],
        good: &["import { debounce } from \"./lib/debounce\";"],
        wrong_fix: Some("import { debounce } from \"./debounce\";"),
        names: "lodash-debounced",
        rate: 22,
    },
    Mistake {
        id: "ts-palette-attribute",
        lang: Lang::Ts,
        teacher: Teacher::Checker,
        place: Place::Body,
        bad: &[
            "  const {v} = palette.mutedText;",
            "  const {v} = { color: palette.mutedText, weight: {n} };",
            "  console.log({v}, palette.mutedText);",
        ],
        good: &[
            "  const {v} = palette.textMuted;",
            "  const {v} = { color: palette.textMuted, weight: {n} };",
            "  console.log({v}, palette.textMuted);",
        ],
        wrong_fix: None,
        names: "palette.mutedText",
        rate: 22,
    },
    Mistake {
        id: "py-unsafe-deserialise",
        lang: Lang::Py,
        teacher: Teacher::Review {
            severity: "P1",
            title: "Untrusted bytes deserialised with pickle",
            wrong_output: "a request body b\"cos\\nsystem\\n(S'id'\\ntR.\" runs `id` through os.system instead of raising a parse error",
            suggestion: "parse the body as JSON",
        },
        place: Place::Body,
        bad: &[
            "    {v} = pickle.loads(body)",
            "    return_value_{v} = pickle.loads(request_body)",
        ],
        good: &[
            "    {v} = json.loads(body)",
            "    return_value_{v} = json.loads(request_body)",
        ],
        wrong_fix: None,
        names: "pickle.loads",
        rate: 18,
    },
    Mistake {
        id: "py-archive-traversal",
        lang: Lang::Py,
        teacher: Teacher::Review {
            severity: "P1",
            title: "Archive members can write outside the target folder",
            wrong_output: "unpack(\"evil.tar\") with a member ../../.bashrc overwrites \"/home/user/.bashrc\" instead of raising OutsideDestinationError",
            suggestion: "pass filter=\"data\" to extractall",
        },
        place: Place::Body,
        bad: &["    {r}.extractall({v})", "    {r}.extractall(path={v})"],
        good: &[
            "    {r}.extractall({v}, filter=\"data\")",
            "    {r}.extractall(path={v}, filter=\"data\")",
        ],
        wrong_fix: None,
        names: "extractall",
        rate: 18,
    },
    Mistake {
        id: "go-deprecated-ioutil",
        lang: Lang::Go,
        teacher: Teacher::Review {
            severity: "P2",
            title: "io/ioutil is deprecated",
            wrong_output: "staticcheck ./... prints SA1019: ioutil.ReadAll is deprecated and CI fails",
            suggestion: "use io.ReadAll",
        },
        place: Place::Body,
        bad: &[
            "\t{v}, err := ioutil.ReadAll(resp.Body)",
            "\tif _, err := ioutil.ReadAll({v}); err != nil {\n\t\treturn nil, err\n\t}",
        ],
        good: &[
            "\t{v}, err := io.ReadAll(resp.Body)",
            "\tif _, err := io.ReadAll({v}); err != nil {\n\t\treturn nil, err\n\t}",
        ],
        wrong_fix: None,
        names: "ioutil.ReadAll",
        rate: 40,
    },
    Mistake {
        id: "ts-deprecated-helper",
        lang: Lang::Ts,
        teacher: Teacher::Review {
            severity: "P2",
            title: "formatLegacy drops the currency",
            wrong_output: "render(12.5) returns \"12.50\" instead of \"12.50 EUR\"",
            suggestion: "call money.format with the currency",
        },
        place: Place::Body,
        bad: &[
            "  const {v} = money.formatLegacy(total);",
            "  return money.formatLegacy(total * {n});",
        ],
        good: &[
            "  const {v} = money.format(total, \"EUR\");",
            "  return money.format(total * {n}, \"EUR\");",
        ],
        wrong_fix: None,
        names: "money.formatLegacy",
        rate: 20,
    },
    Mistake {
        id: "yml-old-action",
        lang: Lang::Yml,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &["      - uses: actions/cache@v2"],
        good: &["      - uses: actions/cache@v4"],
        wrong_fix: None,
        names: "actions/cache@v2",
        rate: 45,
    },
    Mistake {
        id: "py-renamed-setting",
        lang: Lang::Py,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "    {v} = settings[\"redis_host\"]",
            "    connect(settings[\"redis_host\"], {n})",
        ],
        good: &[
            "    {v} = settings[\"cache_host\"]",
            "    connect(settings[\"cache_host\"], {n})",
        ],
        wrong_fix: None,
        names: "redis_host",
        rate: 18,
    },
    Mistake {
        id: "sh-unclosed-quote",
        lang: Lang::Sh,
        teacher: Teacher::Slip,
        place: Place::Body,
        bad: &["echo \"deploying {v}"],
        good: &["echo \"deploying {v}\""],
        wrong_fix: None,
        names: "\u{0}",
        rate: 25,
    },
    Mistake {
        id: "json-trailing-comma",
        lang: Lang::Json,
        teacher: Teacher::Slip,
        place: Place::Last,
        bad: &["  \"enabled_{v}\": true,"],
        good: &["  \"enabled_{v}\": true"],
        wrong_fix: None,
        names: "\u{0}",
        rate: 25,
    },
];

/// The ledger project: Python, TypeScript with a palette and a deprecated helper, Go, CI YAML,
/// shell, JSON.
pub static LEDGER: Catalogue = Catalogue {
    name: "ledger",
    mistakes: LEDGER_MISTAKES,
    look_alikes: ledger_look_alikes,
    shares: &[
        (Lang::Py, 30),
        (Lang::Ts, 25),
        (Lang::Go, 12),
        (Lang::Yml, 10),
        (Lang::Sh, 12),
        (Lang::Json, 11),
    ],
    files: crate::world::LEDGER_FILES,
    rules: &[(
        ".claude/claude-auto-review/validators/palette.json",
        crate::world::PALETTE_RULE,
    )],
};

/// Correct lines that resemble a mistake: the safe form, a comment or a string naming the
/// mistake, a longer name holding it. A lesson that fires on one of these is a false warning.
fn ledger_look_alikes(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Py => &[
            "    # fastcsvkit is not a real package; app.csvutil reads the rows",
            "    {v} = json.loads(body)",
            "    {r}.extractall({v}, filter=\"data\")",
            "    {r}.extractall(path={v}, filter=\"tar\")",
            "    allow_pickle_loads_{v} = False",
            "    {v} = \"pickle.loads is never called on request bodies\"",
            "    {v} = settings[\"cache_host\"]",
            "    redis_host_{v} = settings.get(\"cache_host\")",
            "    {v} = pickle.dumps(total)",
        ],
        Lang::Ts => &[
            "  // lodash-debounced does not exist; ./lib/debounce is ours",
            "  const {v} = palette.textMuted;",
            "  const mutedTextStyle{n} = { color: palette.textMuted };",
            "  const {v} = money.format(total, \"EUR\");",
            "  const formatLegacyNote{n} = \"money.formatLegacy is deprecated\";",
            "  const {v} = palette.mutedTextShadow;",
        ],
        Lang::Go => &[
            "\t// ioutil.ReadAll is deprecated since Go 1.16; io.ReadAll replaces it",
            "\t{v}, err := io.ReadAll(resp.Body)",
            "\t_ = ioutilCompat{n}",
        ],
        Lang::Yml => &[
            "      - uses: actions/cache@v4",
            "      # actions/cache@v2 is end-of-life; v4 is current",
            "      - uses: actions/setup-node@v4",
        ],
        Lang::Sh => &["echo \"deploying {v}\"", "printf '%s\\n' \"{v}\""],
        Lang::Json => &["  \"note_{v}\": \"no trailing commas here,\","],
        Lang::Rs | Lang::Toml => &[],
    }
}

/// Receivers for `{r}`.
pub const RECEIVERS: &[&str] = &["tar", "archive", "bundle"];
