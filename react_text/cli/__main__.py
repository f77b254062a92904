"""``python -m react_text.cli``: the same as the ``react-text`` command."""

import sys

from .main import main

sys.exit(main())
