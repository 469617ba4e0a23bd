"""One place that makes a string safe for each kind of output rankkit writes: ids, system names,
file names and labels come from files a stranger may have written (DESIGN.md, user 5).

One module per kind, each used by every writer of that kind:

- ``terminal``: trec_eval's text (``eval``, ``check``, ``compare``, ``agree``), every line printed to
  a terminal and every error and warning message. Control characters (C0, DEL, C1) and the
  Unicode line separators and bidirectional controls are written visibly escaped (``\\n``,
  ``\\x1b``, ``\\u202e``): nothing forges a line or reaches the terminal as a sequence.
- ``csv``: CSV and TSV cells, as OWASP advises against formula injection: a text cell starting
  with ``= + - @``, TAB, CR, LF or NUL gets a leading single quote; numbers stay numbers.
- ``markdown``: Markdown text and table cells: no HTML, no link, no image, no emphasis, no ``|``
  ending a cell and no newline ending a row.
- ``spark_sql``: a table name pasted into a Spark SQL statement (``rankkit sql --dialect spark``,
  the Spark engine): each part between backticks, a backtick doubled; what cannot be quoted is
  refused. (The SQL macros quote ids in their messages with ``rankkit.visible``, the Spark
  statement with ``rankkit.spark_dialect.visible``: the terminal rule in each engine's SQL.)
- ``latex``: LaTeX text that compiles for any name (a Unicode engine sets every character; pdfLaTeX
  a code point where it has no glyph); ``plot``: text matplotlib draws as its characters (no
  mathtext, no missing glyph); ``html``: the HTML report's text, with what a browser would hide or
  reorder (controls, bidirectional overrides) written visibly.

JSON and Parquet need nothing: they are typed (an id is a string value there, never code or a
formula), and ``json`` writes every control character as ``\\u00XX``.

Defense in depth: the readers refuse a query id or system name holding a control character
(``rankkit.io.checks``), and every writer still escapes for its kind, since Python users hand
frames straight to writers.
"""
