"""`python -m sitecite.cli`."""

import sys

from sitecite.cli import main

sys.exit(main())
