"""``python -m hinter.cli``: the same as the ``hinter`` command."""

import sys

from hinter.cli.main import main

sys.exit(main())
