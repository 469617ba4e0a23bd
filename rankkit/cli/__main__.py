"""``python -m rankkit.cli``: the console script ``rankkit``."""

import sys

from rankkit.cli import main

sys.exit(main())
