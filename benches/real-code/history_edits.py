"""Real edits replayed from git history (real-code-bench --edits-from-history REPO...).

Synthetic edits (valid_edits.py) and synthetic slips (--inject) miss what real commits do: an
edit that adds syntax newer than a grammar, a file rewritten halfway, a new file. This replays
the last N first-parent commits of each repository (a checkout or a bare clone) as an agent's
Writes:

  * every file the commit added or modified (no renames: a renamed file is a new file) in a
    language car validates (the bench's own detection), not binary, not over 2 MiB, UTF-8;
    at most `per_commit` of them per commit (seeded sample: a merge can touch hundreds);
  * its new version is judged by the language's real tool (the truth; no tool: taken as
    valid, counted apart). Only valid new versions are replayed;
  * the project is the commit's tree (`git archive`, so imports, manifests and configs are
    what the commit left), the file on disk holds the new version, and `car hook
    post-tool-use` gets a Claude Code Write whose `originalFile` is the parent's version (None
    for an added file). A block is a false block of a real edit;
  * detection on real edits: for up to K replayed edits per language, one slip (the --inject
    mutator: a closing bracket, a quote or a Python colon deleted) in a line the commit added,
    kept only if the real tool rejects it (no tool: kept, unverified), replayed the same way
    and counted as blocked, told (not blocked, but the answer's additionalContext names a
    possible slip or a validator's warning) or silent.

Invariants: nothing is written into the repositories (read with `git cat-file`, `git diff`,
`git archive`); each commit's tree lives in its own folder under the caller's hooks folder
and is removed after its replay; each replayed Write has a session of its own, so no edit sees
another's state.
"""

import bisect
import concurrent.futures as cf
import os
import random
import re
import shutil
import subprocess
import sys

import agent_write

MAX_BYTES = 2 * 1024 * 1024
REGULAR = ("100644", "100755")
VALID = ("ok", "jsx", "none")


def git(gitdir, *args, check=True):
    return subprocess.run(["git", "--git-dir", gitdir, "--literal-pathspecs", *args],
                          capture_output=True, check=check).stdout


def is_git_dir(path):
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def git_dir(repo):
    """The git dir of a checkout or a bare clone, or of the one clone a folder holds within two
    levels (a mirror folder `owner+name/repo`); None if there is none."""
    repo = os.path.abspath(repo)
    if is_git_dir(repo):
        return repo
    if is_git_dir(os.path.join(repo, ".git")):
        return os.path.join(repo, ".git")
    for root, dnames, _ in os.walk(repo):
        if root.count(os.sep) - repo.count(os.sep) >= 2:
            dnames[:] = []
        for d in sorted(dnames):
            if is_git_dir(os.path.join(root, d)):
                return os.path.join(root, d)
        dnames.sort()
    return None


def repo_name(gitdir):
    """owner/name for a mirror folder `owner+name/repo`, else the folder's name."""
    parts = [p for p in gitdir.split(os.sep) if p]
    while len(parts) > 1 and parts[-1] in (".git", "repo"):
        parts.pop()
    name = parts[-1][:-4] if parts[-1].endswith(".git") else parts[-1]
    return name.replace("+", "/", 1)


class Blobs:
    """One `git cat-file --batch` per repository."""

    def __init__(self, gitdir):
        self.proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def read(self, sha):
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3:
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def first_parent_commits(gitdir, count):
    """[(commit, first parent)], newest first; a root commit has nothing to replay."""
    out = []
    for line in git(gitdir, "rev-list", "--first-parent", "--parents", f"-n{count}", "HEAD").decode().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out.append((parts[0], parts[1]))
    return out


def changed_files(gitdir, parent, commit):
    """[(path, old blob or None, new blob)] of regular files added or modified."""
    fields = git(gitdir, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", parent,
                 commit).split(b"\0")
    out = []
    for meta, path in zip(fields[0::2], fields[1::2]):
        parts = meta.decode().lstrip(":").split()
        if len(parts) != 5:
            continue
        old_mode, new_mode, old_sha, new_sha, status = parts
        if new_mode not in REGULAR or status not in ("A", "M"):
            continue
        if status == "M" and old_mode not in REGULAR:
            continue
        out.append((path.decode("utf-8", "surrogateescape"), old_sha if status == "M" else None,
                    new_sha))
    return out


