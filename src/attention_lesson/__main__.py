import sys

from attention_lesson.cli import main

sys.exit(main())
