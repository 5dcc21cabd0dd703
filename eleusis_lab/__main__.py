"""``python -m eleusis_lab``: the same as the ``eleusis-lab`` command."""

import sys

from eleusis_lab.cli import main

sys.exit(main())
