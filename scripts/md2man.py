#!/usr/bin/env python3
"""Man pages from doc/man/*.md, the one source of the per-call docs.

    scripts/md2man.py OUTDIR PAGE.md...

Each PAGE.md becomes OUTDIR/man3/NAME.3, NAME being its file name, or
OUTDIR/man1/NAME.1 when its title line writes NAME as 'NAME(1)' (a command,
such as natrace).  Every other name of its title line ('# NAME, OTHER, ...')
and every function its Synopsis declares (a ```c line 'TYPE NAME(...', TYPE
being int, void, MPI_Request ...) gets a one-line page that sources it
(.so man3/NAME.3), so `man MPI_Rget_notify` shows the page that documents
it; a title name written 'name(1)' (a command, such as natrace-plot) gets
its alias as OUTDIR/man1/name.1.  The NAME line shows every name without
its '(1)'.

Only the Markdown the pages use is understood: '#' title and summary
paragraph, '##' sections, ```c/```sh blocks, lists ('- ' items with indented
continuation lines), paragraphs, `code`, **bold** and links.  A list is
either all tagged items, '- TERM - text' with TERM one or more **bold** or
`code` terms (', ' / ' / ' and ' / ' or ' between them, an optional
'(remark)' after), rendered as .TP, or all plain items, rendered as bullets;
a list that mixes the two is an error.  A link [text](target) renders as its
text (bold when it is a call name); the NAME line is plain text.  Anything
else is an error, so a page never renders half-converted.
"""
import os
import re
import sys

SECTION = "3"
MANUAL = "Notified Access MPICH"


def escape(text):
    """Roff-escape a line of plain text (backslashes, characters beyond
    ASCII as groff's \\[uXXXX], a leading dot or quote)."""
    text = text.replace("\\", "\\e")
    text = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)
    return "\\&" + text if text[:1] in (".", "'") else text


LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*_[A-Za-z0-9_]+$")
# a list item's term: **bold** or `code` terms, and an optional (remark)
TERM_TOKEN = r"(?:\*\*[^*]+\*\*|`[^`]+`)"
TERM = re.compile(r"(%s(?:(?:,\s*|\s+/\s+|\s+and\s+|\s+or\s+)%s)*(?:\s+\([^)]*\))?)\s+-\s+(.*)"
                  % (TERM_TOKEN, TERM_TOKEN))
# a Synopsis declaration: TYPE NAME( at the start of a line (not a typedef)
DECL = re.compile(r"(?:(?:const|unsigned|struct)\s+)*(?!typedef\b|return\b)[A-Za-z_]\w*"
                  r"(?:\s+|\s*\*+\s*)([A-Za-z_]\w*)\s*\(")
# a title name: an identifier or command, with an optional (section)
TITLE_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)(?:\(([1-8])\))?$")


def unlink(text):
    """[text](target) -> text, as **text** if text is a call name; the
    page's name for [man](PAGE.md)."""
    def repl(m):
        t = m.group(1)
        if t == "man" and m.group(2).endswith(".md"):    # ([man](PAGE.md))
            t = os.path.basename(m.group(2))[:-3]
        return "**" + t + "**" if CALL.match(t) else t
    return LINK.sub(repl, text)


def inline(text):
    """A line with `code` and **bold** in bold, links as their text."""
    text = escape(unlink(text))
    return re.sub(r"`([^`]+)`|\*\*([^*]+)\*\*", lambda m: "\\fB" + (m.group(1) or m.group(2)) + "\\fR",
                  text)


def plain(text):
    """A line with no markup at all (the NAME line: whatis reads it)."""
    text = re.sub(r"`([^`]+)`|\*\*([^*]+)\*\*", lambda m: m.group(1) or m.group(2), unlink(text))
    return escape(text)


