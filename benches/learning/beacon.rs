//! The beacon project: firmware in C for a battery-powered BLE sensor tag (Zephyr), its iOS
//! companion app in Swift, a status website in HTML and plain JavaScript (ES modules, no bundler),
//! and shell scripts that flash the tags. Written after quarry, in file kinds none of the other
//! catalogues has (C, Swift, HTML, JavaScript) and in shapes they lack: a banned C call and a
//! renamed Kconfig symbol (the project's own lint and reference rule), a deprecated API whose fix
//! also renames the variable (one shape carries a comment naming the fix), a `try!`, markup from
//! a device name, a link without `rel` (the fix only adds an attribute), a CDN version a person
//! bumps, a flag of a flashing tool, and an import of a relative file that does not exist.

use crate::catalogue::{Catalogue, Lang, Mistake, Place, Teacher};

const MISTAKES: &[Mistake] = &[
    Mistake {
        id: "c-banned-strcpy",
        lang: Lang::C,
        teacher: Teacher::Checker,
        place: Place::Body,
        bad: &[
            "\tstrcpy(cfg->name, {v});",
            "\tstrcpy(adv_{v}.name, cfg->name);",
        ],
        good: &[
            "\tstrlcpy(cfg->name, {v}, sizeof(cfg->name));",
            "\tstrlcpy(adv_{v}.name, cfg->name, sizeof(adv_{v}.name));",
        ],
        wrong_fix: None,
        names: "`strcpy`",
        rate: 20,
    },
    Mistake {
        id: "c-renamed-kconfig",
        lang: Lang::C,
        teacher: Teacher::Checker,
        place: Place::Body,
        bad: &[
            "\tif (IS_ENABLED(CONFIG_BEACON_LOW_POWER)) total += {n};",
            "\tint {v} = IS_ENABLED(CONFIG_BEACON_LOW_POWER) ? {n} : 0;",
        ],
        good: &[
            "\tif (IS_ENABLED(CONFIG_BEACON_LOW_POWER_MODE)) total += {n};",
            "\tint {v} = IS_ENABLED(CONFIG_BEACON_LOW_POWER_MODE) ? {n} : 0;",
        ],
        wrong_fix: None,
        names: "`CONFIG_BEACON_LOW_POWER`",
        rate: 16,
    },
    Mistake {
        id: "c-delayed-work",
        lang: Lang::C,
        teacher: Teacher::Review {
            severity: "P2",
            title: "A delayed-work call removed in Zephyr 3",
            wrong_output: "the release build (CONFIG_DEPRECATED=n) fails to link with undefined reference to k_delayed_work_submit instead of scheduling the sample in 30 s",
            suggestion: "declare the work with K_WORK_DELAYABLE_DEFINE and call k_work_schedule",
        },
        place: Place::Body,
        bad: &[
            "\tk_delayed_work_submit(&{v}_work, K_MSEC({n}));",
            "\tk_delayed_work_submit(&{v}_work, K_SECONDS({n})); /* TODO: k_work_schedule after the Zephyr 3 bump */",
        ],
        good: &[
            "\tk_work_schedule(&{v}_dwork, K_MSEC({n}));",
            "\tk_work_schedule(&{v}_dwork, K_SECONDS({n}));",
        ],
        wrong_fix: None,
        names: "k_delayed_work_submit",
        rate: 20,
    },
    Mistake {
        id: "swift-try-decode",
        lang: Lang::Swift,
        teacher: Teacher::Review {
            severity: "P1",
            title: "A BLE packet decoded with try!",
            wrong_output: "a truncated 19-byte notification crashes the app with Fatal error: 'try!' expression unexpectedly raised an error, instead of skipping that reading",
            suggestion: "decode with try? and skip the packet when it fails",
        },
        place: Place::Body,
        bad: &[
            "        let {v} = try! JSONDecoder().decode(Reading.self, from: data)",
            "        total += try! JSONDecoder().decode([Reading].self, from: data).count",
        ],
        good: &[
            "        guard let {v} = try? JSONDecoder().decode(Reading.self, from: data) else { return total }",
            "        total += (try? JSONDecoder().decode([Reading].self, from: data))?.count ?? 0",
        ],
        wrong_fix: None,
        names: "try! JSONDecoder",
        rate: 22,
    },
    Mistake {
        id: "swift-scan-every-device",
        lang: Lang::Swift,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "        central.scanForPeripherals(withServices: nil, options: nil)",
            "        if !central.isScanning { central.scanForPeripherals(withServices: nil) }",
        ],
        good: &[
            "        central.scanForPeripherals(withServices: [BeaconService.uuid], options: nil)",
            "        if !central.isScanning { central.scanForPeripherals(withServices: [BeaconService.uuid]) }",
        ],
        wrong_fix: None,
        names: "withServices: nil",
        rate: 20,
    },
    Mistake {
        id: "html-blank-without-rel",
        lang: Lang::Html,
        teacher: Teacher::Review {
            severity: "P2",
            title: "A new tab opened with access to the dashboard",
            wrong_output: "in the app's WKWebView on iOS 12 tags still in the field, the opened vendor page gets window.opener and can navigate the dashboard to a copy of the login page instead of being isolated",
            suggestion: "add rel=\"noopener noreferrer\"",
        },
        place: Place::Body,
        bad: &[
            "    <a href=\"https://docs.beacon.example/{v}\" target=\"_blank\">Manual</a>",
            "    <a class=\"ext\" target=\"_blank\" href=\"https://status.beacon.example/tags/{n}\">Status</a>",
        ],
        good: &[
            "    <a href=\"https://docs.beacon.example/{v}\" target=\"_blank\" rel=\"noopener noreferrer\">Manual</a>",
            "    <a class=\"ext\" target=\"_blank\" rel=\"noopener noreferrer\" href=\"https://status.beacon.example/tags/{n}\">Status</a>",
        ],
        wrong_fix: None,
        names: "noopener",
        rate: 30,
    },
    Mistake {
        id: "html-old-chart-cdn",
        lang: Lang::Html,
        teacher: Teacher::Person,
        place: Place::Header,
        bad: &[
            "  <script src=\"https://cdn.jsdelivr.net/npm/chart.js@2.9.4/dist/Chart.min.js\"></script>",
        ],
        good: &[
            "  <script src=\"https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.min.js\"></script>",
        ],
        wrong_fix: None,
        names: "chart.js@2.9.4",
        rate: 35,
    },
    Mistake {
        id: "js-device-name-as-html",
        lang: Lang::Js,
        teacher: Teacher::Review {
            severity: "P1",
            title: "A device name inserted as HTML",
            wrong_output: "a tag advertising the name <img src=x onerror=alert(document.cookie)> runs that script in every visitor's dashboard instead of showing the name as text",
            suggestion: "set textContent, not innerHTML",
        },
        place: Place::Body,
        bad: &[
            "  list.querySelector(\"#{v}\").innerHTML = tag.name;",
            "  document.getElementById(\"{v}\").innerHTML = `${tag.name} · ${formatTemp(tag.celsius)}`;",
        ],
        good: &[
            "  list.querySelector(\"#{v}\").textContent = tag.name;",
            "  document.getElementById(\"{v}\").textContent = `${tag.name} · ${formatTemp(tag.celsius)}`;",
        ],
        wrong_fix: None,
        names: "innerHTML",
        rate: 25,
    },
    Mistake {
        id: "js-missing-relative-module",
        lang: Lang::Js,
        teacher: Teacher::Checker,
        place: Place::Header,
        bad: &["import { debounce } from \"./debounce.js\";"],
        good: &["import { debounce } from \"./lib/timing.js\";"],
        wrong_fix: Some("import { debounce } from \"./util/debounce.js\";"),
        names: "./debounce.js",
        rate: 22,
    },
    Mistake {
        id: "sh-chip-erase",
        lang: Lang::Sh,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "nrfjprog --program build/{v}/zephyr.hex --chiperase --verify",
            "nrfjprog -f NRF52 --program \"$HEX_{n}\" --chiperase --reset",
        ],
        good: &[
            "nrfjprog --program build/{v}/zephyr.hex --sectorerase --verify",
            "nrfjprog -f NRF52 --program \"$HEX_{n}\" --sectorerase --reset",
        ],
        wrong_fix: None,
        names: "--chiperase",
        rate: 35,
    },
    Mistake {
        id: "js-unclosed-arrow-body",
        lang: Lang::Js,
        teacher: Teacher::Slip,
        place: Place::Body,
        bad: &["  tags.forEach((tag) => { total += tag.rssi + {n}; );"],
        good: &["  tags.forEach((tag) => { total += tag.rssi + {n}; });"],
        wrong_fix: None,
        names: "\u{0}",
        rate: 12,
    },
];

