"""The site machinery: MkDocs hooks, the one code runner, translations, figures, notebooks, the theme.

Nothing here is lesson code: a reader's copy of a listing needs only torch and ``attention_lesson``'s lesson
modules (which need only torch). This package needs the ``docs`` extra (MkDocs, markdown-exec, matplotlib, …).
"""