def convert(path, date):
    """The page of PATH: (name, roff text, [(alias, section), ...])."""
    name = os.path.splitext(os.path.basename(path))[0]
    lines = open(path, encoding="utf-8").read().split("\n")
    if not lines or not lines[0].startswith("# "):
        raise SystemExit(f"{path}: first line must be '# NAME[, NAME...]'")
    names, aliases = [], []
    for n in lines[0][2:].split(","):
        m = TITLE_NAME.match(n.strip())
        if not m:
            raise SystemExit(f"{path}:1: not a name (an identifier or command, "
                             f"optionally with '(1)'): {n.strip()}")
        names.append(m.group(1))
        aliases.append((m.group(1), m.group(2) or SECTION))
    if name not in names:
        raise SystemExit(f"{path}:1: the title does not name the page's own name {name}")
    section_of_page = dict(aliases)[name]
    out = [f'.TH {name} {section_of_page} "{date}" "{MANUAL}" "{MANUAL}"', ".SH NAME"]
    i, summary = 1, []
    while i < len(lines) and not lines[i].startswith("## "):
        if lines[i].strip():
            summary.append(lines[i].strip())
        i += 1
    out.append(", ".join(names) + " \\- " + plain(" ".join(summary)))
    section = ""
    para = []

    def flush_para():
        if para:
            out.append(".PP")
            out.append(inline(" ".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            flush_para()
            section = line[3:].strip().upper()
            out.append(".SH " + section)
        elif line.startswith("```"):
            flush_para()
            lang = line[3:].strip()
            i += 1
            out.append(".PP")
            out.append(".nf")
            out.append(".ft CW")
            while i < len(lines) and not lines[i].startswith("```"):
                if section == "SYNOPSIS" and lang == "c":
                    m = DECL.match(lines[i])
                    if m:
                        aliases.append((m.group(1), SECTION))
                out.append(escape(lines[i]) if lines[i] else "")
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}: unterminated code block")
            out.append(".ft R")
            out.append(".fi")
        elif line.startswith("- "):
            flush_para()
            kinds = set()
            while True:
                item = [line[2:].strip()]
                while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
                    i += 1
                    item.append(lines[i].strip())
                text = " ".join(item)
                m = TERM.match(text)
                if m:
                    out.append(".TP")
                    out.append(inline(m.group(1)))
                    out.append(inline(m.group(2)))
                else:
                    out.append(".IP \\(bu 2")
                    out.append(inline(text))
                kinds.add(bool(m))
                if len(kinds) > 1:
                    raise SystemExit(f"{path}:{i + 1}: a list mixes '- TERM - text' items "
                                     f"and plain ones: {text[:60]}")
                if i + 1 < len(lines) and lines[i + 1].startswith("- "):
                    i += 1
                    line = lines[i]
                else:
                    break
        elif line.startswith("#") or line.startswith("|"):
            raise SystemExit(f"{path}:{i + 1}: not understood: {line}")
        elif line.strip():
            para.append(line.strip())
        else:
            flush_para()
        i += 1
    flush_para()
    text = "\n".join(out) + "\n"
    if LINK.search(text) or re.search(r"\.md\)", text):
        raise SystemExit(f"{path}: a link or '.md)' is left in the page")
    return name, section_of_page, text, aliases


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    # the pages' own date, for reproducible output
    date = os.environ.get("MAN_DATE", "")
    pages = {}
    for path in sys.argv[2:]:
        name, section, text, aliases = convert(path, date)
        pages[name] = (section, text, aliases)
    owner = {}
    for name, (_, text, aliases) in pages.items():
        for alias, section in aliases:
            if alias == name or alias in pages:
                continue
            if owner.get((alias, section), name) != name:
                raise SystemExit(f"{alias}({section}): named by both {owner[alias, section]}.md "
                                 f"and {name}.md")
            owner[alias, section] = name
    for name, (section, text, aliases) in pages.items():
        outdir = os.path.join(sys.argv[1], "man" + section)
        os.makedirs(outdir, exist_ok=True)
        with open(os.path.join(outdir, name + "." + section), "w", encoding="utf-8") as f:
            f.write(text)
    for (alias, section), name in owner.items():
        outdir = os.path.join(sys.argv[1], "man" + section)
        os.makedirs(outdir, exist_ok=True)
        page = pages[name][0]
        with open(os.path.join(outdir, alias + "." + section), "w", encoding="utf-8") as f:
            f.write(f".so man{page}/{name}.{page}\n")


if __name__ == "__main__":
    main()
