import sys

from attention_lesson.site.cli import main

sys.exit(main())
