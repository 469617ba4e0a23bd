"""The measure table of the documentation's measures page (``docs/measures.md``), generated from the registry
(``python -m rankkit.docs`` rewrites it)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rankkit._files import write_text
from rankkit.measures import params, registry

__all__ = ["PAGE", "measure_table", "update_page"]

START, END = "<!-- measures:start -->", "<!-- measures:end -->"
PAGE = Path("docs") / "measures.md"  # from the repository's root


def measure_table() -> str:
    """One row per measure: name, aliases (trec_eval's, ranx's) and presets, parameters, definition,
    citation and its SQL file (a path in the repository: the site holds no SQL files to link to)."""
    rows = ["| measure | aliases | parameters | definition | aggregate | citation | SQL |", "|---|---|---|---|---|---|---|"]
    for m in registry().values():
        presets = [f"`{name}` = `{m.name}({fixed})`" for name, fixed in m.presets]
        aliases = ", ".join([*(f"`{a.replace('{k}', 'k')}`" for a in m.aliases), *presets]) or "—"
        taken = ", ".join(f"`{p}`" if p == "k" else f"`{p}={params()[p].default.strip(chr(39))}`" for p in m.params)
        example = (f"`{m.name}@10`" if "k" in m.params else f"`{m.name}@0.5`" if "recall" in m.params
                   else f"`{m.name}`")
        summary, cite = (text.replace("|", "\\|") for text in (m.summary, m.cite))
        rows.append(f"| {example} | {aliases} | {taken or '—'} | {summary} | {m.aggregate} | {cite} | "
                    f"`sql/metrics/{m.metric}.sql` |")
    legend = "\n".join(f"- `{p.name}` ({p.type}, default {p.default}{_takes(p)}): {p.description}"
                       for p in params().values())
    return "\n".join(rows) + "\n\nParameters:\n\n" + legend + "\n"


def _takes(param) -> str:
    """What a parameter's declaration allows beyond its type: its words, or the refusal's words."""
    if param.values:
        return "; one of " + ", ".join(f"`{v}`" for v in param.values)
    return f"; {param.must}" if param.must else ""


def update_page(path: Path) -> bool:
    """Rewrite the table between the markers; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    new = re.sub(re.escape(START) + r".*?" + re.escape(END), f"{START}\n{measure_table()}{END}", text, flags=re.S)
    if new != text:
        write_text(path, new)
    return new != text


if __name__ == "__main__":
    page = Path(sys.argv[1]) if len(sys.argv) > 1 else PAGE
    print(f"{page} updated" if update_page(page) else f"{page} already up to date")