/// Correct lines that share tokens with a mistake: the right form, a comment or string naming the
/// mistake, a longer name holding it, and lines one token away from it (`k_work_submit` for
/// immediate work, `try!` on a literal pattern, `innerHTML` cleared or set from a constant,
/// `options: nil`, a link that opens in the same tab).
fn look_alikes(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::C => &[
            "\t/* strcpy() is banned here: names come over the air, unbounded */",
            "\tstrlcpy(cfg->name, {v}, sizeof(cfg->name));",
            "\tsnprintf(cfg->name, sizeof(cfg->name), \"beacon-%02x\", {n});",
            "\tconst char *{v} = \"use strlcpy, never strcpy\";",
            "\tk_work_submit(&{v}_work);",
            "\tk_work_schedule(&{v}_dwork, K_MSEC({n}));",
            "\t/* k_delayed_work_submit() was removed in Zephyr 3.0 */",
            "\tif (IS_ENABLED(CONFIG_BEACON_LOW_POWER_MODE)) total += {n};",
            "\tint {v} = IS_ENABLED(CONFIG_BT_EXT_ADV) ? {n} : 0;",
        ],
        Lang::Swift => &[
            "        let {v} = try! NSRegularExpression(pattern: \"^[0-9A-F]{12}$\")",
            "        guard let {v} = try? JSONDecoder().decode(Reading.self, from: data) else { return total }",
            "        // try! JSONDecoder().decode crashes on a truncated packet",
            "        central.scanForPeripherals(withServices: [BeaconService.uuid], options: nil)",
            "        central.connect(peripheral, options: nil)",
            "        let {v}: [CBUUID]? = nil",
        ],
        Lang::Html => &[
            "    <a href=\"https://github.com/beacon/firmware/releases\" target=\"_blank\" rel=\"noopener noreferrer\">Releases</a>",
            "    <a href=\"tags.html#{v}\" target=\"_self\">Tag {n}</a>",
            "    <a href=\"/export/{v}.csv\" download>Export CSV</a>",
            "    <!-- chart.js@2.9.4 drew no axes on Safari 17; the page loads 4.4.1 -->",
            "    <p class=\"note\">Charts need chart.js 4.4.1 (2.9.4 is not supported).</p>",
        ],
        Lang::Js => &[
            "  list.innerHTML = \"\";",
            "  row.innerHTML = ROW_TEMPLATE;",
            "  list.querySelector(\"#{v}\").textContent = tag.name;",
            "  // innerHTML = tag.name would run markup from a device name",
            "  const {v} = \"set textContent, never innerHTML\";",
            "  if (tag.battery == null) total += {n};",
        ],
        Lang::Sh => &[
            "# --chiperase also wipes the factory calibration; use --sectorerase",
            "nrfjprog --program build/app/zephyr.hex --sectorerase --verify",
            "nrfjprog --recover  # only for a locked chip; calibration is restored by tools/calibrate.sh",
            "echo \"flashing {v} without --chiperase\"",
        ],
        Lang::Py
        | Lang::Ts
        | Lang::Go
        | Lang::Yml
        | Lang::Json
        | Lang::Rs
        | Lang::Toml
        | Lang::Java
        | Lang::Kt
        | Lang::Rb
        | Lang::Kube
        | Lang::Docker
        | Lang::Css => &[],
    }
}

