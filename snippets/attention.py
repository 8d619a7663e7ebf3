"""The whole lesson in a terminal: python snippets/attention.py [--section N] [--lang CODE]"""

import sys
from pathlib import Path

from attention_lesson.site.cli import main

sys.exit(main(folder=Path(__file__).resolve().parent))
