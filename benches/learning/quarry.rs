//! The quarry project: a warehouse's stock service in Java, an Android app in Kotlin, Ruby
//! maintenance tasks, Kubernetes manifests, Dockerfiles and CSS. Written after harbor, in file
//! kinds neither ledger nor harbor has, as a third check of the model on mistakes it was not
//! tuned on. Its checker-taught mistakes come from the project's own rules (a reference rule on
//! an enum, a lint script with coded findings): car resolves no Java, Kotlin or Ruby imports.

use crate::catalogue::{Catalogue, Lang, Mistake, Place, Teacher};

const MISTAKES: &[Mistake] = &[
    Mistake {
        id: "java-renamed-error-code",
        lang: Lang::Java,
        teacher: Teacher::Checker,
        place: Place::Body,
        bad: &[
            "    ApiException {v} = new ApiException(ErrorCode.OUT_OF_STOCK, order.sku());",
            "    if (order.available() < {n}) throw new ApiException(ErrorCode.OUT_OF_STOCK, order.sku());",
            "    total += order.fail(ErrorCode.OUT_OF_STOCK).status();",
        ],
        good: &[
            "    ApiException {v} = new ApiException(ErrorCode.STOCK_EXHAUSTED, order.sku());",
            "    if (order.available() < {n}) throw new ApiException(ErrorCode.STOCK_EXHAUSTED, order.sku());",
            "    total += order.fail(ErrorCode.STOCK_EXHAUSTED).status();",
        ],
        wrong_fix: None,
        names: "ErrorCode.OUT_OF_STOCK",
        rate: 20,
    },
    Mistake {
        id: "rb-time-now",
        lang: Lang::Rb,
        teacher: Teacher::Checker,
        place: Place::Body,
        bad: &["  {v} = Time.now - {n} * 60"],
        good: &["  {v} = Time.current - {n} * 60"],
        wrong_fix: Some("  {v} = Time.now.getlocal - {n} * 60"),
        names: "Time.now",
        rate: 22,
    },
    Mistake {
        id: "java-string-identity",
        lang: Lang::Java,
        teacher: Teacher::Review {
            severity: "P1",
            title: "Strings compared with ==",
            wrong_output: "an order whose status was read from the database as \"SHIPPED\" is counted as unshipped: shippedCount() returns 0 instead of 1",
            suggestion: "compare with \"SHIPPED\".equals(order.status())",
        },
        place: Place::Body,
        bad: &[
            "    boolean {v} = order.status() == \"SHIPPED\";",
            "    if (order.status() == \"SHIPPED\") total += {n};",
        ],
        good: &[
            "    boolean {v} = \"SHIPPED\".equals(order.status());",
            "    if (\"SHIPPED\".equals(order.status())) total += {n};",
        ],
        wrong_fix: None,
        names: "== \"SHIPPED\"",
        rate: 18,
    },
    Mistake {
        id: "java-renamed-column-in-sql",
        lang: Lang::Java,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "    String {v} = \"SELECT id, sku FROM stock WHERE qty_on_hand > {n}\";",
            "    total += jdbc.update(\"UPDATE stock SET qty_on_hand = qty_on_hand - {n} WHERE sku = ?\", order.sku());",
        ],
        good: &[
            "    String {v} = \"SELECT id, sku FROM stock WHERE available_qty > {n}\";",
            "    total += jdbc.update(\"UPDATE stock SET available_qty = available_qty - {n} WHERE sku = ?\", order.sku());",
        ],
        wrong_fix: None,
        names: "qty_on_hand",
        rate: 16,
    },
    Mistake {
        id: "kt-global-scope",
        lang: Lang::Kt,
        teacher: Teacher::Review {
            severity: "P2",
            title: "A coroutine in GlobalScope outlives the screen",
            wrong_output: "closing the orders screen during a sync leaves the job running; it then calls render() on the destroyed view and throws IllegalStateException instead of being cancelled",
            suggestion: "launch it in viewModelScope",
        },
        place: Place::Body,
        bad: &[
            "        GlobalScope.launch { repository.sync(count + {n}) }",
            "        val {v} = GlobalScope.launch { repository.refresh() }",
        ],
        good: &[
            "        viewModelScope.launch { repository.sync(count + {n}) }",
            "        val {v} = viewModelScope.launch { repository.refresh() }",
        ],
        wrong_fix: None,
        names: "GlobalScope.launch",
        rate: 25,
    },
    Mistake {
        id: "kt-log-not-timber",
        lang: Lang::Kt,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "        Log.d(TAG, \"synced $count orders\")",
            "        Log.d(TAG, \"order {v} queued after {n} ms\")",
        ],
        good: &[
            "        Timber.d(\"synced $count orders\")",
            "        Timber.d(\"order {v} queued after {n} ms\")",
        ],
        wrong_fix: None,
        names: "Log.d(TAG",
        rate: 22,
    },
    Mistake {
        id: "rb-all-each",
        lang: Lang::Rb,
        teacher: Teacher::Review {
            severity: "P2",
            title: "Every order loaded into memory at once",
            wrong_output: "rake stock:reindex on the 2.4 M production orders is killed by the OOM killer after 9 minutes instead of finishing in batches of 1000",
            suggestion: "iterate with find_each",
        },
        place: Place::Body,
        bad: &[
            "  Order.all.each { |{v}| {v}.reindex! }",
            "  Order.where(state: \"open\").each { |{v}| total += {v}.lines.size }",
        ],
        good: &[
            "  Order.find_each { |{v}| {v}.reindex! }",
            "  Order.where(state: \"open\").find_each { |{v}| total += {v}.lines.size }",
        ],
        wrong_fix: None,
        names: "find_each",
        rate: 20,
    },
    Mistake {
        id: "kube-memory-millibytes",
        lang: Lang::Kube,
        teacher: Teacher::Person,
        place: Place::Body,
        bad: &[
            "        - name: {v}\n          image: registry.example.com/quarry/worker:1.{n}.0\n          resources:\n            limits:\n              memory: 512m",
            "        - name: {v}\n          image: registry.example.com/quarry/indexer:3.{n}.1\n          resources:\n            requests:\n              memory: 512m\n              cpu: 250m",
        ],
        good: &[
            "        - name: {v}\n          image: registry.example.com/quarry/worker:1.{n}.0\n          resources:\n            limits:\n              memory: 512Mi",
            "        - name: {v}\n          image: registry.example.com/quarry/indexer:3.{n}.1\n          resources:\n            requests:\n              memory: 512Mi\n              cpu: 250m",
        ],
        wrong_fix: None,
        names: "memory: 512m",
        rate: 35,
    },
    Mistake {
        id: "css-focus-outline",
        lang: Lang::Css,
        teacher: Teacher::Review {
            severity: "P2",
            title: "The focus ring is removed",
            wrong_output: "tabbing to the Save button shows no focus indicator at all instead of the 2px ring (WCAG 2.4.7 fails)",
            suggestion: "style :focus-visible with the focus ring instead",
        },
        place: Place::Body,
        bad: &[
            ".{v}:focus { outline: none; }",
            ".{v} button:focus { outline: none; }",
        ],
        good: &[
            ".{v}:focus-visible { outline: 2px solid var(--focus-ring); }",
            ".{v} button:focus-visible { outline: 2px solid var(--focus-ring); }",
        ],
        wrong_fix: None,
        names: "outline: none",
        rate: 30,
    },
    Mistake {
        id: "docker-unclosed-exec-form",
        lang: Lang::Docker,
        teacher: Teacher::Slip,
        place: Place::Body,
        bad: &["CMD [\"java\", \"-jar\", \"/srv/quarry/{v}.jar\""],
        good: &["CMD [\"java\", \"-jar\", \"/srv/quarry/{v}.jar\"]"],
        wrong_fix: None,
        names: "\u{0}",
        rate: 30,
    },
];

