"""The whole lesson in a terminal: python snippets/attention.py [--section N] [--lang CODE]"""

import sys

from attention_lesson.cli import main

sys.exit(main())