/// The project's lint (its banned.h): a coded finding per banned string call outside comments.
const BANNED_RULE: &str = r#"{"rules": [{"id": "banned-calls", "severity": "error", "scope": "*.c",
  "command": {"argv": ["sh", "tools/lint/banned.sh", "{file}"], "timeout_seconds": 10}}]}"#;

const BANNED_SCRIPT: &str = r#"#!/bin/sh
# Names from the air are unbounded: BN001 for each strcpy, strcat or sprintf outside a comment.
awk -v file="$1" '
  /^[[:space:]]*(\/\/|\/\*|\*)/ { next }
  match($0, /(^|[^A-Za-z0-9_])(strcpy|strcat|sprintf)\(/) {
    call = substr($0, RSTART, RLENGTH - 1)
    sub(/^[^A-Za-z0-9_]/, "", call)
    printf "%s:%d:%d: BN001 `%s` is banned (unbounded); use `strlcpy` or `snprintf`\n", file, NR, RSTART, call
    bad = 1
  }
  END { exit bad }
' "$1"
"#;

/// The project's rule: a `CONFIG_BEACON_*` symbol must be declared in the firmware's Kconfig.
const KCONFIG_RULE: &str = r#"{"rules": [{"id": "kconfig-symbols", "severity": "error", "scope": "*.c",
  "reference": {"pattern": "\\bCONFIG_(BEACON_[A-Z0-9_]+)",
                "defined_in": "firmware/Kconfig",
                "definition": "(?m)^config (BEACON_[A-Z0-9_]+)",
                "message": "`{match}` is not declared in {defined_in} (an undeclared symbol is always 0)"}}]}"#;

