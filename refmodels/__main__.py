"""``python -m silicon_agent.refmodels``."""

import sys

from silicon_agent.refmodels.cli import main

sys.exit(main())
