"""The whole lesson in a terminal: python snippets/attention.py [--section N] [--lang CODE]"""

import sys

from attention_lesson.site.cli import main

sys.exit(main())