/// Correct lines that share tokens with a mistake: the right form, a comment or string naming the
/// mistake, a longer name holding it, and lines one token away from it (`cpu: 512m` is correct,
/// `-Xmx512m` too; `outline: none` for `:focus:not(:focus-visible)` keeps the keyboard's ring;
/// `==` on an enum).
fn look_alikes(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Java => &[
            "    // ErrorCode.OUT_OF_STOCK was renamed STOCK_EXHAUSTED in 2.3",
            "    ApiException {v} = new ApiException(ErrorCode.STOCK_EXHAUSTED, order.sku());",
            "    ApiException {v} = new ApiException(ErrorCode.OUT_OF_STOCK_WARNING, order.sku());",
            "    boolean {v} = \"SHIPPED\".equals(order.status());",
            "    boolean {v} = order.priority() == Priority.HIGH;",
            "    boolean {v} = order.lines().size() == {n};",
            "    String {v} = \"SELECT id, sku FROM stock WHERE available_qty > {n}\";",
            "    // qty_on_hand was renamed available_qty by migration V12",
            "    int qtyOnHand{n} = order.available();",
        ],
        Lang::Kt => &[
            "        viewModelScope.launch { repository.sync(count) }",
            "        // GlobalScope.launch would outlive the screen",
            "        val {v} = \"no GlobalScope.launch here\"",
            "        val globalScopeLaunches{n} = 0",
            "        Timber.d(\"synced $count orders\")",
            "        if (Log.isLoggable(TAG, Log.DEBUG)) total += {n}",
            "        Timber.w(\"Log.d(TAG, ...) is not used in this app\")",
        ],
        Lang::Rb => &[
            "  # Time.now ignores config.time_zone; Time.current does not",
            "  {v} = Time.zone.now - {n}",
            "  {v} = Time.current",
            "  Order.find_each { |{v}| {v}.reindex! }",
            "  RETRY_CODES.each { |{v}| total += {v} }",
            "  orders.each { |{v}| total += {v}.lines.size }",
            "  {v} = Order.all.size",
        ],
        Lang::Kube => &[
            "        - name: {v}\n          image: registry.example.com/quarry/worker:1.{n}.0\n          resources:\n            limits:\n              cpu: 512m",
            "        - name: {v}\n          image: registry.example.com/quarry/worker:1.{n}.0\n          resources:\n            limits:\n              memory: 512Mi",
            "        - name: {v}\n          image: registry.example.com/quarry/api:2.{n}.0\n          env:\n            - name: JAVA_TOOL_OPTIONS\n              value: \"-Xmx512m\"",
            "        # memory: 512m would be half a byte; 512Mi is meant",
        ],
        Lang::Docker => &[
            "CMD [\"java\", \"-jar\", \"/srv/quarry/{v}.jar\"]",
            "RUN java -Xshare:dump",
        ],
        Lang::Css => &[
            ".{v}:focus-visible { outline: 2px solid var(--focus-ring); }",
            ".{v}:focus:not(:focus-visible) { outline: none; }",
            ".{v}:focus-within { box-shadow: 0 0 0 2px var(--focus-ring); }",
            "/* .x:focus { outline: none; } hides the ring: style :focus-visible */",
        ],
        Lang::Py
        | Lang::Ts
        | Lang::Go
        | Lang::Yml
        | Lang::Sh
        | Lang::Json
        | Lang::Rs
        | Lang::Toml
        | Lang::C
        | Lang::Swift
        | Lang::Html
        | Lang::Js => &[],
    }
}

