"""The exercise notebooks: a jupytext file per language becomes an ``.ipynb`` with the Japanese run's outputs.

The code cells are the Japanese notebook's (the translation check makes a translated notebook's code cells the
same), their includes read from snippets/ and their comments and printed strings in the notebook's language.
Each code cell's output is what that cell printed in the notebook's one run (:mod:`attention_lesson.site.run`),
its printed strings translated. Markdown cells are the language's own, with their ``{{ values }}`` filled.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat

from attention_lesson.site import source, strings
from attention_lesson.site.lesson import PageRun
from attention_lesson.site.render import ANSWER


def executed(text: str, run: PageRun, words: strings.Strings, snippets: Path, path: str, fill) -> str:  # noqa: ANN001
    """The ``.ipynb`` text of a jupytext notebook (percent format) with `run`'s outputs; `fill` fills values."""
    nb = jupytext.reads(text, fmt="py:percent")
    outputs = iter(run.outputs)
    for index, cell in enumerate(nb.cells, 1):
        cell["id"] = f"cell-{index}"
        tags = [tag for tag in cell.metadata.get("tags", []) if tag == "answer"]  # the one tag the site reads
        cell.metadata = {"tags": tags} if tags else {}
        if cell.cell_type == "markdown":
            cell.source = (f"{ANSWER}\n" if tags else "") + fill(cell.source)
        elif cell.cell_type == "code":  # jupytext reads it without outputs or an execution count
            code, _ = source.expand(cell.source, snippets, f"{path}:0")
            block = next(outputs, None)
            cell.source = strings.localize_source(code, words).rstrip("\n")
            if block and block["output"]:
                printed = strings.localize_output(block["output"], block["literals"], words)
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                   "language_info": {"name": "python"}}
    return nbformat.writes(nb)
