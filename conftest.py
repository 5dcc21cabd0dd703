"""Settings shared by the tests, the doctests and the notebooks of the suite."""

import os

# The notebooks run at a small size under the suite (nbmake starts their kernels from
# this process, so they inherit the variable); people running them get the full size.
os.environ.setdefault("ELEUSIS_LAB_SMALL", "1")
