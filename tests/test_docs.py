from rankkit.docs import END, START, measure_table
from support import ROOT


def test_readme_measure_table_is_generated_from_the_registry():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split(START, 1)[1].split(END, 1)[0]
    assert table.strip() == measure_table().strip(), "run: python -m rankkit.docs"
