"""``python -m refmodels``."""

import sys

from refmodels.cli import main

sys.exit(main())