def text_of(data):
    if data is None or len(data) > MAX_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def gather(repos, commits, per_commit, stage, detect, seed):
    """The changed files of the last `commits` commits of each repo that car validates:
    ([edit], [repo info]). An edit is a dict: repo, gitdir, commit, parent, path, lang, old
    (None: added), new, staged (the new version on disk, under its own path for detection)."""
    edits, infos, staged_count = [], [], 0
    for repo in repos:
        gitdir = git_dir(repo)
        if gitdir is None:
            print(f"history: no git repository in {repo}", file=sys.stderr)
            continue
        info = {"repo": repo_name(gitdir), "head": git(gitdir, "rev-parse", "HEAD").decode().strip(),
                "commits": 0, "changed": 0, "in_languages": 0, "sampled_out": 0}
        infos.append(info)
        blobs = Blobs(gitdir)
        for commit, parent in first_parent_commits(gitdir, commits):
            info["commits"] += 1
            found = []
            for path, old_sha, new_sha in changed_files(gitdir, parent, commit):
                info["changed"] += 1
                new = text_of(blobs.read(new_sha))
                old = text_of(blobs.read(old_sha)) if old_sha else None
                if new is None or (old_sha and old is None):
                    continue
                # A folder per file, never reused: its name and parent folder decide detection.
                folder = os.path.join(stage, f"{staged_count:05d}")
                staged_count += 1
                staged = os.path.join(folder, path)
                os.makedirs(os.path.dirname(staged), exist_ok=True)
                with open(staged, "w", encoding="utf-8", newline="") as f:
                    f.write(new)
                lang = detect(staged)
                if lang is None:
                    shutil.rmtree(folder)
                    continue
                found.append({"repo": info["repo"], "gitdir": gitdir, "commit": commit,
                              "parent": parent, "path": path, "lang": lang, "old": old,
                              "new": new, "staged": staged})
            info["in_languages"] += len(found)
            if len(found) > per_commit:
                rng = random.Random(f"{seed}:history:{commit}")
                keep = sorted(rng.sample(range(len(found)), per_commit))
                info["sampled_out"] += len(found) - per_commit
                found = [found[i] for i in keep]
            edits.extend(found)
        blobs.close()
        print(f"history {info['repo']}: {info['commits']} commits, {info['in_languages']} changed "
              f"files in car's languages", file=sys.stderr)
    return edits, infos


