"""Valid edits of files a grammar misreads, through the hook (real-code-bench --edits).

car trusts some grammars only for what an edit introduced (an error absent before the edit). This
measures the other side of that rule: an agent's edit that leaves such a file valid must not be
blocked. For each file car only warns about (its grammar misreads it), a few edits an agent makes
every day, each arriving as a Write that carries the original:

  comment    a comment line inserted at a random line boundary
  duplicate  a top-level block (a line at column 0 up to the next) copied before another one
  delete     a top-level block removed

Edits the language's real tool rejects are dropped (where there is no tool they are kept,
unverified: a block there may be a real error the edit made, and is listed for a look).
"""

import os
import random
import re

COMMENT = {
    "Python": "# car: an edited line", "Shell": "# car: an edited line",
    "Ruby": "# car: an edited line", "YAML": "# car: an edited line",
    "TOML": "# car: an edited line", "CSS": "/* car: an edited line */",
    "HTML": "<!-- car: an edited line -->",
}
NO_COMMENT = {"JSON", "JSONL"}
# A line that starts a top-level block: at column 0, not a closer, not a continuation of the
# block above (else, catch, …), not a comment, not a preprocessor line (those sit inside
# functions too).
BLOCK_START = re.compile(r"^[A-Za-z_$@.\[]")
# Blocks that must stay at the head of a file (Kotlin, Java, Go): never copied elsewhere.
HEAD_ONLY = re.compile(r"^(package|import|using|module\b|@file:)")
# A label at column 0 (`fail:` in C) is inside a function, not the start of a block.
LABEL = re.compile(r"^\w+:\s*$")
CONTINUES = re.compile(
    r"^(else|elif|except|finally|catch|rescue|ensure|when|end|fi|done|esac|then|do|in|case)\b")


def blocks(lines, lang):
    """Top-level blocks: from a line at column 0 after a blank line (a paragraph, so a return type
    on the line above a C function stays with it) to the next; only blocks whose brackets and
    `#if`/`#endif` balance (so a copy or a deletion cannot unbalance the file)."""
    starts = [i for i, line in enumerate(lines)
              if BLOCK_START.match(line) and not CONTINUES.match(line) and not LABEL.match(line)
              and (i == 0 or not lines[i - 1].strip())]
    starts.append(len(lines))
    return [(a, b) for a, b in zip(starts, starts[1:])
            if b > a and balanced(lines[a:b]) and (lang != "CSS" or "{" in "\n".join(lines[a:b]))]


def balanced(lines):
    text = "\n".join(lines)
    if any(text.count(open_) != text.count(close) for open_, close in ("()", "[]", "{}")):
        return False
    # A block that starts or ends inside a comment or a long string is not a block.
    if text.count("/*") != text.count("*/") or text.count('"""') % 2 or text.count("'''") % 2:
        return False
    directives = [line.split()[0] for line in lines if line.lstrip().startswith("#") and line.split()]
    opened = sum(d.lstrip().startswith(("#if", "# if")) for d in directives)
    return opened == sum(d.lstrip().startswith(("#endif", "# endif")) for d in directives)


def inside_comment_or_string(lines):
    """Whether the text of `lines` ends inside a block comment or a triple-quoted string (a
    comment line inserted there would not be a comment line)."""
    text = "\n".join(lines)
    return (text.count("/*") > text.count("*/") or text.count('"""') % 2 == 1
            or text.count("'''") % 2 == 1)


def make_edits(lang, text, rng, count):
    """Up to `count` distinct edited versions of `text`: [(kind, new_text)]."""
    lines = text.split("\n")
    found = blocks(lines, lang)
    comment = COMMENT.get(lang, "// car: an edited line")
    out, seen = [], {text}
    for attempt in range(count * 4):
        kind = ("comment", "duplicate", "delete")[attempt % 3]
        if kind == "comment":
            if lang in NO_COMMENT:
                continue
            at = rng.randrange(len(lines) + 1)
            if at > 0 and lines[at - 1].rstrip().endswith("\\"):
                continue
            if inside_comment_or_string(lines[:at]):
                continue
            new = lines[:at] + [comment] + lines[at:]
        elif len(found) < 2:
            continue
        elif kind == "duplicate":
            first, end = rng.choice(found)
            if HEAD_ONLY.match(lines[first]):
                continue
            at = rng.choice(found[1:])[0]  # after the first block: a `package` line stays first
            new = lines[:at] + lines[first:end] + lines[at:]
        else:
            first, end = rng.choice(found)
            new = lines[:first] + lines[end:]
        edited = "\n".join(new)
        if edited not in seen:
            seen.add(edited)
            out.append((kind, edited))
        if len(out) >= count:
            break
    return out


def measure(lang, files, truth, blocks_edit, root, seed, per_file=3):
    """Edits `files` (paths) of `lang`; `truth.run` judges the edited files, `blocks_edit(original,
    edited)` runs the hook (a false value: not blocked). Returns (kept, blocked): kept =
    [(original, edited, kind, verdict)], blocked = what `blocks_edit` said of each."""
    cand = []
    for n, path in enumerate(files):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rng = random.Random(f"{seed}:edits:{path}")
        for k, (kind, edited) in enumerate(make_edits(lang, text, rng, per_file * 2)):
            folder = os.path.join(root, f"{n:04d}-{k}")
            os.makedirs(folder, exist_ok=True)
            target = os.path.join(folder, os.path.basename(path))
            with open(target, "w", encoding="utf-8") as f:
                f.write(edited)
            cand.append((path, target, kind))
    verdicts = truth.run(lang, [(edited, edited) for _, edited, _ in cand])
    kept, per = [], {}
    for path, edited, kind in cand:
        verdict = verdicts[edited][0]
        if verdict in ("ok", "jsx", "none") and per.get(path, 0) < per_file:
            per[path] = per.get(path, 0) + 1
            kept.append((path, edited, kind, verdict))
    blocked = [blocks_edit(path, edited) for path, edited, _, _ in kept]
    return kept, blocked
