#!/usr/bin/env python3
"""Section 3 man pages from doc/man/*.md, the one source of the per-call docs.

    scripts/md2man.py OUTDIR PAGE.md...

Each PAGE.md becomes OUTDIR/man3/NAME.3, NAME being its file name; every
other call its Synopsis declares (int NAME(...)) gets a one-line page that
sources it (.so man3/NAME.3), so `man MPI_Rget_notify` shows the page that
documents it.  Only the Markdown the pages use is understood: '#' title and
summary paragraph, '##' sections, ```c blocks, '- **name** - text' lists (with
indented continuation lines), paragraphs, `code` and **bold**.  Anything else
is an error, so a page never renders half-converted.
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


def inline(text):
    """A line with `code` and **bold** in bold."""
    text = escape(text)
    return re.sub(r"`([^`]+)`|\*\*([^*]+)\*\*", lambda m: "\\fB" + (m.group(1) or m.group(2)) + "\\fR",
                  text)


def convert(path, date):
    name = os.path.splitext(os.path.basename(path))[0]
    lines = open(path, encoding="utf-8").read().split("\n")
    if not lines or not lines[0].startswith("# "):
        raise SystemExit(f"{path}: first line must be '# NAME[, NAME...]'")
    names = [n.strip() for n in lines[0][2:].split(",")]
    out = [f'.TH {name} {SECTION} "{date}" "{MANUAL}" "{MANUAL}"', ".SH NAME"]
    i, summary = 1, []
    while i < len(lines) and not lines[i].startswith("## "):
        if lines[i].strip():
            summary.append(lines[i].strip())
        i += 1
    out.append(", ".join(names) + " \\- " + inline(" ".join(summary)))
    declared = []
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
            out.append(".SH " + line[3:].strip().upper())
        elif line.startswith("```"):
            flush_para()
            i += 1
            out.append(".PP")
            out.append(".nf")
            out.append(".ft CW")
            while i < len(lines) and not lines[i].startswith("```"):
                declared += re.findall(r"\bint\s+(MPIX?_\w+)\s*\(", lines[i])
                out.append(escape(lines[i]) if lines[i] else "")
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}: unterminated code block")
            out.append(".ft R")
            out.append(".fi")
        elif line.startswith("- "):
            flush_para()
            item = [line[2:].strip()]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
                i += 1
                item.append(lines[i].strip())
            text = " ".join(item)
            m = re.match(r"\*\*([^*]+)\*\*\s+-\s+(.*)", text)
            if m:
                out.append(".TP")
                out.append("\\fB" + m.group(1) + "\\fR")
                out.append(inline(m.group(2)))
            else:
                out.append(".IP \\(bu 2")
                out.append(inline(text))
        elif line.startswith("#") or line.startswith("|"):
            raise SystemExit(f"{path}:{i + 1}: not understood: {line}")
        elif line.strip():
            para.append(line.strip())
        else:
            flush_para()
        i += 1
    flush_para()
    return name, "\n".join(out) + "\n", declared


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    outdir = os.path.join(sys.argv[1], "man" + SECTION)
    os.makedirs(outdir, exist_ok=True)
    # the pages' own date, for reproducible output
    date = os.environ.get("MAN_DATE", "")
    pages = {}
    for path in sys.argv[2:]:
        name, text, declared = convert(path, date)
        pages[name] = (text, declared)
    for name, (text, declared) in pages.items():
        with open(os.path.join(outdir, name + "." + SECTION), "w", encoding="utf-8") as f:
            f.write(text)
        for alias in declared:
            if alias == name or alias in pages:
                continue
            with open(os.path.join(outdir, alias + "." + SECTION), "w", encoding="utf-8") as f:
                f.write(f".so man{SECTION}/{name}.{SECTION}\n")


if __name__ == "__main__":
    main()
