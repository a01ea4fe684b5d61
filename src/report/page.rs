//! The page around the sections: the document head with its inline style, the header with the
//! project's totals, the table of contents, and a few lines of script that sort and filter the
//! lesson table (the page reads fully without it).
//!
//! Invariants: the page is self-contained — no link, image, font or script is fetched from
//! anywhere — and the only script is the one written here, never data.

use crate::report::html::Html;

/// The totals the header shows.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Totals {
    pub(crate) lessons: usize,
    pub(crate) retired: usize,
    pub(crate) warnings_this_week: usize,
    pub(crate) blocked_edits: usize,
    pub(crate) stopped_writes: usize,
    pub(crate) stops_blocked: usize,
    pub(crate) reviews: usize,
    pub(crate) escalations: usize,
    pub(crate) sessions: usize,
}

const STYLE: &str = "\
:root{--fg:#1d2430;--muted:#667085;--line:#e4e7ec;--bg:#fff;--soft:#f6f7f9;--ok:#1a7f37;--bad:#c0362c;--warn:#b25e09;--esc:#7a3fc0}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{background:#111827;color:#fff;padding:18px 28px}header h1{margin:0 0 4px;font-size:20px}header .sub{color:#cbd5e1;font-size:13px}
.totals{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}.total{background:#1f2937;border-radius:8px;padding:8px 14px;min-width:110px}
.total b{display:block;font-size:22px}.total span{color:#cbd5e1;font-size:12px}
nav{padding:8px 28px;border-bottom:1px solid var(--line);background:var(--soft)}nav a{margin-right:16px;color:var(--fg)}
main{padding:0 28px 40px}h2{margin:28px 0 8px;font-size:18px}h3{margin:18px 0 6px;font-size:15px}h4{margin:12px 0 4px;font-size:13px;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);position:sticky;top:0;cursor:pointer;user-select:none;white-space:nowrap}
#lesson-table td:nth-child(1),#lesson-table td:nth-child(5),#lesson-table td:nth-child(6),#lesson-table td:nth-child(7){text-align:right;font-variant-numeric:tabular-nums}
#lesson-table td:nth-child(1){font-weight:700}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--soft);padding:1px 4px;border-radius:4px}code.t,#lesson-table td:nth-child(4) code{display:inline-block;margin:1px 3px 1px 0}
.id{color:var(--muted);font-size:11px}.note{color:var(--muted)}.warn{color:var(--warn)}.from{color:var(--muted);font-size:12px}
.tag{display:inline-block;border-radius:10px;padding:0 8px;font-size:11px;background:var(--soft);border:1px solid var(--line)}
.tag.ok{color:var(--ok);border-color:var(--ok)}.tag.bad{color:var(--bad);border-color:var(--bad)}.tag.warn{color:var(--warn);border-color:var(--warn)}.tag.esc{color:var(--esc);border-color:var(--esc)}
.sev{display:inline-block;border-radius:4px;padding:0 5px;font-size:11px;font-weight:700;color:#fff}.sev.P1{background:var(--bad)}.sev.P2{background:var(--warn)}.sev.P3{background:#98a2b3}
.said{color:#344054;margin:2px 0 2px 14px;font-size:12px;border-left:3px solid var(--line);padding-left:8px;white-space:pre-wrap}
pre{margin:2px 0;font-size:12px;white-space:pre-wrap}pre.bad{background:#fdecea}pre.good{background:#e9f7ef}
details.session{border:1px solid var(--line);border-radius:8px;margin:8px 0;padding:6px 12px}details summary{cursor:pointer}
.counts{color:var(--muted);font-size:12px}ul.tight{margin:4px 0;padding-left:20px}ol.timeline{padding-left:22px}ol.timeline>li{margin:6px 0}
ul.stages{margin:2px 0;color:#344054;font-size:12px}.when{color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
.round{border-left:3px solid var(--line);margin:8px 0;padding-left:10px}.esc-note{color:var(--esc)}
small{color:var(--muted);font-size:11px}#lesson-table td:nth-child(2) small{display:block}#lesson-table td:nth-child(2){min-width:300px;max-width:520px}#lesson-table td:nth-child(4){max-width:300px}td small{white-space:nowrap}
#lesson-table svg{width:120px;height:24px}#lesson-table polyline{fill:none;stroke:#2563eb;stroke-width:1.5}#lesson-table circle.h{fill:var(--ok)}#lesson-table circle.i{fill:#98a2b3}#lesson-table circle.p{fill:#2563eb}
.dot{display:inline-block;width:8px;height:8px;border-radius:4px}.dot.h{background:var(--ok)}.dot.i{background:#98a2b3}
input.filter{margin:6px 0;padding:5px 8px;width:320px;border:1px solid var(--line);border-radius:6px}
";

/// Sorts a table by a clicked column (numbers as numbers) and filters rows by a search box.
const SCRIPT: &str = "\
document.querySelectorAll('table.sortable th').forEach(function(th,col){th.addEventListener('click',function(){\
var body=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(body.rows),dir=th.dataset.dir==='1'?-1:1;th.dataset.dir=dir===1?'1':'0';\
rows.sort(function(a,b){var x=a.cells[col].textContent.trim(),y=b.cells[col].textContent.trim(),m=parseFloat(x),n=parseFloat(y);\
return (isNaN(m)||isNaN(n)?x.localeCompare(y):m-n)*dir;});rows.forEach(function(r){body.appendChild(r);});});});\
document.querySelectorAll('input.filter').forEach(function(box){box.addEventListener('input',function(){\
var q=box.value.toLowerCase(),rows=document.getElementById(box.dataset.table).tBodies[0].rows;\
for(var i=0;i<rows.length;i++){rows[i].style.display=rows[i].textContent.toLowerCase().indexOf(q)<0?'none':'';}});});
";

/// Opens the page: head, header with the totals, and the contents.
pub(crate) fn open(page: &mut Html, project: &str, generated: &str, totals: &Totals) {
    page.raw("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>car report — ");
    page.text(project)
        .raw("</title><style>")
        .raw(STYLE)
        .raw("</style></head><body><header><h1>What car learned</h1><div class=\"sub\">");
    page.text(project)
        .raw(" · ")
        .text(generated)
        .raw("</div><div class=\"totals\">");
    for (value, label) in [
        (totals.lessons, "lessons"),
        (totals.warnings_this_week, "warnings this week"),
        (totals.blocked_edits, "edits blocked"),
        (totals.stopped_writes, "writes stopped"),
        (totals.stops_blocked, "stops blocked"),
        (totals.reviews, "reviews"),
        (totals.escalations, "escalations"),
        (totals.retired, "lessons retired"),
        (totals.sessions, "sessions"),
    ] {
        page.raw("<div class=\"total\"><b>")
            .number(value)
            .raw("</b><span>")
            .raw(label)
            .raw("</span></div>");
    }
    page.raw("</div></header><nav><a href=\"#lessons\">Lessons</a><a href=\"#let-go\">Let go</a><a href=\"#sessions\">Sessions</a><a href=\"#deep-review\">Deep review</a></nav><main>");
}

/// Closes the page.
pub(crate) fn close(page: &mut Html) {
    page.raw("</main><script>")
        .raw(SCRIPT)
        .raw("</script></body></html>\n");
}
