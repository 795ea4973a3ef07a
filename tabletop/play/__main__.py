"""``python -m tabletop.play --game NAME``: a game in the terminal (see
:mod:`tabletop.play.terminal`)."""

import sys

from tabletop.play.terminal import main

sys.exit(main())
