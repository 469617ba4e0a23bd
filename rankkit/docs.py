"""The measure tables of the documentation, generated from the registry (``python -m rankkit.docs``
rewrites them): every measure on the measures page (``docs/measures.md``), the beyond-accuracy ones
again where their page introduces them (``docs/beyond-accuracy.md``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rankkit._files import write_text
from rankkit.measures import beyond_measures, beyond_params, params, registry

__all__ = ["PAGE", "BEYOND_PAGE", "measure_table", "beyond_table", "beyond_part", "update_page"]

START, END = "<!-- measures:start -->", "<!-- measures:end -->"
BEYOND_START, BEYOND_END = "<!-- beyond:start -->", "<!-- beyond:end -->"
PAGE = Path("docs") / "measures.md"  # from the repository's root
BEYOND_PAGE = Path("docs") / "beyond-accuracy.md"


def measure_table() -> str:
    """One row per measure: name, aliases (trec_eval's, ranx's) and presets, parameters, definition,
    aggregate, which way is better (its header's better:), citation and its SQL file (a path in the
    repository: the site holds no SQL files to link to)."""
    rows = ["| measure | aliases | parameters | definition | aggregate | better | citation | SQL |",
            "|---|---|---|---|---|---|---|---|"]
    for m in registry().values():
        presets = [f"`{name}` = `{m.name}({fixed})`" for name, fixed in m.presets]
        aliases = ", ".join([*(f"`{a.replace('{k}', 'k')}`" for a in m.aliases), *presets]) or "—"
        taken = ", ".join(f"`{p}`" if p == "k" else f"`{p}={params()[p].default.strip(chr(39))}`" for p in m.params)
        example = (f"`{m.name}@10`" if "k" in m.params else f"`{m.name}@0.5`" if "recall" in m.params
                   else f"`{m.name}`")
        summary, cite = (text.replace("|", "\\|") for text in (m.summary, m.cite))
        rows.append(f"| {example} | {aliases} | {taken or '—'} | {summary} | {m.aggregate} | {m.better} | {cite} | "
                    f"`sql/metrics/{m.metric}.sql` |")
    return "\n".join(rows + [""] + beyond_table()) + "\n\nParameters:\n\n" + _legend(
        [*params().values(), *beyond_params().values()])


def beyond_part() -> str:
    """The beyond-accuracy page's table: the measures' rows and their own parameters."""
    return "\n".join(_beyond_rows()) + "\n\nTheir parameters:\n\n" + _legend(beyond_params().values())


def _legend(declared) -> str:
    return "\n".join(f"- `{p.name}` ({p.type}, default {p.default}{_takes(p)}): {p.description}" for p in declared) + "\n"


def beyond_table() -> list[str]:
    """The beyond-accuracy measures' rows (sql/metrics/beyond/*.sql): they read the run's top k and a side
    table (docs/beyond-accuracy.md), one value per system or a value per user averaged over users."""
    return ["Beyond accuracy (the run's top k and a side table, not the qrels: [beyond-accuracy.md](beyond-accuracy.md)):",
            "", *_beyond_rows()]


def _beyond_rows() -> list[str]:
    rows = ["| measure | aliases | parameters | definition | level | better | reads | citation | SQL |",
            "|---|---|---|---|---|---|---|---|---|"]
    for m in dict.fromkeys(beyond_measures().values()):
        taken = ", ".join(f"`{p}`" if p == "k" else f"`{p}={beyond_params()[p].default.strip(chr(39))}`" for p in m.params)
        summary, cite = (text.replace("|", "\\|") for text in (m.summary, m.cite))
        level = "per system" if m.level == "system" else "mean over users"
        rows.append(f"| `{m.name}@10` | {', '.join(f'`{a}`' for a in m.aliases) or '—'} | {taken} | {summary} | {level} | "
                    f"{m.better} | "
                    f"{' or '.join(f'`{side}`' for side in m.needs) or 'the run'} | {cite} | "
                    f"`sql/metrics/beyond/{m.metric}.sql` |")
    return rows


def _takes(param) -> str:
    """What a parameter's declaration allows beyond its type: its words, or the refusal's words."""
    if param.values:
        return "; one of " + ", ".join(f"`{v}`" for v in param.values)
    return f"; {param.must}" if param.must else ""


def update_page(path: Path) -> bool:
    """Rewrite the tables between the markers (measures:, beyond:); True when the file changed."""
    text = path.read_text(encoding="utf-8")
    new = text
    for start, end, made in ((START, END, measure_table), (BEYOND_START, BEYOND_END, beyond_part)):
        if start in new:
            new = re.sub(re.escape(start) + r".*?" + re.escape(end), lambda _: f"{start}\n{made()}{end}", new, flags=re.S)
    if new != text:
        write_text(path, new)
    return new != text


if __name__ == "__main__":
    for page in [Path(arg) for arg in sys.argv[1:]] or [PAGE, BEYOND_PAGE]:
        print(f"{page} updated" if update_page(page) else f"{page} already up to date")
