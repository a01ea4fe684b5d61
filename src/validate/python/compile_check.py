# car's Python check, run as
#   python -I -S -B -c <this> <find_imports.py> NAME LINES [r:ROOT|s:SITE]...
# with the source on stdin. One interpreter start does everything:
#   1. compile() the source (catches what only the compiler knows: 'return' outside function,
#      IndentationError), writing nothing to __pycache__;
#   2. only when LINES names lines (the edit added imports; "all" for a whole file), the second
#      script (find_imports.py, passed as text) is compiled and run to find those imports.
# Split in two because Python compiles the whole -c text on every start: the finder costs
# milliseconds to compile, and most edits add no import. Output lines are described in
# find_imports.py; this part prints "E<TAB>line<TAB>col<TAB>message", and after errors
# "V<TAB>major<TAB>minor" (the interpreter's version). Must run on 3.6+.
import gc
import sys

# Nothing here lives long enough to need the cycle collector; it would run during the compile
# (a few percent of the check).
gc.disable()


def emit(*fields):
    text = "\t".join(str(f).replace("\t", " ").replace("\n", " ") for f in fields)
    sys.stdout.buffer.write((text + "\n").encode("utf-8", "replace"))


# ast.PyCF_ONLY_AST, without importing `ast` (its imports cost more than the whole check).
ONLY_AST = 0x400


def compile_errors(source, name, want_tree):
    """compile() in two steps when the tree is wanted (parser, then compiler), so both kinds of
    errors are caught either way. Returns (had_error, tree)."""
    tree = None
    try:
        if want_tree:
            tree = compile(source, name, "exec", ONLY_AST, True)
            compile(tree, name, "exec", 0, True)
        else:
            compile(source, name, "exec", 0, True)
    except SyntaxError as error:
        kind = type(error).__name__
        emit("E", error.lineno or 1, error.offset or 1, kind + ": " + str(error.msg))
        return True, None
    except (ValueError, TypeError) as error:
        emit("E", 1, 1, type(error).__name__ + ": " + str(error))
        return True, None
    return False, tree


def main():
    finder, name, lines = sys.argv[1], sys.argv[2], sys.argv[3]
    # The bytes, as Python reads a file: it drops a byte order mark and honours a coding line
    # itself, and no codec module has to be imported to decode them.
    source = sys.stdin.buffer.read()
    had_error, tree = compile_errors(source, name, bool(lines))
    if had_error:
        # Which Python judged: an older one than the project's rejects newer syntax.
        emit("V", sys.version_info[0], sys.version_info[1])
    if had_error or tree is None:
        return
    scope = {"emit": emit}
    exec(compile(finder, "car-python-imports", "exec"), scope)
    scope["check"](tree, lines, sys.argv[4:])


main()
