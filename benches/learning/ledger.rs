//! The ledger project: Python, TypeScript with a palette and a deprecated helper, Go, CI YAML,
//! shell, JSON. The catalogue the learning model was built against.

use crate::catalogue::{Catalogue, Lang, Mistake, Place, Teacher};

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
    files: LEDGER_FILES,
    rules: &[(
        ".claude/claude-auto-review/validators/palette.json",
        PALETTE_RULE,
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
        Lang::Rs
        | Lang::Toml
        | Lang::Java
        | Lang::Kt
        | Lang::Rb
        | Lang::Kube
        | Lang::Docker
        | Lang::Css
        | Lang::C
        | Lang::Swift
        | Lang::Html
        | Lang::Js => &[],
    }
}

/// A rule that rejects a `palette.X` the theme does not define (a project's custom reference rule).
pub const PALETTE_RULE: &str = r#"{"rules": [{"id": "palette", "severity": "error", "scope": "*.ts",
  "ignore": ["palette.ts"],
  "reference": {"pattern": "\\bpalette\\.([A-Za-z_][A-Za-z0-9_]*)",
                "defined_in": "web/src/ui/palette.ts",
                "definition": "\\b([A-Za-z_][A-Za-z0-9_]*)\\s*:\\s*\"",
                "message": "`{match}` is not defined in {defined_in}"}}]}"#;

pub const LEDGER_FILES: &[(&str, &str)] = &[
    (
        "pyproject.toml",
        "[project]\nname = \"ledger\"\nversion = \"0.1.0\"\ndependencies = []\n",
    ),
    ("app/__init__.py", ""),
    (
        "app/settings.py",
        "settings = {\"cache_host\": \"localhost\", \"db_url\": \"sqlite://\"}\n",
    ),
    (
        "app/csvutil.py",
        "import csv\n\n\ndef read_rows(path):\n    with open(path, newline=\"\") as handle:\n        return list(csv.reader(handle))\n",
    ),
    (
        "app/storage.py",
        "import tarfile\n\n\ndef unpack(path, dest):\n    with tarfile.open(path) as tar:\n        tar.extractall(dest, filter=\"data\")\n",
    ),
    (
        "app/cache.py",
        "import pickle\n\n\ndef freeze(value):\n    return pickle.dumps(value)\n",
    ),
    (
        "web/package.json",
        "{\n  \"name\": \"ledger-web\",\n  \"private\": true,\n  \"dependencies\": {\"left-pad\": \"1.3.0\"}\n}\n",
    ),
    (
        "web/tsconfig.json",
        "{\n  \"compilerOptions\": {\"strict\": true, \"module\": \"esnext\"}\n}\n",
    ),
    (
        "web/src/ui/palette.ts",
        "export const palette = {\n  textPrimary: \"#111\",\n  textMuted: \"#666\",\n  mutedTextShadow: \"#999\",\n  accent: \"#0a7\",\n};\n",
    ),
    (
        "web/src/lib/money.ts",
        "/** @deprecated drops the currency; use format. */\nexport function formatLegacy(amount: number): string {\n  return amount.toFixed(2);\n}\n\nexport function format(amount: number, currency: string): string {\n  return `${amount.toFixed(2)} ${currency}`;\n}\n",
    ),
    (
        "web/src/lib/debounce.ts",
        "export function debounce<T extends unknown[]>(fn: (...args: T) => void, ms: number) {\n  let timer: ReturnType<typeof setTimeout> | undefined;\n  return (...args: T) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), ms);\n  };\n}\n",
    ),
    ("svc/go.mod", "module example.com/ledger/svc\n\ngo 1.22\n"),
    (
        "svc/main.go",
        "package main\n\nimport (\n\t\"io\"\n\t\"net/http\"\n)\n\nfunc fetch(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n\treturn io.ReadAll(resp.Body)\n}\n\nfunc main() {}\n",
    ),
    (
        ".github/workflows/ci.yml",
        "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/cache@v4\n        with:\n          path: ~/.cache\n          key: deps\n      - run: make test\n",
    ),
    (
        "scripts/release.sh",
        "#!/usr/bin/env bash\nset -euo pipefail\necho \"releasing\"\n",
    ),
    (
        "config/app.json",
        "{\n  \"name\": \"ledger\",\n  \"retries\": 3\n}\n",
    ),
    (".gitignore", "node_modules/\n__pycache__/\n"),
];
