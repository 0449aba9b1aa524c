"""`python -m perftui` is the same as the `perftui` command."""

import sys

from perftui.cli import main

sys.exit(main())