/// The project's rule: an `ErrorCode.X` must be a constant of the enum.
const ERROR_CODE_RULE: &str = r#"{"rules": [{"id": "error-codes", "severity": "error", "scope": "*.java",
  "ignore": ["ErrorCode.java"],
  "reference": {"pattern": "\\bErrorCode\\.([A-Z][A-Z0-9_]*)",
                "defined_in": "api/src/main/java/com/quarry/api/ErrorCode.java",
                "definition": "\\b([A-Z][A-Z0-9_]+)\\(\\d+\\)",
                "message": "`{match}` is not a constant of {defined_in}"}}]}"#;

/// The project's own lint (its Rails/TimeZone): a coded finding per `Time.now` outside comments.
const TIME_ZONE_RULE: &str = r#"{"rules": [{"id": "time-zone", "severity": "error", "scope": "*.rb",
  "command": {"argv": ["sh", "tools/lint/time_zone.sh", "{file}"], "timeout_seconds": 10}}]}"#;

const TIME_ZONE_SCRIPT: &str = r#"#!/bin/sh
# Time.now ignores config.time_zone: QR101 for each use outside a comment.
awk -v file="$1" '
  /^[[:space:]]*#/ { next }
  /Time\.now([^A-Za-z0-9_]|$)/ {
    printf "%s:%d:%d: QR101 `Time.now` ignores config.time_zone; use `Time.current`\n", file, NR, index($0, "Time.now")
    bad = 1
  }
  END { exit bad }