const FILES: &[(&str, &str)] = &[
    (
        "firmware/Kconfig",
        "menu \"Beacon\"\n\nconfig BEACON_LOW_POWER_MODE\n\tbool \"Sleep the radio between samples\"\n\tdefault y\n\nconfig BEACON_SAMPLE_INTERVAL_S\n\tint \"Seconds between samples\"\n\tdefault 30\n\nendmenu\n\nsource \"Kconfig.zephyr\"\n",
    ),
    (
        "firmware/include/beacon.h",
        "#ifndef BEACON_H\n#define BEACON_H\n\n#include <stddef.h>\n\nstruct beacon_cfg {\n\tchar name[32];\n\tint interval_s;\n};\n\nstruct beacon_adv {\n\tchar name[32];\n};\n\n#endif\n",
    ),
    (
        "firmware/src/main.c",
        "#include <string.h>\n#include <zephyr/kernel.h>\n#include \"beacon.h\"\n\nstatic struct beacon_cfg cfg;\n\nstatic void sample_handler(struct k_work *work)\n{\n\t(void)work;\n}\n\nK_WORK_DELAYABLE_DEFINE(sample_dwork, sample_handler);\nK_WORK_DEFINE(adv_work, sample_handler);\n\nint main(void)\n{\n\tstrlcpy(cfg.name, CONFIG_BT_DEVICE_NAME, sizeof(cfg.name));\n\tk_work_submit(&adv_work);\n\tif (IS_ENABLED(CONFIG_BEACON_LOW_POWER_MODE)) {\n\t\tk_work_schedule(&sample_dwork, K_SECONDS(CONFIG_BEACON_SAMPLE_INTERVAL_S));\n\t}\n\treturn 0;\n}\n",
    ),
    ("tools/lint/banned.sh", BANNED_SCRIPT),
    (
        "ios/Beacon/Scanner.swift",
        "import CoreBluetooth\nimport Foundation\n\nenum BeaconService {\n    static let uuid = CBUUID(string: \"7E57B3C0-0001-4B1E-A0C0-BEAC0B1E0001\")\n}\n\nstruct Reading: Decodable {\n    let celsius: Double\n    let battery: Int\n}\n\nfinal class Scanner {\n    static let macPattern = try! NSRegularExpression(pattern: \"^[0-9A-F]{12}$\")\n\n    func start(_ central: CBCentralManager) {\n        central.scanForPeripherals(withServices: [BeaconService.uuid], options: nil)\n    }\n\n    func reading(from data: Data) -> Reading? {\n        guard let reading = try? JSONDecoder().decode(Reading.self, from: data) else { return nil }\n        return reading\n    }\n}\n",
    ),
    (
        "web/index.html",
        "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  <title>Beacon</title>\n  <script src=\"https://cdn.jsdelivr.net/npm/chart.js@4.4.1/dist/chart.umd.min.js\"></script>\n  <script type=\"module\" src=\"js/tags.js\"></script>\n</head>\n<body>\n  <ul id=\"tags\"></ul>\n  <a href=\"https://github.com/beacon/firmware/releases\" target=\"_blank\" rel=\"noopener noreferrer\">Releases</a>\n</body>\n</html>\n",
    ),
    (
        "web/js/api.js",
        "export async function fetchTags() {\n  const response = await fetch(\"/api/tags\");\n  if (!response.ok) throw new Error(`tags: ${response.status}`);\n  return response.json();\n}\n",
    ),
    (
        "web/js/units.js",
        "export function formatTemp(celsius) {\n  return `${celsius.toFixed(1)} °C`;\n}\n",
    ),
    (
        "web/js/lib/timing.js",
        "export function debounce(fn, ms) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), ms);\n  };\n}\n",
    ),
    (
        "web/js/tags.js",
        "import { fetchTags } from \"./api.js\";\nimport { formatTemp } from \"./units.js\";\n\nconst ROW_TEMPLATE = \"<span class=name></span><span class=temp></span>\";\n\nexport async function render(list) {\n  list.innerHTML = \"\";\n  for (const tag of await fetchTags()) {\n    const row = document.createElement(\"li\");\n    row.innerHTML = ROW_TEMPLATE;\n    row.querySelector(\".name\").textContent = tag.name;\n    row.querySelector(\".temp\").textContent = formatTemp(tag.celsius);\n    list.append(row);\n  }\n}\n",
    ),
    (
        "scripts/flash.sh",
        "#!/usr/bin/env bash\nset -euo pipefail\nHEX=\"${1:?usage: flash.sh HEX}\"\n# --sectorerase keeps the factory calibration page\nnrfjprog --program \"$HEX\" --sectorerase --verify\nnrfjprog --reset\n",
    ),
    (".gitignore", "build/\n"),
];

pub static BEACON: Catalogue = Catalogue {
    name: "beacon",
    mistakes: MISTAKES,
    look_alikes,
    shares: &[
        (Lang::C, 30),
        (Lang::Swift, 22),
        (Lang::Html, 15),
        (Lang::Js, 20),
        (Lang::Sh, 13),
    ],
    files: FILES,
    rules: &[
        (
            ".claude/claude-auto-review/validators/banned-calls.json",
            BANNED_RULE,
        ),
        (
            ".claude/claude-auto-review/validators/kconfig-symbols.json",
            KCONFIG_RULE,
        ),
    ],
};