def added_lines(edit):
    """Line numbers (1-based) of the new version that the commit added."""
    if edit["old"] is None:
        return set(range(1, edit["new"].count("\n") + 2))
    diff = git(edit["gitdir"], "diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv",
               "--no-renames", edit["parent"], edit["commit"], "--", edit["path"], check=False)
    lines = set()
    for m in re.finditer(rb"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.M):
        start, count = int(m.group(1)), int(m.group(2) or 1)
        lines.update(range(start, start + count))
    return lines


COMMENT_START = re.compile(r"\s*(//|/\*|\*|#(?!if|else|elif|endif))")


def in_code(text, offset, lang):
    """Whether the character at `offset` is not in a comment, as far as its line tells: a line
    that starts as one (`//`, `/*`, ` * `, `#` outside C and Swift directives, `<!--`) or a `//`
    before it. A slip there breaks nothing, and where no tool judges a slip (Swift, Kotlin)
    nothing else would drop it."""
    start = text.rfind("\n", 0, offset) + 1
    before = text[start:offset]
    if lang == "HTML":
        return "<!--" not in before
    return not COMMENT_START.match(before) and "//" not in before


def make_slips(edits, per_lang, truth, choose_sites, stage, seed):
    """One slip in an added line (in code, not in a comment) for up to `per_lang` valid edits of
    each language: [slip], a dict: edit, content, kind, offset, line, verdict ("reject", or
    "none" where no tool judges). Twice as many edits are tried, as the tool accepts some
    slips (a quote deleted inside a string), and the first `per_lang` kept."""
    by_lang = {}
    for e in edits:
        if e["truth"] in VALID:
            by_lang.setdefault(e["lang"], []).append(e)
    slips = []
    for lang, pool in by_lang.items():
        rng = random.Random(f"{seed}:history-slips:{lang}")
        pool = pool[:]
        rng.shuffle(pool)
        cand, chosen = [], 0
        for e in pool:
            if chosen >= 2 * per_lang:
                break
            text, added = e["new"], added_lines(e)
            starts = [0] + [m.end() for m in re.finditer("\n", text)]

            def in_added(offset, starts=starts, added=added, text=text):
                return bisect.bisect_right(starts, offset) in added and in_code(text, offset, lang)
            sites = choose_sites(lang, text, random.Random(f"{seed}:{e['commit']}:{e['path']}"), 6,
                                 keep=in_added)
            if not sites:
                continue
            chosen += 1
            for k, (off, kind) in enumerate(sites):
                folder = os.path.join(stage, "slips", lang.replace("+", "p"), f"{len(cand):05d}")
                target = os.path.join(folder, os.path.basename(e["path"]))
                os.makedirs(folder, exist_ok=True)
                content = text[:off] + text[off + 1:]
                with open(target, "w", encoding="utf-8", newline="") as f:
                    f.write(content)
                cand.append({"edit": e, "content": content, "kind": kind, "offset": off,
                             "line": text.count("\n", 0, off) + 1, "file": target})
        verdicts = truth.run(lang, [(c["file"], c["file"]) for c in cand])
        done = set()
        for c in cand:
            v = verdicts[c["file"]][0]
            if id(c["edit"]) not in done and v in ("reject", "none") and len(done) < per_lang:
                done.add(id(c["edit"]))
                c["verdict"] = v
                slips.append(c)
    return slips


def replay_commit(car, items, root, home):
    """Replays the Writes of one commit (valid edits, then slips) in that commit's tree; sets
    each item's `answer` (agent_write.verdict) and `reason` (car's first lines)."""
    first = items[0]["edit"] if "edit" in items[0] else items[0]
    project = os.path.join(root, first["commit"][:12] + "-" + first["repo"].replace("/", "+"))
    os.makedirs(project)
    try:
        archive = subprocess.Popen(["git", "--git-dir", first["gitdir"], "archive", "--format=tar",
                                    first["commit"]], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", project, "-f", "-"], stdin=archive.stdout,
                       capture_output=True)
        archive.stdout.close()
        archive.wait()
        for n, item in enumerate(items):
            edit = item.get("edit", item)
            path = os.path.join(project, edit["path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            content = item["content"] if "edit" in item else edit["new"]
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(content)
            reply = agent_write.answer(car, project, path, edit["old"], content, home,
                                       session=f"history-{edit['commit'][:10]}-{n}")
            item["answer"] = agent_write.verdict(reply)
            said = reply.get("reason") or (reply.get("hookSpecificOutput") or {}).get(
                "additionalContext") or ""
            item["reason"] = "\n".join(said.replace(project + os.sep, "").splitlines()[:4])
            if "edit" in item:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(edit["new"])
    finally:
        shutil.rmtree(project, ignore_errors=True)


def run(args, car, truth, detect, choose_sites, tmp, hooks_dir, home):
    """The whole measurement: {"repos", "edits", "slips", "tool_rejects"}; edits and slips
    carry their `answer`."""
    stage = os.path.join(tmp, "history")
    edits, infos = gather(args.edits_from_history, args.history_commits,
                          args.history_files_per_commit, stage, detect, args.seed)
    by_lang = {}
    for e in edits:
        by_lang.setdefault(e["lang"], []).append(e)
    for lang, lst in by_lang.items():
        verdicts = truth.run(lang, [(e["staged"], e["staged"]) for e in lst])
        for e in lst:
            e["truth"], e["truth_msg"] = verdicts[e["staged"]]
    valid = [e for e in edits if e["truth"] in VALID]
    slips = make_slips(valid, args.inject_per_lang, truth, choose_sites, stage, args.seed)
    per_commit = {}
    for item in valid + slips:
        edit = item.get("edit", item)
        per_commit.setdefault((edit["gitdir"], edit["commit"]), []).append(item)
    print(f"history: replaying {len(valid)} valid edits and {len(slips)} slips in "
          f"{len(per_commit)} commits", file=sys.stderr)
    root = os.path.join(hooks_dir, "history")
    os.makedirs(root, exist_ok=True)
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for n, _ in enumerate(ex.map(lambda items: replay_commit(car, items, root, home),
                                     per_commit.values()), 1):
            if n % 50 == 0:
                print(f"history: {n}/{len(per_commit)} commits replayed", file=sys.stderr)
    return {"repos": infos, "edits": valid, "slips": slips,
            "tool_rejects": [e for e in edits if e["truth"] not in VALID]}


def counts(result):
    """{lang: {edits, fb_syntax, fb_import, unverified, slips, slips_unverified, blocked, told,
    silent, tool_rejects}}"""
    out = {}

    def row(lang):
        return out.setdefault(lang, dict(edits=0, unverified=0, fb_syntax=0, fb_import=0,
                                         slips=0, slips_unverified=0, blocked=0, told=0,
                                         silent=0, tool_rejects=0))
    for e in result["edits"]:
        r = row(e["lang"])
        r["edits"] += 1
        r["unverified"] += e["truth"] == "none"
        r["fb_syntax"] += e.get("answer") == "block: syntax"
        r["fb_import"] += e.get("answer") == "block: import"
    for s in result["slips"]:
        r = row(s["edit"]["lang"])
        r["slips"] += 1
        r["slips_unverified"] += s["verdict"] == "none"
        answer = s.get("answer", "silent")
        r["blocked" if answer.startswith("block") else answer] += 1
    for e in result["tool_rejects"]:
        row(e["lang"])["tool_rejects"] += 1
    return out


def where(e):
    return f"{e['repo']}@{e['commit'][:10]}:{e['path']}"


def report(P, result, args, lang_order, md_escape):
    """The markdown section of the replay (the summary table is the caller's)."""
    c = counts(result)
    P("\n## Real edits from history\n")
    P(f"The last {args.history_commits} first-parent commits of each repository; every added or "
      f"modified file in a language car validates (at most {args.history_files_per_commit} per "
      "commit) whose new version the real tool accepts is replayed as a Claude Code Write in "
      "the commit's tree, the payload carrying the parent's version. Slips: one deleted "
      "bracket, quote or Python colon in a line the commit added.\n")
    P("| repository | HEAD | commits | changed files | in car's languages | sampled out |")
    P("|---|---|---:|---:|---:|---:|")
    for i in result["repos"]:
        P(f"| {i['repo']} | {i['head'][:10]} | {i['commits']} | {i['changed']} | "
          f"{i['in_languages']} | {i['sampled_out']} |")
    P("\n| language | real edits replayed (no tool) | hook blocks: syntax | hook blocks: import | "
      "new version rejected by the tool (not replayed) | slips (unverified) | blocked | told | silent |")
    P("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lang in [x for x in lang_order if x in c]:
        r = c[lang]
        P(f"| {lang} | {r['edits']} ({r['unverified']}) | {r['fb_syntax']} | {r['fb_import']} | "
          f"{r['tool_rejects']} | {r['slips']} ({r['slips_unverified']}) | {r['blocked']} | "
          f"{r['told']} | {r['silent']} |")
    blocks = [e for e in result["edits"] if e.get("answer", "").startswith("block")]
    if blocks:
        P("\n### False blocks of real edits\n")
        for e in blocks:
            P(f"- {e['lang']} `{where(e)}` ({'added' if e['old'] is None else 'modified'}"
              f"{', no tool' if e['truth'] == 'none' else ''}): {e['answer']}\n")
            P("  ```\n" + "\n".join("  " + line for line in e["reason"].splitlines()) + "\n  ```")
    quiet = [s for s in result["slips"] if s.get("answer") in ("told", "silent")]
    if quiet:
        P("\n### Slips not blocked\n")
        for s in quiet:
            e = s["edit"]
            P(f"- {s['answer']}: {e['lang']} `{where(e)}:{s['line']}` deleted {s['kind']}"
              f"{' (unverified)' if s['verdict'] == 'none' else ''}"
              f"{' — ' + md_escape(s['reason'].splitlines()[0][:160]) if s.get('reason') else ''}")
    rejects = result["tool_rejects"]
    if rejects:
        P("\n### New versions the real tool rejects (not replayed)\n")
        for e in rejects[:40]:
            P(f"- {e['lang']} `{where(e)}`: {md_escape(e['truth_msg'][:160])}")


def to_json(result):
    def edit(e):
        return {k: e.get(k) for k in ("repo", "commit", "path", "lang", "truth", "truth_msg",
                                      "answer", "reason")} | {"added": e["old"] is None}
    return {
        "repos": result["repos"], "per_language": counts(result),
        "edits": [edit(e) for e in result["edits"]],
        "slips": [{"edit": edit(s["edit"]), "line": s["line"], "offset": s["offset"], "kind": s["kind"],
                   "verdict": s["verdict"], "answer": s.get("answer"), "reason": s.get("reason")}
                  for s in result["slips"]],
        "tool_rejects": [edit(e) for e in result["tool_rejects"]],
    }