' "$1"
"#;

const FILES: &[(&str, &str)] = &[
    (
        "api/src/main/java/com/quarry/api/ErrorCode.java",
        "package com.quarry.api;\n\npublic enum ErrorCode {\n  SKU_UNKNOWN(404),\n  STOCK_EXHAUSTED(409),\n  OUT_OF_STOCK_WARNING(299),\n  RESERVATION_EXPIRED(410);\n\n  private final int status;\n\n  ErrorCode(int status) {\n    this.status = status;\n  }\n\n  public int status() {\n    return status;\n  }\n}\n",
    ),
    (
        "api/src/main/java/com/quarry/stock/StockQueries.java",
        "package com.quarry.stock;\n\nimport com.quarry.api.ApiException;\nimport com.quarry.api.ErrorCode;\nimport com.quarry.api.Order;\n\npublic class StockQueries {\n  static final String AVAILABLE = \"SELECT id, sku FROM stock WHERE available_qty > 0\";\n\n  boolean shipped(Order order) {\n    return \"SHIPPED\".equals(order.status());\n  }\n\n  void reserve(Order order) {\n    if (order.available() < 1) {\n      throw new ApiException(ErrorCode.STOCK_EXHAUSTED, order.sku());\n    }\n  }\n}\n",
    ),
    (
        "api/src/main/resources/db/migration/V12__rename_qty_on_hand.sql",
        "ALTER TABLE stock RENAME COLUMN qty_on_hand TO available_qty;\n",
    ),
    (
        "app/src/main/java/com/quarry/app/OrdersViewModel.kt",
        "package com.quarry.app\n\nimport androidx.lifecycle.ViewModel\nimport androidx.lifecycle.viewModelScope\nimport kotlinx.coroutines.launch\nimport timber.log.Timber\n\nclass OrdersViewModel(private val repository: Repository) : ViewModel() {\n    fun refresh(count: Int) {\n        viewModelScope.launch { repository.sync(count) }\n        Timber.d(\"synced $count orders\")\n    }\n}\n",
    ),
    (
        "tasks/reindex.rb",
        "# frozen_string_literal: true\n\ndef reindex_all\n  started = Time.current\n  Order.find_each { |order| order.reindex! }\n  Time.current - started\nend\n",
    ),
    ("tools/lint/time_zone.sh", TIME_ZONE_SCRIPT),
    (
        "deploy/k8s/api.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: registry.example.com/quarry/api:2.4.0\n          resources:\n            limits:\n              cpu: 500m\n              memory: 512Mi\n",
    ),
    (
        "docker/api/Dockerfile",
        "FROM eclipse-temurin:21-jre\nWORKDIR /srv/quarry\nCOPY build/libs/api.jar /srv/quarry/api.jar\nCMD [\"java\", \"-jar\", \"/srv/quarry/api.jar\"]\n",
    ),
    (
        "web/styles/tokens.css",
        ":root {\n  --ink: #222;\n  --focus-ring: #0a7;\n}\n",
    ),
    (
        "web/styles/base.css",
        "@import \"./tokens.css\";\n\n.button:focus-visible { outline: 2px solid var(--focus-ring); }\n.button:focus:not(:focus-visible) { outline: none; }\n",
    ),
    (".gitignore", "build/\n.gradle/\n"),
];

pub static QUARRY: Catalogue = Catalogue {
    name: "quarry",
    mistakes: MISTAKES,
    look_alikes,
    shares: &[
        (Lang::Java, 27),
        (Lang::Kt, 20),
        (Lang::Rb, 20),
        (Lang::Kube, 13),
        (Lang::Docker, 10),
        (Lang::Css, 10),
    ],
    files: FILES,
    rules: &[
        (
            ".claude/claude-auto-review/validators/error-codes.json",
            ERROR_CODE_RULE,
        ),
        (
            ".claude/claude-auto-review/validators/time-zone.json",
            TIME_ZONE_RULE,
        ),
    ],
};
