"""The site machinery: the MkDocs plugin, the one code runner, translations, figures, notebooks, the theme.

Nothing here is lesson code: a reader's copy of a listing needs only torch. This package needs the ``docs``
extra (MkDocs, markdown-exec, mkdocs-jupyter, ...).
"""
